/*
 * limits.c - --memory, --pids, --cpu, --file-size.
 *
 * A limit on the whole process tree needs a cgroup. Where the cgroup v1
 * hierarchy of a controller is writable (root, here) a per-run cgroup
 * <hierarchy>/<our cgroup>/agenttask-<pid> is made, the sandbox's init is
 * moved into it before it runs anything, and it is removed after the run.
 * Otherwise the limit falls back to an rlimit, which binds each process
 * (RLIMIT_AS, RLIMIT_CPU, RLIMIT_FSIZE) or, for RLIMIT_NPROC, the user's
 * processes in the sandbox's user namespace.
 *
 * RLIMIT_NPROC does not bind a process whose real uid is the host's root
 * (copy_process exempts INIT_USER), and root inside the sandbox is the
 * host's root mapped 1:1. So --pids as root without a writable pids cgroup
 * is refused instead of silently not enforced.
 *
 * cgroup v2: not used yet (a delegated subtree needs the supervisor itself
 * moved to a leaf first); where only v2 is available the rlimits apply.
 * CPU time has no cgroup v1 limit (cpu.cfs_* throttle, they do not stop), so
 * --cpu is always RLIMIT_CPU: per process.
 */
#include "sandbox/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"

#define CGROUP_ROOT "/sys/fs/cgroup"

