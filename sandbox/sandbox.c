/*
 * sandbox.c - at_sandbox_run: the setup order, and the supervisor around it.
 *
 * Read child_setup() and at_sb_command_exec() first: they are the whole
 * order of things between clone() and execve().
 */
#include "sandbox/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"

#define SB_HOSTNAME_STR "agenttask"

/* ---- async-signal-safe helpers for the child ---- */

int64_t at_sb_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void report_send(int fd, int kind, int step, int errnum, int op, const char *path,
			const int64_t *t_ns)
{
	struct at_sb_report rep;
	size_t i = 0;

	memset(&rep, 0, sizeof(rep));
	rep.kind = kind;
	rep.step = step;
	rep.err = errnum;
	rep.status = op;
	if (t_ns)
		memcpy(rep.t_ns, t_ns, sizeof(rep.t_ns));
	while (path && path[i] && i < sizeof(rep.path) - 1) {
		rep.path[i] = path[i];
		i++;
	}
	(void)!write(fd, &rep, sizeof(rep));
}

void at_sb_report_fail(int fd, int step, int errnum, const char *path, const int64_t *t_ns)
{
	report_send(fd, SB_REPORT_SETUP, step, errnum, -1, path, t_ns);
}

/*
 * Drop every capability for good: securebits first (root gets nothing back
 * at execve, and this cannot be undone), then the bounding set, the ambient
 * set, and finally the effective, permitted and inheritable sets.
 */
static int drop_capabilities(int last_cap)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];
	int cap;

	if (prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED |
					     SECBIT_NO_SETUID_FIXUP | SECBIT_NO_SETUID_FIXUP_LOCKED |
					     SECBIT_KEEP_CAPS_LOCKED | SECBIT_NO_CAP_AMBIENT_RAISE |
					     SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED,
		  0, 0, 0) < 0)
		return -1;
	for (cap = 0; cap <= last_cap; cap++) {
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 && errno != EINVAL)
			return -1;
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		return -1;
	memset(data, 0, sizeof(data));
	return (int)syscall(SYS_capset, &hdr, data);
}

/*
 * Our uid and gid map to themselves (root to root: still without a single
 * capability once they are dropped). A process may map its own ids in the
 * user namespace it was just created in, so no round trip through the
 * supervisor is needed. setgroups is denied first, as the kernel requires
 * before an unprivileged gid_map, and so the command can never drop a group
 * that a file's permissions deny access by.
 */
static int write_idmaps(const struct at_sb_child *c, const char **what)
{
	static const char *const files[] = { "setgroups", "uid_map", "gid_map" };
	static const char *const paths[] = {
		"/proc/self/setgroups", "/proc/self/uid_map", "/proc/self/gid_map"
	};
	const char *text[] = { "deny", c->uid_map, c->gid_map };
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		int fd = open(paths[i], O_WRONLY | O_CLOEXEC), saved;

		*what = files[i];
		if (fd < 0)
			return -1;
		if (at_write_all(fd, text[i], strlen(text[i])) < 0) {
			saved = errno;
			close(fd);
			errno = saved;
			return -1;
		}
		close(fd);
	}
	*what = NULL;
	return 0;
}

/*
 * The supervisor holds the write end of the sync pipe until the run is
 * over: POLLHUP (or EOF) means it died before our death signal was armed,
 * and nobody would ever kill us. With a cgroup to join, wait for its
 * message: written once the supervisor has moved us in, it says which
 * limits fall back to rlimits after all.
 */
static int check_supervisor(struct at_sb_child *c)
{
	struct pollfd pfd = { .fd = c->sync_fd, .events = POLLIN };

	errno = 0;
	if (c->wait_sync) {
		if (read(c->sync_fd, c->rlimit, sizeof(c->rlimit)) == (ssize_t)sizeof(c->rlimit))
			return 0;
	} else if (poll(&pfd, 1, 0) >= 0 && !(pfd.revents & (POLLHUP | POLLERR))) {
		return 0;
	}
	errno = errno ? errno : EPIPE;
	return -1;
}

