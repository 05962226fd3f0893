/*
 * doctor.c - the checks of `agenttask doctor`, each the real thing.
 *
 * The namespace checks run in a forked child that makes a user and a mount
 * namespace of its own, maps its ids and then mounts as a run's setup does
 * (a tmpfs through fsopen/fsmount/move_mount, a clone of it made read-only
 * with open_tree/mount_setattr, an overlayfs on it); it reports the errno of
 * each step over a pipe and exits. The seccomp check loads the run's own
 * filter in another child and expects its EPERM. The cgroup check makes the
 * cgroup a run with the default limits would get (a scope, a delegated
 * subtree, a v1 cgroup) with a sleeping child in it, and removes it.
 */
#include "sandbox/doctor.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/seccomp.h>

#include "core/util.h"
#include "sandbox/internal.h"

#define PROFILE_PATH "/etc/apparmor.d/agenttask"

/* The errno of each step in the namespace child; 0 done, -1 not reached. */
struct ns_probe {
	int userns, idmap, private_, fsmount, move, open_tree, setattr, overlay;
};

static int write_text(const char *path, const char *text)
{
	AT_AUTOCLOSE int fd = open(path, O_WRONLY | O_CLOEXEC);

	return fd < 0 ? -1 : at_write_all(fd, text, strlen(text));
}

static int step(int *slot, int rc)
{
	*slot = rc < 0 ? (errno ? errno : EIO) : 0;
	return rc;
}

