/*
 * supervise.c - the two processes that watch a run.
 *
 * The sandbox's init (pid 1 of its pid namespace) starts the command in a new
 * session, forwards the signals the supervisor passes on to the command's
 * process group, reaps every orphan, and when the command exits kills
 * whatever is left (daemons, setsid'd or double-forked children: the run is
 * over) before it reports the command's wait status, with the step times,
 * and exits. When pid 1 exits the kernel kills every process of the
 * namespace; pid 1 itself dies with the supervisor (PR_SET_PDEATHSIG), so
 * kill -9 of agenttask takes the whole sandbox with it.
 *
 * The supervisor (agenttask) waits with one poll(2) loop on a signalfd (child
 * exit, signals to forward), the report pipe, and the capture pipes, and
 * enforces --timeout by killing pid 1. It reaps pid 1 before it returns, so
 * that nothing of the run, processes or mounts, outlives at_sandbox_run.
 */
#include "sandbox/internal.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* exec_path's buffer, a report, libc: far less; ASan's redzones included. */
#define COMMAND_STACK_SIZE (64 * 1024)

const int at_sb_forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH, 0 };

/* ---- the init (child side: async-signal-safe) ---- */

static void noop_handler(int sig)
{
	(void)sig;
}

struct command_arg {
	struct at_sb_child *c;
	int64_t *t_ns;
};

static int command_main(void *arg)
{
	struct command_arg *a = arg;

	at_sb_command_exec(a->c, a->t_ns);
}

/*
 * The command's process borrows the init's memory until its execve (the
 * CLONE_VM | CLONE_VFORK of posix_spawn): no page tables are copied, and the
 * init sleeps meanwhile, so nothing it holds changes under it. The command
 * runs on its own stack, a buffer in this frame, which stays untouched by
 * the sleeping init; it writes nothing of the init's memory but t_ns. It
 * gets its own copy of the signal handlers (no CLONE_SIGHAND) and of the
 * file descriptor table (no CLONE_FILES), so what it resets or closes
 * before execve is its own.
 */
static pid_t command_start(struct at_sb_child *c, int64_t *t_ns)
{
	char stack[COMMAND_STACK_SIZE] __attribute__((aligned(16)));
	struct command_arg arg = { c, t_ns };

	return (pid_t)clone(command_main, stack + sizeof(stack), CLONE_VM | CLONE_VFORK | SIGCHLD,
			    &arg);
}

void at_sb_init_run(struct at_sb_child *c, int64_t *t_ns)
{
	struct sigaction sa;
	struct at_sb_report rep;
	sigset_t set;
	int status = 0, i;
	pid_t cmd, p;

	/*
	 * The kernel drops signals to a pid 1 that has no handler for them.
	 * They stay blocked (since before clone) and are taken with
	 * sigwaitinfo(), but a handler makes sure they are delivered at all.
	 */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = noop_handler;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	for (i = 0; at_sb_forwarded[i]; i++) {
		sigaddset(&set, at_sb_forwarded[i]);
		sigaction(at_sb_forwarded[i], &sa, NULL);
	}
	sigaction(SIGCHLD, &sa, NULL);

	cmd = command_start(c, t_ns);
	if (cmd < 0) {
		at_sb_report_fail(c->report_fd, SB_FORK, errno, NULL, t_ns);
		_exit(AT_RUN_SETUP);
	}
	if (c->out_fd >= 0)
		close(c->out_fd);
	if (c->err_fd >= 0)
		close(c->err_fd);

	for (;;) {
		int sig = sigwaitinfo(&set, NULL);
		bool done = false;

		if (sig < 0)
			continue;
		if (sig != SIGCHLD) {
			/* The command leads its own session and process group. */
			if (kill(-cmd, sig) < 0)
				kill(cmd, sig);
			continue;
		}
		while ((p = waitpid(-1, &i, WNOHANG)) > 0) {
			if (p == cmd) {
				status = i;
				done = true;
			}
		}
		if (done)
			break;
	}

	/* The command is done: so is everything it left behind. */
	kill(-1, SIGKILL);
	while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
		;
	t_ns[AT_STEP_EXITED] = at_sb_now_ns();
	/* One report at the end: the supervisor sleeps while the command runs. */
	memset(&rep, 0, sizeof(rep));
	rep.kind = SB_REPORT_EXIT;
	rep.status = status;
	memcpy(rep.t_ns, t_ns, sizeof(rep.t_ns));
	(void)!write(c->report_fd, &rep, sizeof(rep));
	/*
	 * With a cgroup, stay in it until the supervisor has read its counters
	 * (OOM kills, refused forks): the last process to leave a systemd
	 * scope makes systemd remove it. EOF: read, or the supervisor is gone.
	 */
	if (c->hold) {
		char byte;
		while (read(c->sync_fd, &byte, 1) < 0 && errno == EINTR)
			;
	}
	_exit(0);
}

/* ---- the supervisor ---- */

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct capture {
	int fd;
	char *buf;
	size_t len, max;
	bool truncated;
};

