/*
 * cgroup2.c - the unified (v2) cgroup hierarchy: a delegated subtree, the
 * limit files, the event counters.
 *
 * A cgroup is delegated to us when we may manage what is below it: outside
 * systemd, when we can write it (a container's own hierarchy, a CI runner);
 * under systemd, only when its manager marked it so (the user.delegate or
 * trusted.delegate attribute of a Delegate=yes unit), or when the manager
 * says our unit has Delegate=yes (the user manager of systemd 252 writes no
 * attribute: `systemd-run --user --scope -p Delegate=yes`): every other
 * cgroup belongs to systemd, even where root or the user could write it.
 *
 * cgroup v2 lets a cgroup either hold processes or share controllers with
 * its children, not both. So to make the run's cgroup beside ourselves we
 * first move agenttask into a leaf of its own, <ours>/agenttask-supervisor,
 * and enable the controllers in <ours>; that is done only when agenttask is
 * alone in its cgroup (never moving someone else's processes), and once:
 * a later run finds itself in the leaf and uses its parent.
 */
#include "sandbox/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"

#define CG2_ROOT "/sys/fs/cgroup"
#define SUPERVISOR_LEAF "agenttask-supervisor"

/* The controller of each tree-wide limit, and the file that shows it is on. */
static const char *const controller[AT_LIMIT_COUNT] = {
	[AT_LIMIT_MEMORY] = "memory",
	[AT_LIMIT_PIDS] = "pids",
	[AT_LIMIT_CPUS] = "cpu",
};
static const char *const limit_file[AT_LIMIT_COUNT] = {
	[AT_LIMIT_MEMORY] = "memory.max",
	[AT_LIMIT_PIDS] = "pids.max",
	[AT_LIMIT_CPUS] = "cpu.max",
};

static int read_file(const char *dir, const char *name, char *buf, size_t size)
{
	char path[640];

	if (at_fmt(path, sizeof(path), "%s/%s", dir, name) < 0)
		return -1;
	return at_sb_read_proc(path, buf, size);
}

/* Is word one of the space-separated words of list? */
static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p = list;

	while ((p = strstr(p, word)) != NULL) {
		if ((p == list || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' ' || p[n] == '\n'))
			return true;
		p += n;
	}
	return false;
}

bool at_sb_cg2_has(const char *dir, enum at_limit l)
{
	char path[640];

	if (!limit_file[l] || at_fmt(path, sizeof(path), "%s/%s", dir, limit_file[l]) < 0)
		return false;
	return access(path, F_OK) == 0;
}

static bool marked_delegated(const char *dir)
{
	static const char *const attrs[] = { "trusted.delegate", "user.delegate" };
	char v[8];
	size_t i;

	for (i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
		ssize_t n = getxattr(dir, attrs[i], v, sizeof(v) - 1);
		if (n > 0 && v[0] == '1')
			return true;
	}
	return false;
}

/* "+memory +pids" for the limits wanted whose controller dir offers; "" if none. */
static void controllers_wanted(const char *dir, const bool *want, char *out, size_t size)
{
	char avail[512];
	int i;

	out[0] = '\0';
	if (read_file(dir, "cgroup.controllers", avail, sizeof(avail)) < 0)
		return;
	for (i = 0; i < AT_LIMIT_COUNT; i++) {
		if (want[i] && controller[i] && has_word(avail, controller[i]) &&
		    strlen(out) + strlen(controller[i]) + 3 < size) {
			strcat(out, out[0] ? " +" : "+");
			strcat(out, controller[i]);
		}
	}
}

/* Are we, alone, in the cgroup at dir? */
static bool alone_in(const char *dir)
{
	char procs[64], *end;
	long pid;

	if (read_file(dir, "cgroup.procs", procs, sizeof(procs)) < 0)
		return false;
	pid = strtol(procs, &end, 10);
	return pid == (long)getpid() && (*end == '\0' || (end[0] == '\n' && end[1] == '\0'));
}

/*
 * Give base's children the controllers in ctl. base may not hold processes
 * then: agenttask moves itself into <base>/agenttask-supervisor first, when
 * it is alone in base (in_leaf: it is there already).
 */
static int enable_controllers(const char *base, const char *ctl, bool in_leaf)
{
	char leaf[560], pid[32];

	if (in_leaf)
		return at_sb_cg_write(base, "cgroup.subtree_control", ctl);
	if (!alone_in(base))
		return -1;
	if (at_fmt(leaf, sizeof(leaf), "%s/" SUPERVISOR_LEAF, base) < 0)
		return -1;
	if (mkdir(leaf, 0755) < 0 && errno != EEXIST)
		return -1;
	snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	if (at_sb_cg_write(leaf, "cgroup.procs", pid) < 0)
		return -1;
	if (at_sb_cg_write(base, "cgroup.subtree_control", ctl) < 0) {
		(void)at_sb_cg_write(base, "cgroup.procs", pid);
		rmdir(leaf);
		return -1;
	}
	return 0;
}

