/*
 * stdio.c - what the command gets as fds 0, 1 and 2, and the copying that
 * the supervisor does for it (issue 8, holes 8 and 9).
 *
 * A descriptor handed to the command is a door: through /proc/self/fd/N it
 * can reopen the file behind it with new flags. A read-only stdin file could
 * be reopened for writing, an append-only log truncated, a directory given
 * as stdin walked. So the command gets the caller's descriptor itself only
 * where reopening gives it nothing new:
 *   - a pipe or a socket (a reopened pipe is the same pipe; a socket cannot
 *     be reopened);
 *   - a terminal (but see below), and /dev/null (the sandbox has its own);
 * and anything else (a regular file, a directory, another device) is
 * replaced by a pipe of ours, copied by the supervisor: from the file into
 * the pipe for stdin, from the pipe into the file for stdout and stderr.
 * Where stdout and stderr are one open file (2>&1), they share one pipe, so
 * their order is kept exactly.
 *
 * A terminal: with a pty (pty.c) the command is given the pty's slave
 * instead, and the supervisor relays between it and the user's terminal. A
 * terminal given as is (no pty: -T, or stdout a terminal and stdin not) has
 * its termios saved here and restored after the run, TIOCEXCL cleared, on
 * every path out of at_sandbox_run: the command cannot leave it raw, without
 * echo, or locked.
 *
 * The copying is a set of pumps in the supervisor's poll loop: each holds
 * one buffer, polls its source only when the buffer is empty and its
 * destination only when it is not, so nothing spins and a command that
 * neither reads its stdin nor writes its output costs nothing. Our ends of
 * the pipes are non-blocking; the caller's descriptors are left as they are
 * (their flags are shared with the shell), and writes to one that could
 * block (not a regular file or a block device) are kept to PIPE_BUF after
 * POLLOUT, so that a slow reader delays the run but never stalls the
 * supervisor past its timeout.
 */
#include "sandbox/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <linux/kcmp.h>

#define PUMP_BUF 65536

/* A descriptor of ours above 2, so that dup2 onto 0..2 cannot clobber it. */
static int high_fd(int fd)
{
	int hi;

	if (fd < 0 || fd > 2)
		return fd;
	hi = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	close(fd);
	return hi;
}

static int make_pipe(int p[2])
{
	int raw[2];

	if (pipe2(raw, O_CLOEXEC) < 0)
		return -1;
	p[0] = high_fd(raw[0]);
	p[1] = high_fd(raw[1]);
	if (p[0] < 0 || p[1] < 0) {
		if (p[0] >= 0)
			close(p[0]);
		if (p[1] >= 0)
			close(p[1]);
		return -1;
	}
	return 0;
}

static bool is_dev_null(const struct stat *st)
{
	return S_ISCHR(st->st_mode) && st->st_rdev == makedev(1, 3);
}

/* Are fds a and b one open file description (2>&1)? */
static bool same_description(int a, int b)
{
	struct stat sa, sb;
	pid_t me = getpid();
	long rc = syscall(SYS_kcmp, me, me, KCMP_FILE, a, b);

	if (rc >= 0)
		return rc == 0;
	/* No kcmp (CONFIG_KCMP off): the same file, the same offset. */
	return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino && lseek(a, 0, SEEK_CUR) == lseek(b, 0, SEEK_CUR) &&
	       fcntl(a, F_GETFL) == fcntl(b, F_GETFL);
}

static void pump_init(struct at_sb_pump *p, int src, int dst, bool input, bool careful)
{
	memset(p, 0, sizeof(*p));
	p->seek_fd = p->peek = -1;
	p->src = src;
	p->dst = dst;
	p->input = input;
	p->careful = careful;
}

/* May a write to fd block (not a regular file or block device)? */
static bool may_block(int fd)
{
	struct stat st;

	return fstat(fd, &st) < 0 || !(S_ISREG(st.st_mode) || S_ISBLK(st.st_mode));
}