/*
 * The sandbox's pid 1, from clone() on; it runs with the mask of signals the
 * supervisor blocked. The order matters:
 *   - die with the supervisor, and make sure it is still there (and, with
 *     limits, that it has put us in the run's cgroup) before anything runs;
 *   - our own uid/gid maps; the cgroup namespace is made only now, rooted
 *     at that cgroup;
 *   - network, then mounts: every source opened before anything is mounted
 *     over anything, the new root assembled, pivot_root, old root detached;
 *   - capabilities dropped after the mounts (they need CAP_SYS_ADMIN in our
 *     user namespace) and no_new_privs set, both inherited by the command;
 *     the init is made non-dumpable, so the command cannot ptrace it.
 * The command's own steps (session, fds, rlimits, seccomp last) follow in
 * at_sb_command_exec.
 */
static int child_setup(struct at_sb_child *c, int64_t *t, int *step, const char **what)
{
	int rootfd;

	t[AT_STEP_CLONE] = at_sb_now_ns();
	*what = NULL;
	*step = SB_SYNC;
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || check_supervisor(c) < 0)
		return -1;
	if (!c->hold)
		close(c->sync_fd);
	*step = SB_IDMAP;
	if (write_idmaps(c, what) < 0)
		return -1;
	t[AT_STEP_IDMAP] = at_sb_now_ns();

	*step = SB_CGROUPNS;
	if (unshare(CLONE_NEWCGROUP) < 0)
		return -1;
	*step = SB_HOSTNAME;
	if (sethostname(SB_HOSTNAME_STR, sizeof(SB_HOSTNAME_STR) - 1) < 0)
		return -1;
	*step = SB_NET;
	if (c->new_net && at_sb_loopback_up() < 0)
		return -1;
	*step = SB_LISTEN;
	if (c->nlisten && at_sb_listen_handoff(c) < 0)
		return -1;
	t[AT_STEP_NET] = at_sb_now_ns();

	rootfd = at_sb_mounts_build(c, step, what);
	if (rootfd < 0)
		return -1;
	t[AT_STEP_MOUNTS] = at_sb_now_ns();
	if (at_sb_pivot(rootfd, c->cwd, step, what) < 0)
		return -1;
	t[AT_STEP_PIVOT] = at_sb_now_ns();

	*step = SB_CAPS;
	if (drop_capabilities(c->last_cap) < 0)
		return -1;
	*step = SB_NNP;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		return -1;
	t[AT_STEP_PRIVS] = at_sb_now_ns();
	return 0;
}

static void child_main(struct at_sb_child *c) __attribute__((noreturn));
static void child_main(struct at_sb_child *c)
{
	int64_t t[AT_STEP_COUNT];
	const char *what;
	int step, i;

	for (i = 0; i < AT_STEP_COUNT; i++)
		t[i] = 0;
	c->failed_op = -1;
	if (child_setup(c, t, &step, &what) < 0) {
		report_send(c->report_fd, SB_REPORT_SETUP, step, errno, c->failed_op, what, t);
		_exit(AT_RUN_SETUP);
	}
	at_sb_init_run(c, t);
}

/* execvp without malloc: look file up in PATH; returns the errno to report. */
static int exec_path(const struct at_sb_child *c)
{
	const char *file = c->argv[0], *p = c->path_env;
	size_t flen = strlen(file);
	char buf[4096];
	bool eacces = false;

	if (strchr(file, '/')) {
		execve(file, c->argv, c->envp);
		return errno;
	}
	while (p) {
		const char *colon = strchr(p, ':');
		size_t dlen = colon ? (size_t)(colon - p) : strlen(p);

		if (dlen + flen + 2 <= sizeof(buf)) {
			memcpy(buf, p, dlen);
			if (dlen == 0)
				buf[dlen++] = '.';
			buf[dlen] = '/';
			memcpy(buf + dlen + 1, file, flen + 1);
			execve(buf, c->argv, c->envp);
			if (errno == EACCES)
				eacces = true;
			else if (errno != ENOENT && errno != ENOTDIR && errno != ELOOP &&
				 errno != ENAMETOOLONG)
				return errno;
		}
		p = colon ? colon + 1 : NULL;
	}
	return eacces ? EACCES : ENOENT;
}

/*
 * The command's process, forked by the init: new session (no controlling
 * terminal to inject into), its output, inherited descriptors marked
 * close-on-exec, the rlimits, and the seccomp filter last, right before
 * execve, so that nothing of the setup runs under it.
 */
