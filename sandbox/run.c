/*
 * run.c - at_sandbox_run: the supervisor's side of a run.
 *
 * prepare() does everything that needs memory or formatting (the plan from
 * the spec, the seccomp program, the cgroup, the pipes and the signalfd);
 * start() clones the sandbox's init, which runs the setup (read
 * child_setup() in child_setup.c: the whole order of things between clone()
 * and execve()); supervise.c waits; finish() turns what it saw into the
 * result.
 */
#include "sandbox/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/fs.h"
#include "core/util.h"

struct run {
	struct at_sb_child c;
	struct at_sb_super s;
	struct at_sb_cgroup cg;
	struct at_sb_stdio io;
	int sync[2], report[2], out[2], err[2], lsock[2], nsock[2];
	sigset_t mask, saved;
	bool masked;
};

static int read_sysctl(const char *path)
{
	char text[64];

	return at_sb_read_proc(path, text, sizeof(text)) == 0 ? atoi(text) : -1;
}

/* Why user namespaces might be unavailable: the common causes, by name. */
static const char *userns_hint(int errnum)
{
	if (getuid() != 0 && read_sysctl("/proc/sys/kernel/unprivileged_userns_clone") == 0)
		return "kernel.unprivileged_userns_clone=0 forbids unprivileged user namespaces "
		       "(sysctl -w kernel.unprivileged_userns_clone=1)";
	if (getuid() != 0 &&
	    read_sysctl("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == 1)
		return "AppArmor restricts user namespaces "
		       "(kernel.apparmor_restrict_unprivileged_userns=1): install the profile "
		       "/etc/apparmor.d/agenttask (make install) or set it to 0";
	if (read_sysctl("/proc/sys/user/max_user_namespaces") == 0)
		return "user.max_user_namespaces=0 disables user namespaces "
		       "(sysctl -w user.max_user_namespaces=15000)";
	if (errnum == EINVAL)
		return "this kernel has no user namespaces (CONFIG_USER_NS)";
	if (errnum == EPERM || errnum == ENOSPC || errnum == EACCES)
		return "user namespaces are not available here (a container or seccomp profile "
		       "that forbids them?)";
	return NULL;
}

static int sandbox_error(struct at_error *err, int errnum, const char *fmt, const char *arg)
{
	char what[1200];
	const char *hint = NULL;

	snprintf(what, sizeof(what), fmt, arg ? arg : "");
	if (errnum == EPERM || errnum == ENOSPC || errnum == EACCES || errnum == EINVAL)
		hint = userns_hint(errnum);
	if (errnum == ELOOP || errnum == ENOTDIR)
		hint = "a symbolic link in the way: refusing to follow it";
	if (hint)
		return at_error_set(err, AT_ESANDBOX, "%s: %s (%s)", what, strerror(errnum), hint);
	return at_error_set(err, AT_ESANDBOX, "%s: %s", what, strerror(errnum));
}

static int setup_error(const struct run *r, const struct at_sb_report *rep, struct at_error *err)
{
	const struct at_sb_op *op = NULL;

	if (rep->status >= 0 && (size_t)rep->status < r->c.nops)
		op = &r->c.ops[rep->status];
	if (rep->step == AT_STEP_BIND && op)
		return sandbox_error(err, rep->err,
				     (op->flags & OPF_RO) ? "cannot mount '%s' read-only"
							  : "cannot mount '%s' read-write",
				     rep->path);
	/* The namespace was made already: overlayfs said no (kernel log: dmesg). */
	if (rep->step == AT_STEP_OVERLAY)
		return at_error_set(err, AT_ESANDBOX, "cannot mount an overlay on '/%s': %s "
				    "(overlayfs in a user namespace: the kernel log says why)",
				    rep->path, strerror(rep->err));
	return sandbox_error(err, rep->err, at_run_step_failure(rep->step), rep->path);
}

static const char *find_path_env(char *const *envp)
{
	for (; *envp; envp++) {
		if (strncmp(*envp, "PATH=", 5) == 0)
			return *envp + 5;
	}
	return AT_RUN_PATH;
}

static void close_pair(int p[2])
{
	if (p[0] >= 0)
		close(p[0]);
	if (p[1] >= 0)
		close(p[1]);
	p[0] = p[1] = -1;
}

/* The child's settings, from the spec and the limits' mechanisms. */
static void prepare_child(struct run *r, const struct at_sandbox_spec *o,
			  const struct at_run_result *res)
{
	int i;

	memcpy(r->c.limits, o->proc.limits.value, sizeof(r->c.limits));
	for (i = 0; i < AT_LIMIT_COUNT; i++)
		r->c.rlimit[i] = res->mech[i] == AT_MECH_RLIMIT;
	r->c.cwd = o->cwd;
	r->c.argv = o->argv.v;
	r->c.envp = o->envp.v;
	r->c.path_env = find_path_env(o->envp.v);
	r->c.new_net = !o->proc.share_net;
	r->c.listen = o->listen;
	r->c.nlisten = o->nlisten;
	snprintf(r->c.uid_map, sizeof(r->c.uid_map), "%u %u 1\n", (unsigned)getuid(),
		 (unsigned)getuid());
	snprintf(r->c.gid_map, sizeof(r->c.gid_map), "%u %u 1\n", (unsigned)getgid(),
		 (unsigned)getgid());
	r->c.wait_sync = r->cg.need_sync;
	r->c.hold = r->cg.tree != AT_MECH_NONE;
	at_sb_limits_view(&r->cg, &r->c.cg);
	at_sb_limits_join(&r->cg, &r->c.join);
	r->c.last_cap = read_sysctl("/proc/sys/kernel/cap_last_cap");
	if (r->c.last_cap < 0)
		r->c.last_cap = CAP_LAST_CAP;
}

/* The pipes and the signals: forwarded ones blocked here, taken by a signalfd. */
static int prepare_fds(struct run *r, const struct at_sandbox_spec *o, struct at_error *err)
{
	int i;

	if (pipe2(r->sync, O_CLOEXEC) < 0 || pipe2(r->report, O_CLOEXEC) < 0 ||
	    (o->proc.stdio == AT_STDIO_CAPTURE &&
	     (pipe2(r->out, O_CLOEXEC) < 0 || pipe2(r->err, O_CLOEXEC) < 0)))
		return at_error_sys(err, AT_ESANDBOX, "cannot create pipes");
	if (o->nlisten && socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, r->lsock) < 0)
		return at_error_sys(err, AT_ESANDBOX, "cannot create a socket pair");
	if (o->on_netns && !o->proc.share_net &&
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, r->nsock) < 0)
		return at_error_sys(err, AT_ESANDBOX, "cannot create a socket pair");
	r->c.netns_fd = r->nsock[1];
	if (at_sb_stdio_prepare(&r->io, o, &r->c.stdio, err) < 0)
		return err->code;
	r->c.listen_fd = r->lsock[1];
	r->c.sync_fd = r->sync[0];
	r->c.report_fd = r->report[1];
	r->c.out_fd = r->out[1];
	r->c.err_fd = r->err[1];

	sigemptyset(&r->mask);
	sigaddset(&r->mask, SIGCHLD);
	for (i = 0; at_sb_forwarded[i]; i++)
		sigaddset(&r->mask, at_sb_forwarded[i]);
	if (sigprocmask(SIG_BLOCK, &r->mask, &r->saved) < 0)
		return at_error_sys(err, AT_ESANDBOX, "cannot block signals");
	r->masked = true;
	r->c.saved_mask = &r->saved;
	r->s.sig_fd = signalfd(-1, &r->mask, SFD_CLOEXEC);
	if (r->s.sig_fd < 0)
		return at_error_sys(err, AT_ESANDBOX, "cannot create a signalfd");
	return 0;
}