/*
 * A pump from src to dst; input: toward the command (src is the caller's,
 * dst ours), else from it (src ours, dst the caller's, or -1: dropped).
 */
struct at_sb_pump *at_sb_stdio_add_pump(struct at_sb_stdio *io, int src, int dst, bool input)
{
	struct at_sb_pump *p;

	if (io->npumps == AT_SB_PUMPS_MAX) {
		errno = EINVAL;
		return NULL;
	}
	p = &io->pumps[io->npumps++];
	/* Only the caller's descriptors can block; ours are non-blocking. */
	pump_init(p, src, dst, input, !input && dst >= 0 && may_block(dst));
	p->dst_failed = dst < 0;
	p->buf = malloc(PUMP_BUF);
	/* Our own end, never the caller's, is made non-blocking. */
	if (!p->buf || fcntl(input ? dst : src, F_SETFL, O_NONBLOCK) < 0)
		return NULL;
	return p;
}

/* Save the termios of each terminal among fds 0..2 (one entry per terminal). */
static void save_terminals(struct at_sb_stdio *io)
{
	int fd, i;

	for (fd = 0; fd <= 2; fd++) {
		struct stat st;
		bool seen = false;

		if (fstat(fd, &st) < 0 || !isatty(fd))
			continue;
		for (i = 0; i < io->nsaved; i++)
			seen = seen || io->saved[i].rdev == st.st_rdev;
		if (seen || tcgetattr(fd, &io->saved[io->nsaved].tio) < 0)
			continue;
		io->saved[io->nsaved].fd = fd;
		io->saved[io->nsaved].rdev = st.st_rdev;
		io->nsaved++;
	}
}

/*
 * What each of fds 0..2 becomes (see the top of this file). With a pty,
 * stdin is its slave, and so are stdout and stderr where they are the same
 * terminal (or always, with -t), as with ssh: `run -- make 2>log` keeps
 * its log.
 */
static void classify(struct at_sb_stdio *io, bool capture)
{
	struct stat st0, st;
	bool tty0 = fstat(0, &st0) == 0 && isatty(0);
	int fd;

	for (fd = 0; fd <= 2; fd++) {
		bool ok = fstat(fd, &st) == 0;

		io->mode[fd] = SB_FD_PASS;
		if (fd > 0 && capture)
			continue;
		if (io->pty && (fd == 0 || io->tty == AT_TTY_FORCE ||
				(tty0 && ok && isatty(fd) && st.st_rdev == st0.st_rdev)))
			io->mode[fd] = SB_FD_PTY;
		else if (ok && !S_ISFIFO(st.st_mode) && !S_ISSOCK(st.st_mode) &&
			 !is_dev_null(&st) && !isatty(fd))
			io->mode[fd] = SB_FD_PIPE;
	}
}

/* A regular file as stdin: read it by offset, the caller's offset left alone. */
static int follow_offset(struct at_sb_pump *p, int pipe_read)
{
	struct stat st;
	off_t at;

	if (fstat(p->src, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (at = lseek(p->src, 0, SEEK_CUR)) < 0)
		return 0;
	p->peek = fcntl(pipe_read, F_DUPFD_CLOEXEC, 3);
	if (p->peek < 0)
		return -1;
	p->seek_fd = p->src;
	p->start = p->pos = at;
	return 0;
}

/*
 * For a pty (pty.c): the host's terminal, fd 0 when it is one (the pty
 * relays it), its settings for the slave, and the socketpair the master
 * comes over.
 */
static int pty_prepare(struct at_sb_stdio *io, struct at_sb_stdio_child *cs, struct at_error *err)
{
	int sp[2];

	io->host_tty = isatty(0) ? 0 : -1;
	cs->have_tio = io->host_tty >= 0 && tcgetattr(0, &cs->tio) == 0;
	cs->have_ws = (isatty(0) && ioctl(0, TIOCGWINSZ, &cs->ws) == 0) ||
		      (isatty(1) && ioctl(1, TIOCGWINSZ, &cs->ws) == 0);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0)
		return at_error_sys(err, AT_ESANDBOX, "cannot create a socket pair");
	io->pty_sock = sp[0];
	io->child_sock = sp[1];
	cs->sock = sp[1];
	cs->slave = -1;
	return 0;
}