int at_sb_read_proc(const char *path, char *buf, size_t size)
{
	AT_AUTOCLOSE int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	size_t len = 0;

	/* procfs reports st_size 0: read until EOF. */
	if (fd < 0 || size == 0)
		return -1;
	while (len < size - 1) {
		ssize_t n = read(fd, buf + len, size - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	return 0;
}

/* Our own cgroup in the v1 hierarchy of controller, from /proc/self/cgroup. */
static int own_cgroup(const char *controller, char *buf, size_t size)
{
	char text[8192];
	char *line, *save = NULL;
	size_t clen = strlen(controller);

	if (at_sb_read_proc("/proc/self/cgroup", text, sizeof(text)) < 0)
		return -1;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *ctl = strchr(line, ':'), *path, *c, *csave = NULL;

		if (!ctl || !(path = strchr(ctl + 1, ':')))
			continue;
		*path++ = '\0';
		for (c = strtok_r(ctl + 1, ",", &csave); c; c = strtok_r(NULL, ",", &csave)) {
			if (strlen(c) == clen && strcmp(c, controller) == 0)
				return at_fmt(buf, size, "%s", path);
		}
	}
	errno = ENOENT;
	return -1;
}

static int write_file(const char *dir, const char *name, const char *value)
{
	char path[512];
	AT_AUTOCLOSE int fd = -1;

	if (at_fmt(path, sizeof(path), "%s/%s", dir, name) < 0)
		return -1;
	fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	return at_write_all(fd, value, strlen(value));
}

/* Make <hierarchy>/<own cgroup>/agenttask-<pid> for controller; its path in dir. */
static int make_cgroup(const char *controller, char *dir, size_t size)
{
	char own[256], base[512];
	struct stat st;

	if (own_cgroup(controller, own, sizeof(own)) < 0)
		return -1;
	if (at_fmt(base, sizeof(base), CGROUP_ROOT "/%s%s", controller,
		   strcmp(own, "/") == 0 ? "" : own) < 0)
		return -1;
	if (stat(base, &st) < 0 || !S_ISDIR(st.st_mode))
		return -1;
	if (access(base, W_OK) < 0)
		return -1;
	if (at_fmt(dir, size, "%s/agenttask-%ld", base, (long)getpid()) < 0)
		return -1;
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -1;
	return 0;
}

static int try_cgroup(struct at_sb_cgroup *cg, const char *controller, const char *file,
		      uint64_t value, const char *also)
{
	char dir[256], val[32];

	if (cg->ndirs >= (int)(sizeof(cg->dirs) / sizeof(cg->dirs[0])))
		return -1;
	if (make_cgroup(controller, dir, sizeof(dir)) < 0)
		return -1;
	snprintf(val, sizeof(val), "%llu", (unsigned long long)value);
	if (write_file(dir, file, val) < 0) {
		rmdir(dir);
		return -1;
	}
	/* Swap too, where accounted: else the limit only moves pages to swap. */
	if (also)
		(void)write_file(dir, also, val);
	memcpy(cg->dirs[cg->ndirs++], dir, sizeof(dir));
	return 0;
}

int at_sb_cgroup_setup(const uint64_t *limits, enum at_limit_mech *mech,
		       struct at_sb_cgroup *cg, struct at_error *err)
{
	memset(cg, 0, sizeof(*cg));
	if (limits[AT_LIMIT_MEMORY]) {
		mech[AT_LIMIT_MEMORY] =
			try_cgroup(cg, "memory", "memory.limit_in_bytes", limits[AT_LIMIT_MEMORY],
				   "memory.memsw.limit_in_bytes") == 0
				? AT_MECH_CGROUP_V1
				: AT_MECH_RLIMIT;
	}
	if (limits[AT_LIMIT_PIDS]) {
		/* +1: the sandbox's init is in the cgroup and in the count too. */
		if (try_cgroup(cg, "pids", "pids.max", limits[AT_LIMIT_PIDS] + 1, NULL) == 0) {
			mech[AT_LIMIT_PIDS] = AT_MECH_CGROUP_V1;
		} else if (getuid() == 0) {
			at_sb_cgroup_remove(cg);
			return at_error_set(err, AT_ESANDBOX,
					    "cannot enforce --pids: no writable pids cgroup, and "
					    "RLIMIT_NPROC does not bind root");
		} else {
			mech[AT_LIMIT_PIDS] = AT_MECH_RLIMIT;
		}
	}
	if (limits[AT_LIMIT_CPU])
		mech[AT_LIMIT_CPU] = AT_MECH_RLIMIT;
	if (limits[AT_LIMIT_FSIZE])
		mech[AT_LIMIT_FSIZE] = AT_MECH_RLIMIT;
	return 0;
}

int at_sb_cgroup_attach(const struct at_sb_cgroup *cg, int pid, struct at_error *err)
{
	char val[32];
	int i;

	snprintf(val, sizeof(val), "%d", pid);
	for (i = 0; i < cg->ndirs; i++) {
		if (write_file(cg->dirs[i], "cgroup.procs", val) < 0)
			return at_error_sys(err, AT_ESANDBOX, "cannot move the sandbox into '%s'",
					    cg->dirs[i]);
	}
	return 0;
}

void at_sb_cgroup_remove(struct at_sb_cgroup *cg)
{
	int i, tries;

	for (i = 0; i < cg->ndirs; i++) {
		/* The last processes may still be on their way out. */
		for (tries = 0; tries < 200; tries++) {
			struct timespec ts = { 0, 5 * 1000 * 1000 };

			if (rmdir(cg->dirs[i]) == 0 || errno == ENOENT)
				break;
			if (errno != EBUSY)
				break;
			nanosleep(&ts, NULL);
		}
	}
	cg->ndirs = 0;
}

/* In the command's process, before seccomp: async-signal-safe. */
int at_sb_rlimits_apply(const struct at_sb_child *c, int *which)
{
	static const int resource[AT_LIMIT_COUNT] = {
		[AT_LIMIT_MEMORY] = RLIMIT_AS,
		[AT_LIMIT_PIDS] = RLIMIT_NPROC,
		[AT_LIMIT_CPU] = RLIMIT_CPU,
		[AT_LIMIT_FSIZE] = RLIMIT_FSIZE,
	};
	int i;

	for (i = 0; i < AT_LIMIT_COUNT; i++) {
		struct rlimit rl;
		uint64_t v = c->limits[i];

		if (!c->rlimit[i])
			continue;
		if (i == AT_LIMIT_PIDS)
			v += 1;   /* the init counts, as in the cgroup */
		rl.rlim_cur = (rlim_t)v;
		/* CPU: SIGXCPU at the limit, SIGKILL a second later. */
		rl.rlim_max = (rlim_t)(i == AT_LIMIT_CPU ? v + 1 : v);
		*which = i;
		if (setrlimit(resource[i], &rl) < 0)
			return -1;
	}
	return 0;
}