static int prepare(struct run *r, const struct at_sandbox_spec *o, struct at_run_result *res,
		   struct at_error *err)
{
	if (at_sb_plan_build(o, &r->c.ops, &r->c.nops, err) < 0)
		return err->code;
	if (at_sb_seccomp_builtin(&r->c.seccomp, err) < 0)
		return err->code;
	if (at_sb_limits_prepare(o, res->mech, &r->cg, err) < 0)
		return err->code;
	prepare_child(r, o, res);
	return prepare_fds(r, o, err);
}

/*
 * Clone the sandbox's init; with a cgroup to join, move it in and let it
 * go. The write end of the sync pipe stays open until the run is over (or,
 * with a cgroup, until its counters are read): the init checks that it is,
 * to know the supervisor is alive.
 */
static int start(struct run *r, const struct at_sandbox_spec *o, struct at_run_result *res,
		 struct at_error *err)
{
	unsigned long flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC |
			      CLONE_NEWUTS | (o->proc.share_net ? 0 : CLONE_NEWNET) | SIGCHLD;
	long pid;

	r->c.t_clone_ns = at_mono_ns();
	pid = at_sb_limits_clone(&r->cg, flags, &r->c.wait_sync);
	if (pid == 0) {
		close(r->sync[1]);
		close(r->report[0]);
		if (r->out[0] >= 0)
			close(r->out[0]);
		if (r->err[0] >= 0)
			close(r->err[0]);
		close(r->s.sig_fd);
		if (r->lsock[0] >= 0)
			close(r->lsock[0]);
		if (r->nsock[0] >= 0)
			close(r->nsock[0]);
		at_sb_stdio_child_close(&r->io);
		at_sb_child_main(&r->c);
	}
	if (pid < 0)
		return sandbox_error(err, errno, at_run_step_failure(AT_STEP_CLONE), NULL);
	r->s.init_pid = (int)pid;
	at_sb_stdio_started(&r->io);
	if (o->proc.started)
		o->proc.started((int)pid, o->proc.started_arg);
	close(r->sync[0]);
	close(r->report[1]);
	r->sync[0] = r->report[1] = -1;
	if (r->lsock[1] >= 0) {
		close(r->lsock[1]);
		r->lsock[1] = -1;
	}
	if (r->nsock[1] >= 0) {
		close(r->nsock[1]);
		r->nsock[1] = -1;
	}
	if (r->out[1] >= 0) {
		close(r->out[1]);
		close(r->err[1]);
		r->out[1] = r->err[1] = -1;
	}
	if (r->c.wait_sync &&
	    at_sb_limits_attach(&r->cg, o, (int)pid, res->mech, r->sync[1], err) < 0) {
		kill((pid_t)pid, SIGKILL);
		return err->code;
	}
	if (o->proc.aside)
		o->proc.aside(o->proc.aside_arg);
	return 0;
}