/* In the child: each step of a run's setup that needs the kernel's say-so. */
static void ns_child(struct ns_probe *p)
{
	char map[64];
	int fs, mnt, tree, tmp;
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_RDONLY };
	unsigned int uid = (unsigned int)getuid(), gid = (unsigned int)getgid();

	/* Our own ids, mapped to themselves, as a run maps them. */
	if (step(&p->userns, unshare(CLONE_NEWUSER | CLONE_NEWNS)) < 0)
		return;
	snprintf(map, sizeof(map), "%u %u 1\n", uid, uid);
	if (step(&p->idmap, write_text("/proc/self/setgroups", "deny")) < 0 ||
	    step(&p->idmap, write_text("/proc/self/uid_map", map)) < 0)
		return;
	snprintf(map, sizeof(map), "%u %u 1\n", gid, gid);
	if (step(&p->idmap, write_text("/proc/self/gid_map", map)) < 0)
		return;
	if (step(&p->private_, mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) < 0)
		return;
	fs = fsopen("tmpfs", FSOPEN_CLOEXEC);
	if (step(&p->fsmount, fs) < 0 ||
	    step(&p->fsmount, fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0)) < 0)
		return;
	mnt = fsmount(fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
	if (step(&p->fsmount, mnt) < 0)
		return;
	tmp = open("/tmp", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (step(&p->move, tmp) < 0 ||
	    step(&p->move, move_mount(mnt, "", tmp, "", MOVE_MOUNT_F_EMPTY_PATH |
							  MOVE_MOUNT_T_EMPTY_PATH)) < 0)
		return;
	tree = open_tree(AT_FDCWD, "/tmp", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (step(&p->open_tree, tree) < 0)
		return;
	step(&p->setattr, mount_setattr(tree, "", AT_EMPTY_PATH, &attr, sizeof(attr)));
	if (mkdir("/tmp/l", 0755) < 0 || mkdir("/tmp/u", 0755) < 0 || mkdir("/tmp/w", 0755) < 0 ||
	    mkdir("/tmp/m", 0755) < 0) {
		p->overlay = errno;
		return;
	}
	step(&p->overlay, mount("overlay", "/tmp/m", "overlay", 0,
				"lowerdir=/tmp/l,upperdir=/tmp/u,workdir=/tmp/w"));
}

static void probe_namespaces(struct ns_probe *p)
{
	int fds[2], status;
	pid_t pid;

	memset(p, 0xff, sizeof(*p));
	if (pipe2(fds, O_CLOEXEC) < 0)
		return;
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		ns_child(p);
		(void)!write(fds[1], p, sizeof(*p));
		_exit(0);
	}
	close(fds[1]);
	if (pid > 0) {
		if (read(fds[0], p, sizeof(*p)) != (ssize_t)sizeof(*p))
			memset(p, 0xff, sizeof(*p));
		waitpid(pid, &status, 0);
	}
	close(fds[0]);
}

static int read_int(const char *path)
{
	char text[32];

	return at_sb_read_proc(path, text, sizeof(text)) == 0 ? atoi(text) : -1;
}

static struct at_doctor_check *add(struct at_doctor *d, const char *id, const char *title)
{
	struct at_doctor_check *c = &d->checks[d->n++];

	memset(c, 0, sizeof(*c));
	c->id = id;
	c->title = title;
	return c;
}

static void set(struct at_doctor_check *c, enum at_doctor_state s, const char *fix,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void set(struct at_doctor_check *c, enum at_doctor_state s, const char *fix,
		const char *fmt, ...)
{
	va_list ap;

	c->state = s;
	va_start(ap, fmt);
	vsnprintf(c->detail, sizeof(c->detail), fmt, ap);
	va_end(ap);
	snprintf(c->fix, sizeof(c->fix), "%s", fix ? fix : "");
}

static void check_userns(struct at_doctor *d, const struct ns_probe *p)
{
	struct at_doctor_check *c = add(d, "userns", "user namespaces");
	int aa = read_int("/proc/sys/kernel/apparmor_restrict_unprivileged_userns");
	bool profile = access(PROFILE_PATH, F_OK) == 0;

	if (p->userns == 0 && p->idmap == 0 && p->private_ == 0 && p->fsmount == 0) {
		if (aa == 1)
			set(c, AT_DOCTOR_OK, NULL,
			    "work; AppArmor restricts unprivileged user namespaces "
			    "(kernel.apparmor_restrict_unprivileged_userns=1) and allows agenttask's%s",
			    profile ? " (profile " PROFILE_PATH ")" : "");
		else
			set(c, AT_DOCTOR_OK, NULL, "an unprivileged user namespace with its own mounts works");
		return;
	}
	if (aa == 1 && getuid() != 0)
		set(c, AT_DOCTOR_FAIL,
		    "install agenttask's AppArmor profile (`make install` puts apparmor/agenttask in "
		    PROFILE_PATH "; then `apparmor_parser -r " PROFILE_PATH "`), or "
		    "`sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`",
		    "AppArmor restricts unprivileged user namespaces "
		    "(kernel.apparmor_restrict_unprivileged_userns=1)%s: %s",
		    profile ? ", and the profile " PROFILE_PATH " did not apply to this binary" : "",
		    strerror(p->userns ? p->userns : p->private_ ? p->private_ : EPERM));
	else if (read_int("/proc/sys/kernel/unprivileged_userns_clone") == 0 && getuid() != 0)
		set(c, AT_DOCTOR_FAIL, "`sysctl -w kernel.unprivileged_userns_clone=1`",
		    "unprivileged user namespaces are disabled (kernel.unprivileged_userns_clone=0)");
	else if (read_int("/proc/sys/user/max_user_namespaces") == 0)
		set(c, AT_DOCTOR_FAIL, "`sysctl -w user.max_user_namespaces=15000`",
		    "user namespaces are disabled (user.max_user_namespaces=0)");
	else
		set(c, AT_DOCTOR_FAIL,
		    "allow user namespaces (a container needs a seccomp profile that does, or "
		    "--privileged; the kernel needs CONFIG_USER_NS)",
		    "a user namespace with its own mounts cannot be made: %s%s",
		    p->userns ? "unshare: " : p->idmap ? "the id maps: " : "mounting: ",
		    strerror(p->userns ? p->userns : p->idmap ? p->idmap : p->private_));
}

static void check_mount_api(struct at_doctor *d, const struct ns_probe *p)
{
	struct at_doctor_check *c = add(d, "mount_api", "the mount API");
	struct at_doctor_check *s = add(d, "mount_setattr", "mount_setattr");

	if (p->userns != 0 || p->idmap != 0 || p->private_ != 0) {
		set(c, AT_DOCTOR_FAIL, "see user namespaces", "not checked: no user namespace");
		set(s, AT_DOCTOR_FAIL, "see user namespaces", "not checked: no user namespace");
		return;
	}
	if (p->fsmount == 0 && p->move == 0 && p->open_tree == 0)
		set(c, AT_DOCTOR_OK, NULL, "fsopen, fsmount, move_mount and open_tree work");
	else
		set(c, AT_DOCTOR_FAIL, "Linux 5.12 or later",
		    "%s: %s (mounts are made by descriptor, never by path: no fallback)",
		    p->fsmount ? "fsopen/fsmount" : p->move ? "move_mount" : "open_tree",
		    strerror(p->fsmount ? p->fsmount : p->move ? p->move : p->open_tree));
	if (p->setattr == 0)
		set(s, AT_DOCTOR_OK, NULL, "a mount is made read-only, nosuid, nodev before it is attached");
	else
		set(s, AT_DOCTOR_FAIL, "Linux 5.12 or later", "mount_setattr: %s (no fallback)",
		    p->setattr < 0 ? "not reached" : strerror(p->setattr));
}

static void check_overlay(struct at_doctor *d, const struct ns_probe *p)
{
	struct at_doctor_check *c = add(d, "overlayfs", "overlayfs in a user namespace");

	if (p->overlay == 0)
		set(c, AT_DOCTOR_OK, NULL, "an overlayfs mounts in an unprivileged user namespace");
	else
		set(c, AT_DOCTOR_FALLBACK, "Linux 5.11 or later for overlayfs in a user namespace",
		    "cannot mount an overlayfs in a user namespace (%s); agenttask's sandbox does "
		    "not need one today: nothing falls back",
		    p->overlay < 0 ? "not reached" : strerror(p->overlay));
}

static void check_openat2(struct at_doctor *d)
{
	struct at_doctor_check *c = add(d, "openat2", "openat2");
	struct open_how how = { .flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
				.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
	long fd = syscall(SYS_openat2, AT_FDCWD, "/", &how, sizeof(how));

	if (fd >= 0) {
		close((int)fd);
		set(c, AT_DOCTOR_OK, NULL, "paths are opened without following a link (RESOLVE_NO_SYMLINKS)");
		return;
	}
	set(c, AT_DOCTOR_FAIL, "Linux 5.6 or later",
	    "openat2: %s (a planted link would be followed without it: no fallback)",
	    strerror(errno));
}

/* In a child: the run's own filter, then keyctl, which only the filter makes EPERM. */
static int seccomp_probe(void)
{
	struct at_error err = AT_ERROR_INIT;
	struct sock_fprog prog;
	int status, res = -1;
	pid_t pid;

	if (at_sb_seccomp_compile(&prog, &err) < 0)
		return -2;
	pid = fork();
	if (pid == 0) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0)
			_exit(2);
		_exit(syscall(SYS_keyctl, 0, 0, 0, 0, 0) < 0 && errno == EPERM ? 0 : 3);
	}
	if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status))
		res = WEXITSTATUS(status);
	at_sb_seccomp_release(&prog);
	return res;
}