/*
 * The base cgroup for the run's: ours, or its parent when we are already in
 * the supervisor leaf. Delegated only as the comment at the top says.
 */
static int delegated_base(struct at_sb_scope *sd, char *base, size_t size, bool *in_leaf)
{
	char own[400], *slash;
	bool under_systemd = access("/run/systemd/system", F_OK) == 0;

	if (at_sb_cg2_of(getpid(), own, sizeof(own)) < 0)
		return -1;
	slash = strrchr(own, '/');
	*in_leaf = slash && strcmp(slash + 1, SUPERVISOR_LEAF) == 0;
	if (*in_leaf)
		*slash = '\0';
	if (at_fmt(base, size, CG2_ROOT "%s", strcmp(own, "/") == 0 ? "" : own) < 0)
		return -1;
	if (access(base, W_OK) < 0)
		return -1;
	if (under_systemd && !marked_delegated(base) && !at_sb_scope_delegated(sd))
		return -1;
	return 0;
}

int at_sb_cg2_delegated(struct at_sb_scope *sd, const bool *want, char *dir, size_t size)
{
	static unsigned int seq;
	char base[480], ctl[64], on[512];
	struct timespec ts;
	bool in_leaf;
	int i;

	if (delegated_base(sd, base, sizeof(base), &in_leaf) < 0)
		return -1;
	controllers_wanted(base, want, ctl, sizeof(ctl));
	if (!ctl[0])
		return -1;
	if (read_file(base, "cgroup.subtree_control", on, sizeof(on)) < 0)
		return -1;
	for (i = 0; i < AT_LIMIT_COUNT; i++) {
		if (want[i] && controller[i] && !has_word(on, controller[i]) && strstr(ctl, controller[i]))
			break;
	}
	if (i < AT_LIMIT_COUNT && enable_controllers(base, ctl, in_leaf) < 0)
		return -1;
	at_sb_cg_sweep(base, "agenttask-run-");
	clock_gettime(CLOCK_MONOTONIC, &ts);
	if (at_fmt(dir, size, "%s/agenttask-run-%ld-%u-%ld", base, (long)getpid(), seq++,
		   (long)(ts.tv_nsec / 1000)) < 0)
		return -1;
	return mkdir(dir, 0755);
}

int at_sb_cg2_write_limits(const char *dir, const uint64_t *limits, bool *want)
{
	char v[64];

	if (want[AT_LIMIT_MEMORY]) {
		uint64_t max = limits[AT_LIMIT_MEMORY];

		/* memory.high first: reclaim and throttling begin at 90%, before the OOM killer. */
		snprintf(v, sizeof(v), "%llu", (unsigned long long)(max / 10 * 9));
		if (at_sb_cg_write(dir, "memory.high", v) < 0)
			want[AT_LIMIT_MEMORY] = false;
		snprintf(v, sizeof(v), "%llu", (unsigned long long)max);
		if (want[AT_LIMIT_MEMORY] && at_sb_cg_write(dir, "memory.max", v) < 0)
			want[AT_LIMIT_MEMORY] = false;
		/* No swap: else the limit only moves the run's pages out to it. */
		(void)at_sb_cg_write(dir, "memory.swap.max", "0");
	}
	if (want[AT_LIMIT_PIDS]) {
		/* +1: the sandbox's init is in the cgroup and in the count too. */
		snprintf(v, sizeof(v), "%llu", (unsigned long long)limits[AT_LIMIT_PIDS] + 1);
		if (at_sb_cg_write(dir, "pids.max", v) < 0)
			want[AT_LIMIT_PIDS] = false;
	}
	if (want[AT_LIMIT_CPUS]) {
		/* Thousandths of a CPU: quota in microseconds per 100 ms period. */
		snprintf(v, sizeof(v), "%llu 100000",
			 (unsigned long long)limits[AT_LIMIT_CPUS] * 100);
		if (at_sb_cg_write(dir, "cpu.max", v) < 0)
			want[AT_LIMIT_CPUS] = false;
	}
	return 0;
}

void at_sb_cg2_events(const char *dir, int64_t *oom_kills, int64_t *pids_refused)
{
	char path[640];

	if (at_fmt(path, sizeof(path), "%s/memory.events", dir) == 0)
		*oom_kills = at_sb_cg_key(path, "oom_kill");
	if (at_fmt(path, sizeof(path), "%s/pids.events", dir) == 0)
		*pids_refused = at_sb_cg_key(path, "max");
}