/* At the init's exit report: the counters, then the init may let go of the cgroup. */
static void exit_reported(void *arg)
{
	struct run *r = arg;

	at_sb_limits_collect(&r->cg);
	if (r->sync[1] >= 0)
		close(r->sync[1]);
	r->sync[1] = -1;
}

/*
 * The sockets the child made (child_net.c: one message, a byte per socket,
 * the descriptors as SCM_RIGHTS): fds[i] = -1 for one left out. 1 when
 * received, 0 when the child ended first, -1 with errno.
 */
static int listen_receive(int sock, size_t n, int *fds)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int) * AT_SANDBOX_LISTEN_MAX)];
	} ctl;
	unsigned char made[AT_SANDBOX_LISTEN_MAX];
	struct iovec iov = { made, sizeof(made) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
			      .msg_controllen = sizeof(ctl.buf) };
	struct cmsghdr *cm;
	size_t i, got = 0, nfds = 0;
	int recvd[AT_SANDBOX_LISTEN_MAX];
	ssize_t rc;

	do
		rc = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (rc < 0 && errno == EINTR);
	if (rc <= 0)
		return rc < 0 ? -1 : 0;
	for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS) {
			nfds = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			memcpy(recvd, CMSG_DATA(cm), nfds * sizeof(int));
		}
	}
	for (i = 0; i < n; i++)
		fds[i] = (size_t)rc == n && made[i] && got < nfds ? recvd[got++] : -1;
	if ((size_t)rc != n || got != nfds || (msg.msg_flags & MSG_CTRUNC)) {
		for (i = 0; i < nfds; i++)
			close(recvd[i]);
		errno = EPROTO;
		return -1;
	}
	return 1;
}