/* Keep up to max bytes; read and drop the rest so the writer never blocks. */
static void capture_read(struct capture *cap)
{
	char chunk[16384];
	ssize_t n = read(cap->fd, chunk, sizeof(chunk));
	size_t keep;

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		close(cap->fd);
		cap->fd = -1;
		return;
	}
	keep = (size_t)n;
	if (cap->len + keep > cap->max) {
		keep = cap->max - cap->len;
		cap->truncated = true;
	}
	if (keep) {
		char *nb = realloc(cap->buf, cap->len + keep + 1);
		if (!nb) {
			cap->truncated = true;
			return;
		}
		cap->buf = nb;
		memcpy(cap->buf + cap->len, chunk, keep);
		cap->len += keep;
		cap->buf[cap->len] = '\0';
	}
}

static void handle_report(struct at_sb_super *s, const struct at_sb_report *rep)
{
	switch (rep->kind) {
	case SB_REPORT_SETUP:
		if (!s->have_setup_fail) {
			s->setup_fail = *rep;
			s->have_setup_fail = true;
		}
		break;
	case SB_REPORT_EXEC:
		s->exec_fail = *rep;
		s->have_exec_fail = true;
		break;
	case SB_REPORT_EXIT:
		s->cmd_status = rep->status;
		s->have_cmd_status = true;
		memcpy(s->t_ns, rep->t_ns, sizeof(s->t_ns));
		s->have_timing = true;
		if (s->at_exit_report)
			s->at_exit_report(s->arg);
		break;
	}
}

static void read_report(struct at_sb_super *s)
{
	struct at_sb_report rep;
	ssize_t n = read(s->report_fd, &rep, sizeof(rep));

	if (n < 0 && errno == EINTR)
		return;
	if (n <= 0) {
		close(s->report_fd);
		s->report_fd = -1;
		return;
	}
	if ((size_t)n == sizeof(rep))
		handle_report(s, &rep);
}

/* wait4() for the init, blocking or not (WNOHANG). */
static void reap_init(struct at_sb_super *s, int options)
{
	struct rusage ru;
	int status;
	pid_t p;

	do
		p = wait4(s->init_pid, &status, options, &ru);
	while (p < 0 && errno == EINTR);
	if (p == s->init_pid) {
		s->t_done_ns = at_sb_now_ns();
		s->init_done = true;
		s->init_status = status;
		s->ru = ru;
	}
}

static void read_signal(struct at_sb_super *s)
{
	struct signalfd_siginfo si;

	if (read(s->sig_fd, &si, sizeof(si)) != (ssize_t)sizeof(si))
		return;
	if (si.ssi_signo != SIGCHLD) {
		if (!s->init_done)
			kill(s->init_pid, (int)si.ssi_signo);
		return;
	}
	reap_init(s, WNOHANG);
}

int at_sb_supervise(struct at_sb_super *s)
{
	struct capture out = { s->out_fd, NULL, 0, s->capture_max, false };
	struct capture err = { s->err_fd, NULL, 0, s->capture_max, false };
	int64_t deadline = s->timeout_ms ? now_ms() + (int64_t)s->timeout_ms : 0;

	while (!s->init_done || s->report_fd >= 0 || out.fd >= 0 || err.fd >= 0) {
		struct pollfd pfd[4];
		struct capture *caps[4] = { NULL };
		int n = 0, timeout = -1, i, rc;

		pfd[n++] = (struct pollfd){ .fd = s->sig_fd, .events = POLLIN };
		if (s->report_fd >= 0)
			pfd[n++] = (struct pollfd){ .fd = s->report_fd, .events = POLLIN };
		if (out.fd >= 0) {
			caps[n] = &out;
			pfd[n++] = (struct pollfd){ .fd = out.fd, .events = POLLIN };
		}
		if (err.fd >= 0) {
			caps[n] = &err;
			pfd[n++] = (struct pollfd){ .fd = err.fd, .events = POLLIN };
		}
		if (deadline && !s->init_done) {
			int64_t left = deadline - now_ms();
			timeout = left > 0 ? (int)(left > 1000000 ? 1000000 : left) : 0;
		}
		rc = poll(pfd, (nfds_t)n, timeout);
		if (rc < 0 && errno != EINTR) {
			s->out_fd = out.fd;
			s->err_fd = err.fd;
			free(out.buf);
			free(err.buf);
			return -1;
		}
		if (rc == 0 && deadline && !s->init_done && now_ms() >= deadline) {
			/* pid 1 dies, and the kernel kills its whole namespace. */
			s->timed_out = true;
			kill(s->init_pid, SIGKILL);
			deadline = 0;
			continue;
		}
		for (i = 0; i < n && rc > 0; i++) {
			if (!pfd[i].revents)
				continue;
			if (pfd[i].fd == s->sig_fd)
				read_signal(s);
			else if (pfd[i].fd == s->report_fd)
				read_report(s);
			else if (caps[i])
				capture_read(caps[i]);
		}
		/*
		 * After its exit report the init only exits: no signal is left
		 * to pass on, no timeout to enforce. One blocking wait instead
		 * of waking up for the report pipe's end, then for SIGCHLD.
		 */
		if (s->have_cmd_status && !s->init_done && out.fd < 0 && err.fd < 0)
			reap_init(s, 0);
	}
	s->out_fd = out.fd;
	s->err_fd = err.fd;
	s->out_buf = out.buf;
	s->out_len = out.len;
	s->out_truncated = out.truncated;
	s->err_buf = err.buf;
	s->err_len = err.len;
	s->err_truncated = err.truncated;
	return 0;
}