void at_sb_command_exec(struct at_sb_child *c, int64_t *t)
{
	int i, which = 0, e;

	for (i = 0; at_sb_forwarded[i]; i++)
		signal(at_sb_forwarded[i], SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	if (sigprocmask(SIG_SETMASK, c->saved_mask, NULL) < 0) {
		at_sb_report_fail(c->report_fd, SB_SIGNALS, errno, NULL, t);
		_exit(AT_RUN_SETUP);
	}
	if (setsid() < 0) {
		at_sb_report_fail(c->report_fd, SB_SETSID, errno, NULL, t);
		_exit(AT_RUN_SETUP);
	}
	if ((c->out_fd >= 0 && dup2(c->out_fd, 1) < 0) ||
	    (c->err_fd >= 0 && dup2(c->err_fd, 2) < 0) ||
	    close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) < 0) {
		at_sb_report_fail(c->report_fd, SB_FDS, errno, NULL, t);
		_exit(AT_RUN_SETUP);
	}
	if (at_sb_rlimits_apply(c, &which) < 0) {
		at_sb_report_fail(c->report_fd, SB_RLIMIT, errno,
				  at_sandbox_limit_name((enum at_sandbox_limit)which), t);
		_exit(AT_RUN_SETUP);
	}
	/* Read by the init once we have called execve (our memory is its). */
	t[AT_STEP_EXEC] = at_sb_now_ns();
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &c->seccomp) < 0) {
		at_sb_report_fail(c->report_fd, SB_SECCOMP, errno, NULL, t);
		_exit(AT_RUN_SETUP);
	}
	e = exec_path(c);
	report_send(c->report_fd, SB_REPORT_EXEC, SB_EXEC, e, -1, c->argv[0], NULL);
	_exit(e == ENOENT ? AT_RUN_NOT_FOUND : AT_RUN_CANNOT_EXEC);
}

/* ---- the supervisor ---- */

struct run {
	struct at_sb_child c;
	struct at_sb_super s;
	struct at_sb_cgroup cg;
	int sync[2], report[2], out[2], err[2], lsock[2];
	sigset_t mask, saved;
	bool masked;
};

static const char *const limit_names[AT_LIMIT_COUNT] = { "memory", "pids", "cpu", "file-size",
							  "cpus" };
static const char *const step_names[AT_STEP_COUNT] = {
	"clone", "idmap+cgroup", "net", "mounts", "pivot_root", "privileges", "exec", "exited",
	"done",
};

const char *at_sandbox_limit_name(enum at_sandbox_limit l)
{
	return (unsigned int)l < AT_LIMIT_COUNT ? limit_names[l] : "?";
}

const char *at_sandbox_stop_name(enum at_sandbox_stop s)
{
	static const char *const names[AT_STOP_COUNT] = {
		NULL, "timeout", "oom", "pids", "cpu", "file-size",
	};

	return (unsigned int)s < AT_STOP_COUNT ? names[s] : NULL;
}

const char *at_sandbox_step_name(enum at_sandbox_step s)
{
	return (unsigned int)s < AT_STEP_COUNT ? step_names[s] : "?";
}

const char *at_sandbox_mech_name(enum at_sandbox_mech m)
{
	switch (m) {
	case AT_MECH_NONE:
		return "none";
	case AT_MECH_CGROUP_V2:
		return "cgroup-v2";
	case AT_MECH_SYSTEMD:
		return "systemd-scope";
	case AT_MECH_CGROUP_V1:
		return "cgroup-v1";
	case AT_MECH_RLIMIT:
		return "rlimit";
	case AT_MECH_UNENFORCED:
		return "unenforced";
	}
	return "?";
}

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