static void check_seccomp(struct at_doctor *d)
{
	struct at_doctor_check *c = add(d, "seccomp", "seccomp");
	int r = seccomp_probe();

	if (r == 0)
		set(c, AT_DOCTOR_OK, NULL, "the run's system call filter loads and refuses what it should");
	else
		set(c, AT_DOCTOR_FAIL, "a kernel with CONFIG_SECCOMP_FILTER",
		    "%s", r == -2 ? "the filter cannot be compiled (libseccomp)"
			  : r == 2 ? "the filter cannot be loaded"
				   : "the filter loads but does not refuse keyctl");
}

/* A child that sleeps until its pipe closes: something to put in a cgroup. */
static pid_t sleeper(int *wfd)
{
	int fds[2];
	char b;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		close(fds[1]);
		(void)!read(fds[0], &b, 1);
		_exit(0);
	}
	close(fds[0]);
	*wfd = fds[1];
	return pid;
}

static const char *cgroup_fix(enum at_limit_mech tree)
{
	bool v2 = at_sb_cg2_unified(), sd = access("/run/systemd/system", F_OK) == 0;

	if (tree != AT_MECH_NONE)
		return "";
	if (v2 && sd)
		return getuid() == 0 ? "make systemd's D-Bus reachable (/run/systemd/private)"
				     : "run agenttask in a login session with a systemd user manager "
				       "(XDG_RUNTIME_DIR set; `loginctl enable-linger $USER`), or "
				       "under `systemd-run --user --scope -p Delegate=yes`";
	if (v2)
		return "run agenttask alone in a cgroup it may write, with the memory and pids "
		       "controllers available (a container with its own cgroup namespace)";
	return getuid() == 0 ? "mount the cgroup v1 memory and pids hierarchies, or boot with "
			       "cgroup v2 (systemd.unified_cgroup_hierarchy=1)"
			     : "boot with cgroup v2 (systemd.unified_cgroup_hierarchy=1) and a "
			       "systemd user manager: cgroup v1 is writable by root only";
}

