/*
 * supervise.c - the supervisor's side of a run (the init's is child_init.c).
 *
 * The supervisor (agenttask) waits with one poll(2) loop on a signalfd (child
 * exit, signals to forward), the report pipe, the capture pipes and the
 * caller's cancel descriptor, and enforces --timeout (and a cancel) by
 * killing pid 1, which takes its whole pid namespace with it. It reaps pid 1
 * before it returns, so that nothing of the run, processes or mounts,
 * outlives at_sandbox_run.
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

#include "core/array.h"
#include "core/util.h"

/* ---- the supervisor ---- */

struct capture {
	int fd;
	struct at_capture *c;
	struct at_capture *both;  /* the streams interleaved as read */
};

/* Keep the head and the tail (core/capture.h); read the rest so the writer never blocks. */
static void capture_read(struct capture *cap)
{
	char chunk[16384];
	ssize_t n = read(cap->fd, chunk, sizeof(chunk));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		close(cap->fd);
		cap->fd = -1;
		return;
	}
	at_capture_add(cap->c, chunk, (size_t)n);
	at_capture_add(cap->both, chunk, (size_t)n);
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
		s->t_done_ns = at_mono_ns();
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
	if (si.ssi_signo == SIGWINCH && at_sb_pty_winch(s->stdio))
		return;   /* the kernel tells the pty's foreground job */
	if (si.ssi_signo != SIGCHLD) {
		if (!s->init_done)
			kill(s->init_pid, (int)si.ssi_signo);
		return;
	}
	reap_init(s, WNOHANG);
}

/* pid 1 dies, and the kernel kills its whole namespace. */
static void kill_run(struct at_sb_super *s)
{
	if (!s->init_done)
		kill(s->init_pid, SIGKILL);
}

/* The supervisor's own descriptors first (nown of them), then stdio.c's pumps. */
struct waitset {
	struct pollfd pfd[5 + AT_SB_PUMPS_MAX];
	struct capture *caps[5];
	int n, nown;
};

static void watch(struct waitset *w, int fd, struct capture *cap)
{
	if (fd < 0)
		return;
	w->caps[w->n] = cap;
	w->pfd[w->n++] = (struct pollfd){ .fd = fd, .events = POLLIN };
}

/* The poll timeout: until the deadline, if any and the run still goes on. */
static int time_left(const struct at_sb_super *s, int64_t deadline)
{
	int64_t left;

	if (!deadline || s->init_done)
		return -1;
	left = deadline - at_mono_ms();
	return left > 0 ? (int)(left > 1000000 ? 1000000 : left) : 0;
}

static void dispatch(struct at_sb_super *s, struct waitset *w, int ready)
{
	int i;

	if (s->stdio && ready > 0) {
		at_sb_stdio_handle(s->stdio, w->pfd + w->nown);
		if (at_sb_stdio_take_hangup(s->stdio) && !s->init_done)
			kill(s->init_pid, SIGHUP);   /* passed on to the command */
	}
	for (i = 0; i < w->nown && ready > 0; i++) {
		if (!w->pfd[i].revents)
			continue;
		if (w->pfd[i].fd == s->sig_fd) {
			read_signal(s);
		} else if (w->pfd[i].fd == s->report_fd) {
			read_report(s);
		} else if (w->caps[i]) {
			capture_read(w->caps[i]);
		} else if (w->pfd[i].fd == s->cancel_fd) {
			/* Cancelled by the caller: the run ends now, as a timeout would. */
			s->cancelled = true;
			s->cancel_fd = -1;
			kill_run(s);
		}
	}
}

int at_sb_supervise(struct at_sb_super *s)
{
	struct capture out = { s->out_fd, &s->cap[AT_SB_OUT], &s->cap[AT_SB_BOTH] };
	struct capture err = { s->err_fd, &s->cap[AT_SB_ERR], &s->cap[AT_SB_BOTH] };
	int64_t deadline = s->timeout_ms ? at_mono_ms() + (int64_t)s->timeout_ms : 0;

	while (!s->init_done || s->report_fd >= 0 || out.fd >= 0 || err.fd >= 0 ||
	       (s->stdio && at_sb_stdio_busy(s->stdio))) {
		struct waitset w = { .n = 0 };
		int rc;

		watch(&w, s->sig_fd, NULL);
		watch(&w, s->report_fd, NULL);
		watch(&w, out.fd, &out);
		watch(&w, err.fd, &err);
		if (!s->init_done)
			watch(&w, s->cancel_fd, NULL);
		w.nown = w.n;
		if (s->stdio)
			w.n += at_sb_stdio_pollfds(s->stdio, w.pfd + w.nown, AT_SB_PUMPS_MAX);
		rc = poll(w.pfd, (nfds_t)w.n, time_left(s, deadline));
		if (rc < 0 && errno != EINTR) {
			s->out_fd = out.fd;
			s->err_fd = err.fd;
			return -1;
		}
		if (rc == 0 && deadline && !s->init_done && at_mono_ms() >= deadline) {
			s->timed_out = true;
			kill_run(s);
			deadline = 0;
			continue;
		}
		dispatch(s, &w, rc);
		/*
		 * After its exit report the init only exits: no signal is left
		 * to pass on, no timeout to enforce. One blocking wait instead
		 * of waking up for the report pipe's end, then for SIGCHLD. And
		 * once every pipe is at its end the init is gone (it holds the
		 * report pipe until it exits): reap it without waiting for a
		 * SIGCHLD that, in a program with threads, another thread may
		 * have taken.
		 */
		if (!s->init_done && out.fd < 0 && err.fd < 0 &&
		    (s->have_cmd_status || s->report_fd < 0))
			reap_init(s, 0);
		/* Nobody is left to read the command's stdin. */
		if (s->init_done && s->stdio)
			at_sb_stdio_command_gone(s->stdio);
	}
	s->out_fd = out.fd;
	s->err_fd = err.fd;
	return 0;
}