static const char *step_format(int step)
{
	switch (step) {
	case SB_SYNC: return "cannot start the sandbox";
	case SB_IDMAP: return "cannot write the sandbox's %s";
	case SB_CGROUPNS: return "cannot create the cgroup namespace";
	case SB_HOSTNAME: return "cannot set the sandbox's host name";
	case SB_NET: return "cannot bring up the loopback interface";
	case SB_PRIVATE: return "cannot make the mount tree private";
	case SB_SOURCE: return "cannot open '%s'";
	case SB_ROOT: return "cannot mount the sandbox's root tmpfs";
	case SB_MKPATH: return "cannot create mount point '/%s'";
	case SB_BIND: return "cannot bind-mount '%s'";
	case SB_TMPFS: return "cannot mount a tmpfs on '/%s'";
	case SB_PROC: return "cannot mount /proc";
	case SB_DEVPTS: return "cannot mount /dev/pts";
	case SB_SYMLINK: return "cannot create symbolic link '/%s'";
	case SB_FILE: return "cannot write '/%s'";
	case SB_RDONLY: return "cannot make '/%s' read-only";
	case SB_PIVOT: return "cannot pivot_root into the new root";
	case SB_CHDIR: return "cannot change directory to '%s'";
	case SB_CAPS: return "cannot drop capabilities";
	case SB_NNP: return "cannot set no_new_privs";
	case SB_FORK: return "cannot fork the command";
	case SB_SETSID: return "cannot start a new session";
	case SB_FDS: return "cannot set up the command's file descriptors";
	case SB_RLIMIT: return "cannot set the %s limit";
	case SB_SECCOMP: return "cannot load the seccomp filter";
	case SB_SIGNALS: return "cannot restore the signal mask";
	case SB_LISTEN: return "cannot listen on the sandbox's loopback";
	}
	return "sandbox setup failed";
}

static int setup_error(const struct run *r, const struct at_sb_report *rep, struct at_error *err)
{
	const struct at_sb_op *op = NULL;

	if (rep->status >= 0 && (size_t)rep->status < r->c.nops)
		op = &r->c.ops[rep->status];
	if (rep->step == SB_BIND && op)
		return sandbox_error(err, rep->err,
				     (op->flags & OPF_RO) ? "cannot mount '%s' read-only"
							  : "cannot mount '%s' read-write",
				     rep->path);
	return sandbox_error(err, rep->err, step_format(rep->step), rep->path);
}

static int check_opts(const struct at_sandbox_opts *o, struct at_error *err)
{
	const char *paths[] = { o->worktree, o->git_pointer_file, o->common_dir, o->state_dir };
	struct stat st;
	size_t i;

	if (!o->argv || !o->argv[0] || !o->envp)
		return at_error_set(err, AT_EUSAGE, "no command to run");
	if (o->nlisten && (o->net || !o->on_listen || o->nlisten > AT_SANDBOX_LISTEN_MAX))
		return at_error_set(err, AT_EUSAGE, "listening sockets need the sandbox's own "
				    "network, a server, and at most %d of them",
				    AT_SANDBOX_LISTEN_MAX);
	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		if (!paths[i] || !at_sandbox_path_normal(paths[i]))
			return at_error_set(err, AT_ESANDBOX, "not a normalised absolute path '%s'",
					    paths[i] ? paths[i] : "(null)");
	}
	/* Checked again, without following links, by the child. */
	if (lstat(o->git_pointer_file, &st) < 0)
		return at_error_sys(err, AT_ESANDBOX, "cannot stat '%s'", o->git_pointer_file);
	if (S_ISLNK(st.st_mode))
		return at_error_set(err, AT_ESANDBOX,
				    "'%s' is a symbolic link: refusing to mount over it",
				    o->git_pointer_file);
	if (!S_ISREG(st.st_mode))
		return at_error_set(err, AT_ESANDBOX, "'%s' is not a regular file",
				    o->git_pointer_file);
	return 0;
}

static const char *find_path_env(char *const *envp)
{
	for (; *envp; envp++) {
		if (strncmp(*envp, "PATH=", 5) == 0)
			return *envp + 5;
	}
	return AT_SANDBOX_PATH;
}

static void close_pair(int p[2])
{
	if (p[0] >= 0)
		close(p[0]);
	if (p[1] >= 0)
		close(p[1]);
	p[0] = p[1] = -1;
}

static int prepare(struct run *r, const struct at_sandbox_opts *o, struct at_sandbox_result *res,
		   struct at_error *err)
{
	int i;