/* The cgroup a run with the default limits would get, made, tried, removed. */
static void check_cgroups(struct at_doctor *d)
{
	struct at_doctor_check *c = add(d, "cgroups", "cgroup limits");
	struct at_sandbox_spec o;
	enum at_limit_mech mech[AT_LIMIT_COUNT] = { 0 };
	struct at_error err = AT_ERROR_INIT;
	struct at_sb_cgroup cg;
	int wfd = -1, status, i, fds[2] = { -1, -1 };
	char ctl[64] = "";
	pid_t pid = -1;

	at_sandbox_spec_init(&o);
	at_sandbox_defaults(&o.proc.limits);
	o.proc.limits.value[AT_LIMIT_CPUS] = 1000;
	o.proc.limits.defaults |= 1u << AT_LIMIT_CPUS;
	if (at_sb_limits_prepare(&o, mech, &cg, &err) == 0 && cg.need_sync) {
		pid = sleeper(&wfd);
		/* The rlimits message goes to a pipe nobody reads: only the move matters. */
		if (pid < 0 || pipe2(fds, O_CLOEXEC) < 0 ||
		    at_sb_limits_attach(&cg, &o, (int)pid, mech, fds[1], &err) < 0)
			cg.tree = AT_MECH_NONE;
		if (fds[0] >= 0) {
			close(fds[0]);
			close(fds[1]);
		}
	}
	for (i = 0; i < AT_LIMIT_COUNT; i++) {
		if (mech[i] == cg.tree && cg.tree != AT_MECH_NONE && strlen(ctl) < 40) {
			strcat(ctl, ctl[0] ? ", " : "");
			strcat(ctl, at_limit_name((enum at_limit)i));
		}
	}
	if (wfd >= 0)
		close(wfd);
	if (pid > 0)
		waitpid(pid, &status, 0);
	at_sb_limits_release(&cg);
	at_sandbox_spec_release(&o);

	if (cg.tree != AT_MECH_NONE && mech[AT_LIMIT_MEMORY] == cg.tree &&
	    mech[AT_LIMIT_PIDS] == cg.tree)
		set(c, AT_DOCTOR_OK, NULL, "a run's limits hold its whole tree: %s (%s)",
		    at_limit_mech_name(cg.tree), ctl);
	else
		set(c, AT_DOCTOR_FALLBACK, cgroup_fix(cg.tree),
		    "%s%s%s; the rest per process: pids by RLIMIT_NPROC%s, memory not limited by "
		    "default (RLIMIT_AS only for --memory)%s%s",
		    cg.tree != AT_MECH_NONE ? at_limit_mech_name(cg.tree) : "no cgroup for a run",
		    ctl[0] ? " holds " : "", ctl,
		    getuid() == 0 ? " (which does not bind root: --pids refused)" : "",
		    cg.why_not[0] ? "; systemd: " : "", cg.why_not);
}

void at_sandbox_doctor(struct at_doctor *d)
{
	struct ns_probe p;
	size_t i;

	memset(d, 0, sizeof(*d));
	probe_namespaces(&p);
	check_userns(d, &p);
	check_overlay(d, &p);
	check_cgroups(d);
	check_seccomp(d);
	check_openat2(d);
	check_mount_api(d, &p);
	d->can_sandbox = true;
	for (i = 0; i < d->n; i++)
		if (d->checks[i].state == AT_DOCTOR_FAIL)
			d->can_sandbox = false;
}
