/*
 * child_setup.c - the sandbox's pid 1 from clone() on: the whole order of the
 * setup, in child_setup(). The command's own steps (session, fds, rlimits,
 * seccomp last) follow in child_exec.c. Async-signal-safe throughout: see
 * child.h.
 */
#include "sandbox/child.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <poll.h>
#include <sched.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/util.h"

#define SB_HOSTNAME_STR "agenttask"

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

/* v1: into the run's cgroups, first of all (struct at_sb_join); their files closed. */
static int join_cgroups(struct at_sb_join *j, const char **what)
{
	int i, saved = 0;

	for (i = 0; i < j->n; i++) {
		if (!saved && write(j->fd[i], "0", 1) != 1) {
			saved = errno ? errno : EIO;
			*what = j->dir[i];
		}
		close(j->fd[i]);
	}
	errno = saved;
	return saved ? -1 : 0;
}

/*
 * The supervisor holds the write end of the sync pipe until the run is
 * over: POLLHUP (or EOF) means it died before our death signal was armed,
 * and nobody would ever kill us. With a cgroup to join, wait for its
 * message: written once we are in (on v1 we moved ourselves, before; else
 * the supervisor or systemd moved us), it says which
 * limits fall back to rlimits after all, and whether we have a cgroup of
 * our own to show (struct at_sb_sync).
 */
static int check_supervisor(struct at_sb_child *c)
{
	struct pollfd pfd = { .fd = c->sync_fd, .events = POLLIN };
	struct at_sb_sync msg;

	errno = 0;
	if (c->wait_sync) {
		if (read(c->sync_fd, &msg, sizeof(msg)) == (ssize_t)sizeof(msg)) {
			memcpy(c->rlimit, msg.rlimit, sizeof(c->rlimit));
			if (!msg.own_cgroup)
				c->cg.view = SB_CG_NONE;
			return 0;
		}
	} else if (poll(&pfd, 1, 0) >= 0 && !(pfd.revents & (POLLHUP | POLLERR))) {
		return 0;
	}
	errno = errno ? errno : EPIPE;
	return -1;
}

/*
 * The sandbox's pid 1, from clone() on; it runs with the mask of signals the
 * supervisor blocked. The order matters:
 *   - into the run's v1 cgroups, before anything it does is accounted
 *     elsewhere;
 *   - die with the supervisor, and make sure it is still there (and, with
 *     limits, that it has put us in the run's cgroup) before anything runs;
 *   - our own uid/gid maps; the cgroup namespace is made only now, rooted
 *     at that cgroup;
 *   - network (and the listening sockets handed over; the supervisor starts
 *     serving them while we go on, and we wait for it only at the end of
 *     this function, so its start overlaps the mounts), then mounts: every
 *     source opened before anything is mounted over anything, the new root
 *     assembled, pivot_root, old root detached; then the pty of an
 *     interactive run, made in the sandbox's own devpts (child_pty.c);
 *   - capabilities dropped after the mounts (they need CAP_SYS_ADMIN in our
 *     user namespace) and no_new_privs set, both inherited by the command;
 *     the init is made non-dumpable, so the command cannot ptrace it.
 * The command's own steps (session, fds, rlimits, seccomp last) follow in
 * at_sb_command_exec.
 */
static int child_setup(struct at_sb_child *c, int64_t *t, int *step, const char **what)
{
	int rootfd;

	t[AT_STEP_CLONE] = at_mono_ns();
	*what = NULL;
	*step = AT_STEP_JOIN;
	if (join_cgroups(&c->join, what) < 0)
		return -1;
	*step = AT_STEP_SYNC;
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || check_supervisor(c) < 0)
		return -1;
	if (!c->hold)
		close(c->sync_fd);
	*step = AT_STEP_IDMAP;
	if (write_idmaps(c, what) < 0)
		return -1;
	t[AT_STEP_IDMAP] = at_mono_ns();

	*step = AT_STEP_CGROUPNS;
	if (unshare(CLONE_NEWCGROUP) < 0)
		return -1;
	*step = AT_STEP_HOSTNAME;
	if (sethostname(SB_HOSTNAME_STR, sizeof(SB_HOSTNAME_STR) - 1) < 0)
		return -1;
	*step = AT_STEP_NET;
	if (c->new_net && at_sb_loopback_up() < 0)
		return -1;
	*step = AT_STEP_LISTEN;
	if (c->nlisten && at_sb_listen_handoff(c) < 0)
		return -1;
	if (c->netns_fd >= 0 && at_sb_netns_handoff(c) < 0)
		return -1;
	t[AT_STEP_NET] = at_mono_ns();

	rootfd = at_sb_mounts_build(c, step, what);
	if (rootfd < 0)
		return -1;
	t[AT_STEP_MOUNTS] = at_mono_ns();
	if (at_sb_pivot(rootfd, c->cwd, step, what) < 0)
		return -1;
	t[AT_STEP_PIVOT] = at_mono_ns();
	*step = AT_STEP_PTY;
	*what = NULL;
	if (c->stdio.pty && at_sb_pty_make(&c->stdio) < 0)
		return -1;

	*step = AT_STEP_CAPS;
	if (drop_capabilities(c->last_cap) < 0)
		return -1;
	*step = AT_STEP_PRIVS;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		return -1;
	*step = AT_STEP_LISTEN;
	if (c->nlisten && at_sb_listen_wait(c) < 0)
		return -1;
	t[AT_STEP_PRIVS] = at_mono_ns();
	return 0;
}

void at_sb_child_main(struct at_sb_child *c)
{
	int64_t t[AT_STEP_COUNT];
	const char *what;
	int step, i;

	for (i = 0; i < AT_STEP_COUNT; i++)
		t[i] = 0;
	c->failed_op = -1;
	if (child_setup(c, t, &step, &what) < 0) {
		at_sb_report_send(c->report_fd, SB_REPORT_SETUP, step, errno, c->failed_op, what, t);
		_exit(AT_RUN_SETUP);
	}
	at_sb_init_run(c, t);
}