	if (at_sb_plan_build(o, &r->c.ops, &r->c.nops, err) < 0)
		return err->code;
	if (at_sb_seccomp_compile(&r->c.seccomp, err) < 0)
		return err->code;
	memcpy(r->c.limits, o->limits, sizeof(r->c.limits));
	if (at_sb_limits_prepare(o, res->mech, &r->cg, err) < 0)
		return err->code;
	for (i = 0; i < AT_LIMIT_COUNT; i++)
		r->c.rlimit[i] = res->mech[i] == AT_MECH_RLIMIT;
	r->c.cwd = o->worktree;
	r->c.argv = o->argv;
	r->c.envp = o->envp;
	r->c.path_env = find_path_env(o->envp);
	r->c.new_net = !o->net;
	r->c.listen = o->listen;
	r->c.nlisten = o->nlisten;
	if (o->nlisten && socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, r->lsock) < 0)
		return at_error_sys(err, AT_ESANDBOX, "cannot create a socket pair");
	r->c.listen_fd = r->lsock[1];
	snprintf(r->c.uid_map, sizeof(r->c.uid_map), "%u %u 1\n", (unsigned)getuid(),
		 (unsigned)getuid());
	snprintf(r->c.gid_map, sizeof(r->c.gid_map), "%u %u 1\n", (unsigned)getgid(),
		 (unsigned)getgid());
	r->c.wait_sync = r->cg.need_sync;
	r->c.hold = r->cg.tree != AT_MECH_NONE;
	r->c.last_cap = read_sysctl("/proc/sys/kernel/cap_last_cap");
	if (r->c.last_cap < 0)
		r->c.last_cap = CAP_LAST_CAP;
	if (pipe2(r->sync, O_CLOEXEC) < 0 || pipe2(r->report, O_CLOEXEC) < 0 ||
	    (o->capture && (pipe2(r->out, O_CLOEXEC) < 0 || pipe2(r->err, O_CLOEXEC) < 0)))
		return at_error_sys(err, AT_ESANDBOX, "cannot create pipes");
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

/*
 * Clone the sandbox's init; with a cgroup to join, move it in and let it
 * go. The write end of the sync pipe stays open until the run is over (or,
 * with a cgroup, until its counters are read): the init checks that it is,
 * to know the supervisor is alive.
 */
static int start(struct run *r, const struct at_sandbox_opts *o, struct at_sandbox_result *res,
		 struct at_error *err)
{
	unsigned long flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC |
			      CLONE_NEWUTS | (o->net ? 0 : CLONE_NEWNET) | SIGCHLD;
	long pid;

	r->c.t_clone_ns = at_sb_now_ns();
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
		child_main(&r->c);
	}
	if (pid < 0)
		return sandbox_error(err, errno, "cannot create the sandbox's namespaces", NULL);
	r->s.init_pid = (int)pid;
	if (o->started)
		o->started((int)pid, o->started_arg);
	close(r->sync[0]);
	close(r->report[1]);
	r->sync[0] = r->report[1] = -1;
	if (r->lsock[1] >= 0) {
		close(r->lsock[1]);
		r->lsock[1] = -1;
	}
	if (r->out[1] >= 0) {
		close(r->out[1]);
		close(r->err[1]);
		r->out[1] = r->err[1] = -1;
	}
	if (r->c.wait_sync && at_sb_limits_attach(&r->cg, o, (int)pid, res->mech, r->sync[1], err) < 0) {
		kill((pid_t)pid, SIGKILL);
		return err->code;
	}
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
 * The sockets the child made in the sandbox's network namespace: handed to
 * the caller's server, then the child is told to go on. A child that ended
 * before sending them has reported why; the supervision says so.
 */