/*
 * The sockets the child made in the sandbox's network namespace: handed to
 * the caller's server, then the child is told to go on. A child that ended
 * before sending them has reported why; the supervision says so.
 */
static int hand_over(struct run *r, const struct at_sandbox_spec *o, struct at_error *err)
{
	int fds[AT_SANDBOX_LISTEN_MAX];
	int got = listen_receive(r->lsock[0], o->nlisten, fds);

	if (got == 0)
		return 0;
	if (got < 0) {
		kill(r->s.init_pid, SIGKILL);
		return at_error_sys(err, AT_ESANDBOX, "cannot receive the sandbox's listening "
				    "sockets");
	}
	if (o->on_listen(o->listen_ctx, fds, o->nlisten, err) < 0) {
		kill(r->s.init_pid, SIGKILL);
		return err->code;
	}
	if (write(r->lsock[0], "g", 1) != 1) {
		kill(r->s.init_pid, SIGKILL);
		return at_error_sys(err, AT_ESANDBOX, "cannot start the sandbox");
	}
	return 0;
}

/*
 * The init's user and network namespaces (at_sb_netns_handoff), handed to
 * the caller's on_netns. An init that ended before sending them has
 * reported why; the supervision says so.
 */
static int netns_over(struct run *r, const struct at_sandbox_spec *o, struct at_error *err)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int) * 2)];
	} ctl;
	char byte;
	struct iovec iov = { &byte, 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
			      .msg_controllen = sizeof(ctl.buf) };
	struct cmsghdr *cm = NULL;
	int fds[2] = { -1, -1 }, rc = 0;
	ssize_t got;

	do
		got = recvmsg(r->nsock[0], &msg, MSG_CMSG_CLOEXEC);
	while (got < 0 && errno == EINTR);
	if (got == 0)
		return 0;
	if (got > 0)
		cm = CMSG_FIRSTHDR(&msg);
	if (cm && cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS &&
	    cm->cmsg_len == CMSG_LEN(sizeof(fds)) && !(msg.msg_flags & MSG_CTRUNC))
		memcpy(fds, CMSG_DATA(cm), sizeof(fds));
	else if (cm && cm->cmsg_type == SCM_RIGHTS)
		for (size_t i = 0; i < (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int); i++)
			close(((int *)(void *)CMSG_DATA(cm))[i]);
	if (fds[0] < 0) {
		errno = errno ? errno : EPROTO;
		rc = at_error_sys(err, AT_ESANDBOX, "cannot receive the sandbox's namespaces");
	} else if (o->on_netns(o->netns_ctx, fds[0], fds[1], err) < 0) {
		rc = err->code;
	}
	if (fds[0] >= 0) {
		close(fds[0]);
		close(fds[1]);
	}
	if (rc < 0)
		kill(r->s.init_pid, SIGKILL);
	return rc;
}

static int64_t timeval_ms(const struct timeval *tv)
{
	return (int64_t)tv->tv_sec * 1000 + tv->tv_usec / 1000;
}

static int take_output(struct at_sb_super *s, struct at_run_result *res)
{
	if (at_capture_take(&s->cap[AT_SB_OUT], &res->out, &res->out_len, &res->out_dropped) < 0 ||
	    at_capture_take(&s->cap[AT_SB_ERR], &res->err, &res->err_len, &res->err_dropped) < 0 ||
	    at_capture_take(&s->cap[AT_SB_BOTH], &res->output, &res->output_len,
			    &res->output_dropped) < 0)
		return -1;
	res->out_truncated = res->out_dropped > 0;
	res->err_truncated = res->err_dropped > 0;
	res->output_truncated = res->output_dropped > 0;
	return 0;
}

