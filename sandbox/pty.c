/*
 * pty.c - an interactive run on a pty of its own, as with ssh (issue 12 §6,
 * issue 8 hole 9).
 *
 * The pty is made by the sandbox's init, after pivot_root and before any
 * code of the task runs, in the sandbox's own devpts: so the slave has a
 * name inside (`tty` prints /dev/pts/0) and nothing of the host's devpts is
 * shown. The init sends the master to the supervisor over a socketpair and
 * keeps the slave open until it exits; the command makes the slave its
 * controlling terminal in its own session, so the shell inside has job
 * control: ^Z stops the job inside, not agenttask, whose terminal is in raw
 * mode and only relays bytes.
 *
 * The supervisor copies the caller's stdin to the master and the master to
 * the caller's terminal (stdio.c's pumps), passes on window size changes
 * (SIGWINCH: the kernel then signals the pty's foreground job itself), and
 * the terminal's termios, saved by stdio.c before anything ran, is put back
 * by at_sb_stdio_release on every way out of the run: exit, signal, timeout.
 * The command never holds a descriptor of the caller's terminal, so TIOCSTI
 * or TIOCSETD (denied by the seccomp filter anyway), TIOCEXCL or a termios
 * change reach only the pty.
 *
 * Here the supervisor's side once the master has come: the relay, the
 * window size. The pty's socketpair is made and closed by stdio.c; the
 * init's side, which makes the pty, is child_pty.c.
 */
#include "sandbox/fdpass.h"
#include "sandbox/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>


/* ---- in the supervisor ---- */

/* Made by our own init before the task ran, but checked all the same: a pty master. */
static bool is_pty_master(int fd)
{
	struct stat st;
	unsigned int n;

	return fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) && major(st.st_rdev) == 5 &&
	       minor(st.st_rdev) == 2 && ioctl(fd, TIOCGPTN, &n) == 0;
}

/*
 * stdin was a pipe or a file (-t) and has ended: the pty's end-of-file
 * character, twice after a partial line (the first only hands the line over).
 */
static void send_veof(struct at_sb_pump *p)
{
	p->buf[0] = p->buf[1] = (char)p->veof;
	p->len = p->last && p->last != '\n' ? 2 : 1;
	p->off = 0;
}

/* Where the pty's output goes: the caller's stdout or stderr that it stands for. */
static int output_fd(const struct at_sb_stdio *io)
{
	int fl;

	if (io->mode[1] == SB_FD_PTY)
		return 1;
	if (io->mode[2] == SB_FD_PTY)
		return 2;
	fl = fcntl(0, F_GETFL);
	return fl >= 0 && (fl & O_ACCMODE) != O_RDONLY ? 0 : -1;
}

static int start_relay(struct at_sb_stdio *io, struct at_error *err)
{
	struct at_sb_pump *in, *out;
	struct termios t;

	if (fcntl(io->pty_master, F_SETFL, O_NONBLOCK) < 0)
		return at_error_sys(err, AT_ESANDBOX, "cannot set up the terminal");
	in = at_sb_stdio_add_pump(io, 0, io->pty_master, true);
	out = at_sb_stdio_add_pump(io, io->pty_master, output_fd(io), false);
	if (!in || !out)
		return at_error_sys(err, AT_ESANDBOX, "cannot set up the terminal");
	in->shared = out->shared = true;
	if (io->host_tty < 0) {
		in->on_eof = send_veof;
		in->veof = tcgetattr(io->pty_master, &t) == 0 ? t.c_cc[VEOF] : 4;
		return 0;
	}
	/* Raw: every key, ^C and ^Z included, goes to the pty; put back at release. */
	if (tcgetattr(io->host_tty, &t) < 0)
		return at_error_sys(err, AT_ESANDBOX, "cannot read the terminal's settings");
	cfmakeraw(&t);
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	while (tcsetattr(io->host_tty, TCSADRAIN, &t) < 0) {
		if (errno != EINTR)
			return at_error_sys(err, AT_ESANDBOX, "cannot set the terminal raw");
	}
	io->raw = true;
	return 0;
}

/*
 * The master, sent by the init before the command started. None (the init
 * failed first, and has said why on the report pipe): 0, the run goes on to
 * collect that report.
 */
int at_sb_pty_receive(struct at_sb_stdio *io, struct at_error *err)
{
	char byte;
	int fd, rc = at_fd_recv(io->pty_sock, &byte, &fd);

	close(io->pty_sock);
	io->pty_sock = -1;
	if (rc == 0)
		return 0;
	if (rc < 0 || fd < 0) {
		if (rc >= 0)
			errno = EPROTO;
		return at_error_sys(err, AT_ESANDBOX, "cannot receive the sandbox's terminal");
	}
	if (!is_pty_master(fd)) {
		close(fd);
		return at_error_set(err, AT_ESANDBOX, "the sandbox's terminal is not a pty");
	}
	io->pty_master = fd;
	return start_relay(io, err);
}

bool at_sb_pty_winch(struct at_sb_stdio *io)
{
	struct winsize ws;

	if (!io || io->pty_master < 0)
		return false;
	if ((isatty(0) && ioctl(0, TIOCGWINSZ, &ws) == 0) ||
	    (isatty(1) && ioctl(1, TIOCGWINSZ, &ws) == 0))
		(void)ioctl(io->pty_master, TIOCSWINSZ, &ws);
	return true;
}