int at_sb_stdio_prepare(struct at_sb_stdio *io, const struct at_sandbox_spec *o,
			struct at_sb_stdio_child *cs, struct at_error *err)
{
	bool capture = o->proc.stdio == AT_STDIO_CAPTURE;
	struct at_sb_pump *pump;
	int p[2], fd, rc = 0;

	io->tty = o->proc.tty;
	io->pty = o->proc.tty == AT_TTY_FORCE || (o->proc.tty == AT_TTY_AUTO && !capture && isatty(0));
	if (o->proc.tty == AT_TTY_FORCE && capture)
		return at_error_set(err, AT_EUSAGE,
				    "a terminal cannot be forced when the output "
				    "is captured");
	save_terminals(io);
	classify(io, capture);
	for (fd = 0; fd <= 2; fd++) {
		if (io->mode[fd] != SB_FD_PIPE)
			continue;
		if (fd == 2 && io->mode[1] == SB_FD_PIPE && same_description(1, 2)) {
			io->child_fd[2] = io->child_fd[1];
			continue;
		}
		if (make_pipe(p) < 0)
			return at_error_sys(err, AT_ESANDBOX, "cannot create pipes");
		io->child_fd[fd] = fd == 0 ? p[0] : p[1];
		pump = at_sb_stdio_add_pump(io, fd == 0 ? fd : p[0], fd == 0 ? p[1] : fd, fd == 0);
		if (!pump || (fd == 0 && follow_offset(pump, p[0]) < 0))
			return at_error_sys(err, AT_ESANDBOX, "cannot set up the copy of fd %d",
					    fd);
	}
	if (io->pty)
		rc = pty_prepare(io, cs, err);
	for (fd = 0; fd <= 2; fd++) {
		cs->mode[fd] = io->mode[fd];
		cs->fd[fd] = io->child_fd[fd];
	}
	cs->pty = io->pty;
	return rc;
}

void at_sb_stdio_init(struct at_sb_stdio *io)
{
	int fd;

	memset(io, 0, sizeof(*io));
	io->pty_master = io->pty_sock = io->child_sock = io->host_tty = -1;
	for (fd = 0; fd <= 2; fd++)
		io->child_fd[fd] = -1;
}

/* In the child, right after the clone: the supervisor's ends are not ours to hold. */
void at_sb_stdio_child_close(struct at_sb_stdio *io)
{
	size_t i;

	for (i = 0; i < io->npumps; i++) {
		const struct at_sb_pump *p = &io->pumps[i];

		if (!p->shared)
			close(p->input ? p->dst : p->src);
		if (p->peek >= 0)
			close(p->peek);
	}
	if (io->pty_sock >= 0)
		close(io->pty_sock);
}

/* In the supervisor, after the clone: the command's ends are the child's now. */
void at_sb_stdio_started(struct at_sb_stdio *io)
{
	int fd;

	for (fd = 0; fd <= 2; fd++) {
		if (io->child_fd[fd] >= 0 && io->mode[fd] == SB_FD_PIPE &&
		    (fd != 2 || io->child_fd[2] != io->child_fd[1]))
			close(io->child_fd[fd]);
		io->child_fd[fd] = -1;
	}
	if (io->child_sock >= 0)
		close(io->child_sock);
	io->child_sock = -1;
}

/* ---- the pumps ---- */

static void pump_close_src(struct at_sb_pump *p)
{
	if (p->src >= 0 && !p->input && !p->shared)
		close(p->src);
	p->src = -1;
}