static int finish(struct run *r, const struct at_sandbox_spec *o, struct at_run_result *res,
		  struct at_error *err)
{
	struct at_sb_super *s = &r->s;
	int i;

	res->max_rss_kb = s->ru.ru_maxrss;
	res->user_cpu_ms = timeval_ms(&s->ru.ru_utime);
	res->sys_cpu_ms = timeval_ms(&s->ru.ru_stime);
	if (o->proc.stdio == AT_STDIO_CAPTURE && take_output(s, res) < 0)
		return at_error_set(err, AT_ESYS, "out of memory keeping the output");
	if (s->t_done_ns)
		s->t_ns[AT_STEP_DONE] = s->t_done_ns;
	for (i = 0; i < AT_STEP_COUNT; i++)
		res->step_us[i] = s->have_timing && s->t_ns[i]
					  ? (s->t_ns[i] - r->c.t_clone_ns) / 1000
					  : -1;

	if (s->have_setup_fail && !s->timed_out && !s->cancelled) {
		res->failed_step = (enum at_run_step)s->setup_fail.step;
		return setup_error(r, &s->setup_fail, err);
	}
	if (s->timed_out || s->cancelled) {
		res->timed_out = s->timed_out;
		res->cancelled = s->cancelled;
		res->exit_code = s->timed_out ? AT_RUN_TIMEOUT : 128 + SIGKILL;
		res->term_signal = SIGKILL;
		return 0;
	}
	if (s->have_exec_fail) {
		res->exec_failed = true;
		snprintf(res->exec_error, sizeof(res->exec_error), "cannot execute '%.200s': %s",
			 s->exec_fail.path, strerror(s->exec_fail.err));
	}
	if (s->have_cmd_status) {
		int st = s->cmd_status;
		if (WIFEXITED(st)) {
			res->exit_code = WEXITSTATUS(st);
		} else if (WIFSIGNALED(st)) {
			res->term_signal = WTERMSIG(st);
			res->exit_code = 128 + WTERMSIG(st);
		}
		return 0;
	}
	/* The init itself died (killed from outside, or by the OOM killer). */
	if (WIFSIGNALED(s->init_status)) {
		res->term_signal = WTERMSIG(s->init_status);
		res->exit_code = 128 + WTERMSIG(s->init_status);
		return 0;
	}
	return at_error_set(err, AT_ESANDBOX, "the sandbox ended without a status (init exited %d)",
			    WEXITSTATUS(s->init_status));
}

static void run_release(struct run *r)
{
	close_pair(r->sync);
	close_pair(r->report);
	close_pair(r->out);
	close_pair(r->err);
	close_pair(r->lsock);
	close_pair(r->nsock);
	if (r->s.sig_fd >= 0)
		close(r->s.sig_fd);
	if (r->s.report_fd >= 0)
		close(r->s.report_fd);
	if (r->s.out_fd >= 0)
		close(r->s.out_fd);
	if (r->s.err_fd >= 0)
		close(r->s.err_fd);
	/* The caller's terminals as they were, whatever happened. */
	at_sb_stdio_release(&r->io);
	if (r->masked)
		sigprocmask(SIG_SETMASK, &r->saved, NULL);
	at_sb_limits_release(&r->cg);
	at_sb_plan_free(r->c.ops, r->c.nops);
	at_sb_seccomp_release(&r->c.seccomp);
	for (int i = 0; i < AT_SB_CAPTURES; i++)
		at_capture_release(&r->s.cap[i]);
}

static void run_init(struct run *r)
{
	memset(r, 0, sizeof(*r));
	r->sync[0] = r->sync[1] = r->report[0] = r->report[1] = -1;
	r->out[0] = r->out[1] = r->err[0] = r->err[1] = -1;
	r->lsock[0] = r->lsock[1] = -1;
	r->nsock[0] = r->nsock[1] = -1;
	r->s.sig_fd = r->s.report_fd = r->s.out_fd = r->s.err_fd = -1;
	r->cg.into_fd = -1;       /* released even when the run fails before the limits */
	at_sb_stdio_init(&r->io);
}