static int hand_over(struct run *r, const struct at_sandbox_opts *o, struct at_error *err)
{
	int fds[AT_SANDBOX_LISTEN_MAX];
	int got = at_sb_listen_receive(r->lsock[0], o->nlisten, fds);

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

static int64_t timeval_ms(const struct timeval *tv)
{
	return (int64_t)tv->tv_sec * 1000 + tv->tv_usec / 1000;
}

static int finish(struct run *r, const struct at_sandbox_opts *o, struct at_sandbox_result *res,
		  struct at_error *err)
{
	struct at_sb_super *s = &r->s;
	int i;

	res->max_rss_kb = s->ru.ru_maxrss;
	res->user_cpu_ms = timeval_ms(&s->ru.ru_utime);
	res->sys_cpu_ms = timeval_ms(&s->ru.ru_stime);
	res->out = s->out_buf;
	res->err = s->err_buf;
	res->out_len = s->out_len;
	res->err_len = s->err_len;
	res->out_truncated = s->out_truncated;
	res->err_truncated = s->err_truncated;
	s->out_buf = s->err_buf = NULL;
	if (o->capture) {
		if (!res->out)
			res->out = calloc(1, 1);
		if (!res->err)
			res->err = calloc(1, 1);
	}
	if (s->t_done_ns)
		s->t_ns[AT_STEP_DONE] = s->t_done_ns;
	for (i = 0; i < AT_STEP_COUNT; i++)
		res->step_us[i] = s->have_timing && s->t_ns[i]
					  ? (s->t_ns[i] - r->c.t_clone_ns) / 1000
					  : -1;

	if (s->have_setup_fail && !s->timed_out)
		return setup_error(r, &s->setup_fail, err);
	if (s->timed_out) {
		res->timed_out = true;
		res->exit_code = AT_RUN_TIMEOUT;
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
	if (r->s.sig_fd >= 0)
		close(r->s.sig_fd);
	if (r->s.report_fd >= 0)
		close(r->s.report_fd);
	if (r->s.out_fd >= 0)
		close(r->s.out_fd);
	if (r->s.err_fd >= 0)
		close(r->s.err_fd);
	if (r->masked)
		sigprocmask(SIG_SETMASK, &r->saved, NULL);
	at_sb_limits_release(&r->cg);
	at_sb_plan_free(r->c.ops, r->c.nops);
	at_sb_seccomp_release(&r->c.seccomp);
	free(r->s.out_buf);
	free(r->s.err_buf);
}

int at_sandbox_run(const struct at_sandbox_opts *o, struct at_sandbox_result *res,
		   struct at_error *err)
{
	struct run r;
	struct timespec now;
	int64_t t0;
	int rc, i;

	memset(res, 0, sizeof(*res));
	res->prepare_us = -1;
	for (i = 0; i < AT_STEP_COUNT; i++)
		res->step_us[i] = -1;
	memset(&r, 0, sizeof(r));
	r.sync[0] = r.sync[1] = r.report[0] = r.report[1] = -1;
	r.out[0] = r.out[1] = r.err[0] = r.err[1] = -1;
	r.lsock[0] = r.lsock[1] = -1;
	r.s.sig_fd = r.s.report_fd = r.s.out_fd = r.s.err_fd = -1;

	clock_gettime(CLOCK_REALTIME, &now);
	res->start_ms = (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
	t0 = at_sb_now_ns();

	rc = check_opts(o, err);
	if (rc == 0)
		rc = prepare(&r, o, res, err);
	if (rc == 0)
		rc = start(&r, o, res, err);
	if (rc == 0 && o->nlisten)
		rc = hand_over(&r, o, err);
	if (r.s.init_pid > 0) {
		res->prepare_us = (r.c.t_clone_ns - t0) / 1000;
		/* Even after a failed start: wait for the init to be gone. */
		r.s.report_fd = r.report[0];
		r.s.out_fd = r.out[0];
		r.s.err_fd = r.err[0];
		r.report[0] = r.out[0] = r.err[0] = -1;
		r.s.timeout_ms = o->timeout_ms;
		r.s.at_exit_report = exit_reported;
		r.s.arg = &r;
		r.s.capture_max = o->capture_max ? o->capture_max : AT_SANDBOX_CAPTURE_MAX;
		if (at_sb_supervise(&r.s) < 0 && rc == 0)
			rc = at_error_sys(err, AT_ESYS, "cannot wait for the sandbox");
		if (rc == 0)
			rc = finish(&r, o, res, err);
		if (rc == 0)
			at_sb_limits_result(&r.cg, o, res);
	}
	res->duration_ms = (at_sb_now_ns() - t0) / 1000000;
	run_release(&r);
	return rc;
}

void at_sandbox_result_release(struct at_sandbox_result *res)
{
	if (!res)
		return;
	free(res->out);
	free(res->err);
	res->out = res->err = NULL;
}