static void pump_close_dst(struct at_sb_pump *p)
{
	if (p->dst >= 0 && p->input && !p->shared)
		close(p->dst);
	p->dst = -1;
}

/* The pump is over: its data is all written, or can never be. */
static void pump_done(struct at_sb_pump *p)
{
	if (p->input) {
		/* The caller's descriptor is theirs: only ours is closed. */
		p->src = -1;
		pump_close_dst(p);
	} else {
		pump_close_src(p);
		p->dst = -1;
	}
	p->len = p->off = 0;
	p->eof = true;
}

static void pump_read(struct at_sb_pump *p)
{
	ssize_t n = p->seek_fd >= 0 ? pread(p->src, p->buf, PUMP_BUF, p->pos)
				    : read(p->src, p->buf, PUMP_BUF);

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n > 0) {
		p->pos += n;
		p->len = (size_t)n;
		p->off = 0;
		return;
	}
	/* EOF; or EIO (a pty's other side closed), EISDIR (a directory as stdin). */
	p->eof = true;
	if (p->on_eof)
		p->on_eof(p);
	if (p->len == 0)
		pump_done(p);
}

static void pump_write(struct at_sb_pump *p)
{
	size_t want = p->len - p->off;
	ssize_t n;

	if (p->careful && want > PIPE_BUF)
		want = PIPE_BUF;
	n = write(p->dst, p->buf + p->off, want);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n < 0) {
		if (p->input) {
			/* The command closed its stdin: what is left is not wanted. */
			pump_done(p);
			return;
		}
		/*
		 * The caller's output failed (EIO, ENOSPC): drop it, keep
		 * draining. A reader gone (EPIPE, `run -t ... | head`) hangs
		 * the run up, as ssh's exit does a remote shell's.
		 */
		p->dst_failed = true;
		p->hangup = errno == EPIPE;
		n = (ssize_t)want;
	}
	p->off += (size_t)n;
	p->copied += (uint64_t)n;
	if (n > 0)
		p->last = p->buf[p->off - 1];
	if (p->off == p->len) {
		p->off = p->len = 0;
		if (p->eof)
			pump_done(p);
	}
}

static bool pump_active(const struct at_sb_pump *p)
{
	return p->src >= 0 || p->len > 0;
}

int at_sb_stdio_pollfds(struct at_sb_stdio *io, struct pollfd *pfd, int max)
{
	int n = 0;
	size_t i;

	for (i = 0; i < io->npumps && n < max; i++) {
		struct at_sb_pump *p = &io->pumps[i];

		p->poll_index = -1;
		if (!pump_active(p))
			continue;
		if (p->len > 0 && p->dst >= 0 && !p->dst_failed)
			pfd[n] = (struct pollfd){.fd = p->dst, .events = POLLOUT};
		else if (p->len == 0 && p->src >= 0)
			pfd[n] = (struct pollfd){.fd = p->src, .events = POLLIN};
		else
			continue;
		p->poll_index = n++;
	}
	return n;
}

void at_sb_stdio_handle(struct at_sb_stdio *io, const struct pollfd *pfd)
{
	size_t i;

	for (i = 0; i < io->npumps; i++) {
		struct at_sb_pump *p = &io->pumps[i];

		if (p->poll_index < 0 || !pfd[p->poll_index].revents)
			continue;
		if (pfd[p->poll_index].events & POLLOUT)
			pump_write(p);
		else
			pump_read(p);
		/* Output that can no longer be written is read and dropped. */
		if (p->dst_failed && p->len)
			p->off = p->len = 0;
	}
}

/* The command is gone: input has nobody to go to; output is drained to its end. */
void at_sb_stdio_command_gone(struct at_sb_stdio *io)
{
	size_t i;

	for (i = 0; i < io->npumps; i++) {
		if (io->pumps[i].input && pump_active(&io->pumps[i]))
			pump_done(&io->pumps[i]);
	}
}