/* Even after a failed start: wait for the init to be gone. */
static int supervise(struct run *r, const struct at_sandbox_spec *o, int rc,
		     struct at_error *err)
{
	r->s.report_fd = r->report[0];
	r->s.out_fd = r->out[0];
	r->s.err_fd = r->err[0];
	r->report[0] = r->out[0] = r->err[0] = -1;
	r->s.cancel_fd = o->proc.cancel_fd;
	r->s.timeout_ms = o->proc.timeout_ms;
	for (int i = 0; i < AT_SB_CAPTURES; i++)
		at_capture_init(&r->s.cap[i], o->proc.capture_max ? o->proc.capture_max : AT_RUN_CAPTURE_MAX);
	r->s.stdio = &r->io;
	r->s.at_exit_report = exit_reported;
	r->s.arg = r;
	if (at_sb_supervise(&r->s) < 0 && rc == 0)
		rc = at_error_sys(err, AT_ESYS, "cannot wait for the sandbox");
	return rc;
}

/*
 * What overlayfs makes is known, and four removals take it: the marker,
 * then the scratch. Anything else in it (a temporary file of a copy-up cut
 * short) leaves it not empty, and the whole walk removes it.
 */
void at_sandbox_overlay_tidy(const char *work)
{
	struct at_error ignored = AT_ERROR_INIT;
	char path[4096];
	int fd;

	if (!work || !work[0] ||
	    snprintf(path, sizeof(path), "%s/%s", work, AT_SB_SCRATCH) >= (int)sizeof(path))
		return;
	fd = open(work, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 && at_sb_clear_marker(fd) == 0 &&
	    (unlinkat(fd, AT_SB_SCRATCH, AT_REMOVEDIR) == 0 || errno == ENOENT)) {
		close(fd);
		return;
	}
	if (fd >= 0)
		close(fd);
	(void)at_rmtree(path, &ignored);
}

static bool scratch_left(const char *work)
{
	char path[4096];
	struct stat st;

	return snprintf(path, sizeof(path), "%s/%s", work, AT_SB_SCRATCH) >= (int)sizeof(path) ||
	       lstat(path, &st) == 0 || errno != ENOENT;
}

int at_sandbox_overlay_pick(const char *first, const char *second)
{
	if (!scratch_left(first))
		return 0;
	if ((mkdir(second, 0700) == 0 || errno == EEXIST) && !scratch_left(second))
		return 1;
	return 0;
}

int at_sandbox_run(const struct at_sandbox_spec *o, struct at_run_result *res,
		   struct at_error *err)
{
	struct run r;
	struct timespec now;
	int64_t t0;
	int rc;

	at_run_result_init(res);
	run_init(&r);
	clock_gettime(CLOCK_REALTIME, &now);
	res->start_ms = (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
	t0 = at_mono_ns();

	rc = prepare(&r, o, res, err);
	if (rc == 0)
		rc = start(&r, o, res, err);
	if (rc == 0)
		at_sb_stdio_block_sigpipe(&r.io);
	if (rc == 0 && o->on_netns && !o->proc.share_net)
		rc = netns_over(&r, o, err);
	if (rc == 0 && o->nlisten)
		rc = hand_over(&r, o, err);
	if (rc == 0 && r.io.pty)
		rc = at_sb_pty_receive(&r.io, err);
	if (rc < 0 && r.s.init_pid > 0)
		kill(r.s.init_pid, SIGKILL);
	if (r.s.init_pid > 0) {
		res->prepare_us = (r.c.t_clone_ns - t0) / 1000;
		at_progress_say(&o->proc.progress, "running", 0, 0);
		rc = supervise(&r, o, rc, err);
		if (rc == 0)
			rc = finish(&r, o, res, err);
		if (rc == 0)
			at_sb_limits_result(&r.cg, o, res);
	}
	res->duration_ms = (at_mono_ns() - t0) / 1000000;
	run_release(&r);
	return rc;
}