bool at_sb_stdio_take_hangup(struct at_sb_stdio *io)
{
	bool any = false;
	size_t i;

	for (i = 0; i < io->npumps; i++) {
		any = any || io->pumps[i].hangup;
		io->pumps[i].hangup = false;
	}
	return any;
}

bool at_sb_stdio_busy(const struct at_sb_stdio *io)
{
	size_t i;

	for (i = 0; i < io->npumps; i++) {
		if (!io->pumps[i].input && pump_active(&io->pumps[i]))
			return true;
	}
	return false;
}

/* ---- the end ---- */

/*
 * A SIGPIPE from a stdin pipe whose reader left is ours, not the user's:
 * blocked while the pumps run, taken here if one came, before the caller's
 * mask is back.
 */
void at_sb_stdio_block_sigpipe(struct at_sb_stdio *io)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	io->sigpipe_was_pending = false;
	if (sigprocmask(SIG_BLOCK, &set, &io->sigpipe_saved) == 0) {
		sigset_t pend;

		io->sigpipe_blocked = true;
		io->sigpipe_was_pending = sigpending(&pend) == 0 && sigismember(&pend, SIGPIPE);
	}
}

static void unblock_sigpipe(struct at_sb_stdio *io)
{
	struct timespec zero = {0, 0};
	sigset_t set;

	if (!io->sigpipe_blocked)
		return;
	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	if (!io->sigpipe_was_pending)
		while (sigtimedwait(&set, NULL, &zero) == SIGPIPE)
			;
	sigprocmask(SIG_SETMASK, &io->sigpipe_saved, NULL);
	io->sigpipe_blocked = false;
}

/*
 * Put each terminal back as it was, unlocked (TIOCEXCL) and its output
 * restarted (a command given it with -T may have stopped it with tcflow):
 * TCSANOW, since a drain could wait for ever on output stopped that way.
 */
static void restore_terminals(struct at_sb_stdio *io)
{
	int i;

	for (i = 0; i < io->nsaved; i++) {
		int fd = io->saved[i].fd;

		(void)ioctl(fd, TIOCNXCL);
		(void)tcflow(fd, TCOON);
		while (tcsetattr(fd, TCSANOW, &io->saved[i].tio) < 0 && errno == EINTR)
			;
	}
	io->nsaved = 0;
}

static void pty_release(struct at_sb_stdio *io)
{
	if (io->pty_master >= 0)
		close(io->pty_master);
	if (io->pty_sock >= 0)
		close(io->pty_sock);
	if (io->child_sock >= 0)
		close(io->child_sock);
	io->pty_master = io->pty_sock = io->child_sock = -1;
}

/* The stdin file's offset goes past what the command read: unread bytes stay. */
static void settle_offset(struct at_sb_pump *p)
{
	int unread = 0;

	if (p->peek < 0)
		return;
	if (ioctl(p->peek, FIONREAD, &unread) < 0 || unread < 0)
		unread = 0;
	if ((uint64_t)unread <= p->copied)
		lseek(p->seek_fd, p->start + (off_t)(p->copied - (uint64_t)unread), SEEK_SET);
	close(p->peek);
	p->peek = p->seek_fd = -1;
}

void at_sb_stdio_release(struct at_sb_stdio *io)
{
	size_t i;
	int fd;

	for (i = 0; i < io->npumps; i++) {
		pump_done(&io->pumps[i]);
		settle_offset(&io->pumps[i]);
		free(io->pumps[i].buf);
		io->pumps[i].buf = NULL;
	}
	io->npumps = 0;
	for (fd = 0; fd <= 2; fd++) {
		if (io->child_fd[fd] >= 0 && io->mode[fd] == SB_FD_PIPE &&
		    (fd != 2 || io->child_fd[2] != io->child_fd[1]))
			close(io->child_fd[fd]);
		io->child_fd[fd] = -1;
	}
	pty_release(io);
	restore_terminals(io);
	unblock_sigpipe(io);
}
