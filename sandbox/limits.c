/*
 * limits.c - --memory, --pids, --cpu, --cpus, --file-size, and the defaults.
 *
 * A limit on the whole process tree needs a cgroup. The first of these that
 * works holds the run's memory, pids and cpus limits:
 *   1. cgroup v2, a subtree delegated to agenttask (a container, a CI
 *      runner, `systemd-run --user --scope -p Delegate=yes`): the run's
 *      cgroup is made in it, and the init is born there
 *      (clone3(CLONE_INTO_CGROUP)): cgroup2.c;
 *   2. cgroup v2 under systemd: a transient scope from the user's manager
 *      (the system's for root): scope.c;
 *   3. cgroup v1, where its hierarchies are writable (root):
 *      <hierarchy>/<our cgroup>/agenttask-<pid>, which the init moves
 *      itself into (struct at_sb_join in child.h says why not by its pid);
 *   4. otherwise rlimits, which bind each process on its own (RLIMIT_AS,
 *      RLIMIT_CPU, RLIMIT_FSIZE) or, RLIMIT_NPROC, the user's processes in
 *      the sandbox's user namespace; at_limit_mech_note says what each
 *      weakens, and `run --verbose` and `--json` show it.
 * In 2 and 3 the init waits, before anything runs, until the supervisor has
 * put it in the cgroup and sent it the final list of rlimits (a controller
 * that is missing falls back to its rlimit then).
 *
 * RLIMIT_NPROC does not bind a process whose real uid is the host's root
 * (copy_process exempts INIT_USER), and root inside the sandbox is the
 * host's root mapped 1:1. So --pids as root without a pids cgroup is
 * refused instead of silently not enforced. A default limit is never
 * refused: where nothing can enforce it (pids for root, memory without a
 * cgroup: RLIMIT_AS would break programs that reserve address space, node
 * among them), the run goes without it and says so.
 *
 * --cpu (seconds) is always RLIMIT_CPU, per process: a cgroup throttles CPU
 * use (--cpus, cpu.max), it does not stop it. --file-size is RLIMIT_FSIZE.
 */
#include "sandbox/internal.h"

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"

#define CGROUP_ROOT "/sys/fs/cgroup"

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

/* Make <hierarchy>/<own cgroup>/agenttask-<pid> for controller; its path in dir. */
static int make_cgroup(const char *controller, unsigned int seq, char *dir, size_t size)
{
	char own[256], base[400];
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
	at_sb_cg_sweep(base, "agenttask-");
	if (at_fmt(dir, size, "%s/agenttask-%ld-%u", base, (long)getpid(), seq) < 0)
		return -1;
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -1;
	return 0;
}

/* dir's tasks file, for the init to write itself into; -1. */
static int open_tasks(const char *dir)
{
	char path[600];

	if (at_fmt(path, sizeof(path), "%s/tasks", dir) < 0)
		return -1;
	return open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
}

static int try_cgroup(struct at_sb_cgroup *cg, const char *controller, const char *file,
		      uint64_t value, const char *also)
{
	char dir[512], val[32];

	if (cg->ndirs >= (int)(sizeof(cg->dirs) / sizeof(cg->dirs[0])))
		return -1;
	if (make_cgroup(controller, cg->seq, dir, sizeof(dir)) < 0)
		return -1;
	snprintf(val, sizeof(val), "%llu", (unsigned long long)value);
	if (at_sb_cg_write(dir, file, val) < 0 || (cg->tasks_fd[cg->ndirs] = open_tasks(dir)) < 0) {
		rmdir(dir);
		return -1;
	}
	/* Swap too, where accounted: else the limit only moves pages to swap. */
	if (also)
		(void)at_sb_cg_write(dir, also, val);
	memcpy(cg->dirs[cg->ndirs++], dir, sizeof(dir));
	return 0;
}

/* The limits a cgroup can hold for the whole tree. */
static bool tree_limit(int l)
{
	return l == AT_LIMIT_MEMORY || l == AT_LIMIT_PIDS || l == AT_LIMIT_CPUS;
}

static bool wanted(const struct at_sandbox_spec *o, bool *want)
{
	bool any = false;
	int i;

	for (i = 0; i < AT_LIMIT_COUNT; i++) {
		want[i] = o->proc.limits.value[i] && tree_limit(i);
		any |= want[i];
	}
	return any;
}

/* cgroup v1: one cgroup per controller; held[i] cleared where that fails. */
static void try_v1(struct at_sb_cgroup *cg, const uint64_t *limits, bool *held)
{
	if (held[AT_LIMIT_MEMORY] &&
	    try_cgroup(cg, "memory", "memory.limit_in_bytes", limits[AT_LIMIT_MEMORY],
		       "memory.memsw.limit_in_bytes") < 0)
		held[AT_LIMIT_MEMORY] = false;
	/* +1: the sandbox's init is in the cgroup and in the count too. */
	if (held[AT_LIMIT_PIDS] &&
	    try_cgroup(cg, "pids", "pids.max", limits[AT_LIMIT_PIDS] + 1, NULL) < 0)
		held[AT_LIMIT_PIDS] = false;
	/* The default period is 100 ms: the quota is thousandths of a CPU * 100 us. */
	if (held[AT_LIMIT_CPUS] &&
	    try_cgroup(cg, "cpu", "cpu.cfs_quota_us", limits[AT_LIMIT_CPUS] * 100, NULL) < 0)
		held[AT_LIMIT_CPUS] = false;
	if (cg->ndirs > 0) {
		cg->tree = AT_MECH_CGROUP_V1;
		cg->need_sync = true;
	}
}

/* What the cgroup does not hold: an rlimit, not applied (a default), or refused. */
static int fall_back(const struct at_sandbox_spec *o, const bool *held, enum at_limit_mech tree,
		     enum at_limit_mech *mech, struct at_error *err)
{
	int i;

	for (i = 0; i < AT_LIMIT_COUNT; i++) {
		bool dflt = o->proc.limits.defaults & (1u << i);

		mech[i] = AT_MECH_NONE;
		if (!o->proc.limits.value[i])
			continue;
		if (held[i])
			mech[i] = tree;
		else if (i == AT_LIMIT_CPU || i == AT_LIMIT_FSIZE)
			mech[i] = AT_MECH_RLIMIT;
		else if (dflt)
			mech[i] = i == AT_LIMIT_PIDS && getuid() != 0 ? AT_MECH_RLIMIT
								       : AT_MECH_UNENFORCED;
		else if (i == AT_LIMIT_MEMORY || (i == AT_LIMIT_PIDS && getuid() != 0))
			mech[i] = AT_MECH_RLIMIT;
		else if (i == AT_LIMIT_PIDS)
			return at_error_set(err, AT_ESANDBOX,
					    "cannot enforce --pids: no pids cgroup, and "
					    "RLIMIT_NPROC does not bind root");
		else
			return at_error_set(err, AT_ESANDBOX,
					    "cannot enforce --cpus: no cgroup with the cpu "
					    "controller here");
	}
	return 0;
}

static void cgroup_init(struct at_sb_cgroup *cg)
{
	static unsigned int seq;
	int i;

	memset(cg, 0, sizeof(*cg));
	cg->into_fd = -1;
	for (i = 0; i < (int)(sizeof(cg->tasks_fd) / sizeof(cg->tasks_fd[0])); i++)
		cg->tasks_fd[i] = -1;
	cg->oom_kills = cg->pids_refused = -1;
	cg->seq = seq++;
}

/* A delegated v2 subtree: the run's cgroup made, limited, opened for clone3. */
static bool try_delegated(struct at_sb_cgroup *cg, const struct at_sandbox_spec *o, bool *held)
{
	if (at_sb_cg2_delegated(cg->scope, held, cg->v2_dir, sizeof(cg->v2_dir)) < 0)
		return false;
	memcpy(cg->dirs[0], cg->v2_dir, sizeof(cg->dirs[0]));
	cg->ndirs = 1;
	at_sb_cg2_write_limits(cg->v2_dir, o->proc.limits.value, held);
	cg->into_fd = open(cg->v2_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cg->into_fd < 0) {
		rmdir(cg->v2_dir);
		cg->ndirs = 0;
		cg->v2_dir[0] = '\0';
		return false;
	}
	cg->tree = AT_MECH_CGROUP_V2;
	return true;
}

int at_sb_limits_prepare(const struct at_sandbox_spec *o, enum at_limit_mech *mech,
			 struct at_sb_cgroup *cg, struct at_error *err)
{
	bool held[AT_LIMIT_COUNT];

	cgroup_init(cg);
	if (!wanted(o, held))
		return fall_back(o, held, AT_MECH_NONE, mech, err);
	if (at_sb_cg2_unified()) {
		/* Under systemd: asked whether our cgroup is delegated, else for a scope. */
		(void)at_sb_scope_connect(&cg->scope);
		if (try_delegated(cg, o, held)) {
			at_sb_scope_free(cg->scope);
			cg->scope = NULL;
			return fall_back(o, held, cg->tree, mech, err);
		}
		if (cg->scope) {
			/* As hoped for; settled in at_sb_limits_attach, once the init exists. */
			cg->tree = AT_MECH_SYSTEMD;
			cg->need_sync = true;
			return fall_back(o, held, cg->tree, mech, err);
		}
		memset(held, 0, sizeof(held));
	} else {
		try_v1(cg, o->proc.limits.value, held);
	}
	if (fall_back(o, held, cg->tree, mech, err) < 0) {
		at_sb_limits_release(cg);
		return err->code;
	}
	return 0;
}

/* By its pid (cgroup.procs): doctor's sleeper, a v2 cgroup that clone3 could not use. */
static int attach_pid(const struct at_sb_cgroup *cg, int pid, struct at_error *err)
{
	char val[32];
	int i;

	snprintf(val, sizeof(val), "%d", pid);
	for (i = 0; i < cg->ndirs; i++) {
		if (at_sb_cg_write(cg->dirs[i], "cgroup.procs", val) < 0)
			return at_error_sys(err, AT_ESANDBOX, "cannot move the sandbox into '%s'",
					    cg->dirs[i]);
	}
	return 0;
}

/* The kernel's struct clone_args (linux/sched.h clashes with glibc's sched.h). */
struct sb_clone_args {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls,
		set_tid, set_tid_size, cgroup;
};
#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ULL
#endif

long at_sb_limits_clone(struct at_sb_cgroup *cg, unsigned long flags, bool *wait_sync)
{
	struct sb_clone_args ca;
	long pid;

	if (cg->into_fd >= 0) {
		memset(&ca, 0, sizeof(ca));
		ca.flags = (flags & ~(unsigned long)CSIGNAL) | CLONE_INTO_CGROUP;
		ca.exit_signal = SIGCHLD;
		ca.cgroup = (uint64_t)cg->into_fd;
		pid = syscall(SYS_clone3, &ca, sizeof(ca));
		if (pid >= 0 || (errno != ENOSYS && errno != E2BIG && errno != EINVAL))
			return pid;
		/* Before 5.7: moved in by cgroup.procs, like a v1 cgroup. */
		close(cg->into_fd);
		cg->into_fd = -1;
		cg->need_sync = *wait_sync = true;
	}
	return syscall(SYS_clone, flags, NULL, NULL, NULL, 0);
}

/* Move the init in: a v1 cgroup, a v2 one clone3 could not use, a systemd scope. */
static int move_in(struct at_sb_cgroup *cg, const struct at_sandbox_spec *o, int pid,
		   enum at_limit_mech *mech, struct at_error *err)
{
	struct at_error serr = AT_ERROR_INIT;
	bool held[AT_LIMIT_COUNT];
	int i;

	if (cg->tree == AT_MECH_CGROUP_V1 && cg->self_join)
		return 0;
	if (cg->tree == AT_MECH_CGROUP_V1 || (cg->tree == AT_MECH_CGROUP_V2 && cg->into_fd < 0))
		return attach_pid(cg, pid, err);
	if (cg->tree != AT_MECH_SYSTEMD)
		return 0;
	wanted(o, held);
	if (at_sb_scope_start(cg->scope, pid, o->proc.limits.value, held, cg->v2_dir, sizeof(cg->v2_dir),
			      &serr) == 0) {
		/* A controller the manager was not given is not in its scope. */
		for (i = 0; i < AT_LIMIT_COUNT; i++)
			held[i] = held[i] && at_sb_cg2_has(cg->v2_dir, (enum at_limit)i);
	} else {
		memset(held, 0, sizeof(held));
		cg->tree = AT_MECH_NONE;
		cg->v2_dir[0] = '\0';
		snprintf(cg->why_not, sizeof(cg->why_not), "%s", serr.msg);
	}
	return fall_back(o, held, cg->tree, mech, err);
}

int at_sb_limits_attach(struct at_sb_cgroup *cg, const struct at_sandbox_spec *o, int pid,
			enum at_limit_mech *mech, int sync_fd, struct at_error *err)
{
	struct at_sb_sync msg;
	int i;

	if (move_in(cg, o, pid, mech, err) < 0)
		return err->code;
	memset(&msg, 0, sizeof(msg));
	for (i = 0; i < AT_LIMIT_COUNT; i++)
		msg.rlimit[i] = mech[i] == AT_MECH_RLIMIT;
	msg.own_cgroup = cg->tree != AT_MECH_NONE;
	if (write(sync_fd, &msg, sizeof(msg)) != (ssize_t)sizeof(msg))
		return at_error_sys(err, AT_ESANDBOX, "cannot start the sandbox");
	/* The init goes on meanwhile: the sweep is off its path. */
	if (cg->scope && cg->tree == AT_MECH_SYSTEMD)
		at_sb_scope_sweep(cg->scope, cg->v2_dir);
	at_sb_scope_free(cg->scope);
	cg->scope = NULL;
	return 0;
}

void at_sb_limits_collect(struct at_sb_cgroup *cg)
{
	char path[640];
	int i;

	if (cg->collected)
		return;
	cg->collected = true;
	if (cg->tree == AT_MECH_CGROUP_V2 || cg->tree == AT_MECH_SYSTEMD) {
		at_sb_cg2_events(cg->v2_dir, &cg->oom_kills, &cg->pids_refused);
		return;
	}
	for (i = 0; cg->tree == AT_MECH_CGROUP_V1 && i < cg->ndirs; i++) {
		if (strncmp(cg->dirs[i], CGROUP_ROOT "/memory/", 22) == 0 &&
		    at_fmt(path, sizeof(path), "%s/memory.oom_control", cg->dirs[i]) == 0)
			cg->oom_kills = at_sb_cg_key(path, "oom_kill");
		if (strncmp(cg->dirs[i], CGROUP_ROOT "/pids/", 20) == 0 &&
		    at_fmt(path, sizeof(path), "%s/pids.events", cg->dirs[i]) == 0)
			cg->pids_refused = at_sb_cg_key(path, "max");
	}
}

void at_sb_limits_view(struct at_sb_cgroup *cg, struct at_sb_cg *v)
{
	char real[PATH_MAX];
	int i;

	memset(v, 0, sizeof(*v));
	for (i = 0; i < AT_SB_CG_V1_MAX; i++)
		v->fd[i] = -1;
	if (cg->tree == AT_MECH_CGROUP_V2 || cg->tree == AT_MECH_SYSTEMD) {
		v->view = SB_CG_V2;
		return;
	}
	for (i = 0; cg->tree == AT_MECH_CGROUP_V1 && i < cg->ndirs && v->n < AT_SB_CG_V1_MAX; i++) {
		const char *ctl = cg->dirs[i] + strlen(CGROUP_ROOT "/");
		size_t n = strcspn(ctl, "/");

		if (n == 0 || n >= sizeof(cg->view_name[0]) || !realpath(cg->dirs[i], real) ||
		    at_fmt(cg->view_dir[v->n], sizeof(cg->view_dir[0]), "%s", real) < 0)
			continue;
		memcpy(cg->view_name[v->n], ctl, n);
		cg->view_name[v->n][n] = '\0';
		v->dir[v->n] = cg->view_dir[v->n];
		v->name[v->n] = cg->view_name[v->n];
		v->n++;
	}
	v->view = v->n ? SB_CG_V1 : SB_CG_NONE;
}

void at_sb_limits_join(struct at_sb_cgroup *cg, struct at_sb_join *j)
{
	int i;

	memset(j, 0, sizeof(*j));
	if (cg->tree != AT_MECH_CGROUP_V1)
		return;
	for (i = 0; i < cg->ndirs && i < AT_SB_CG_V1_MAX; i++) {
		j->fd[i] = cg->tasks_fd[i];
		j->dir[i] = cg->dirs[i];
	}
	j->n = i;
	cg->self_join = true;
}

void at_sb_limits_release(struct at_sb_cgroup *cg)
{
	int i, tries;

	if (cg->into_fd >= 0)
		close(cg->into_fd);
	cg->into_fd = -1;
	for (i = 0; i < cg->ndirs; i++) {
		if (cg->tasks_fd[i] >= 0)
			close(cg->tasks_fd[i]);
		cg->tasks_fd[i] = -1;
	}
	at_sb_scope_free(cg->scope);
	cg->scope = NULL;
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

/*
 * Why the run was stopped, from the command's status and the cgroup's
 * counters: an OOM kill makes the run's status 137 (the killed process
 * may not have been the command, whose failure followed from it).
 */
void at_sb_limits_result(struct at_sb_cgroup *cg, const struct at_sandbox_spec *o,
			 struct at_run_result *res)
{
	/* A shell reports its child's death as 128+N: read it as the signal. */
	int sig = res->term_signal ? res->term_signal
		  : res->exit_code > 128 && res->exit_code < 128 + 65 ? res->exit_code - 128 : 0;

	at_sb_limits_collect(cg);
	snprintf(res->limits_note, sizeof(res->limits_note), "%s", cg->why_not);
	res->oom_kills = cg->oom_kills;
	res->pids_refused = cg->pids_refused;
	if (res->timed_out) {
		res->stop = AT_STOP_TIMEOUT;
	} else if (res->exit_code != 0 && cg->oom_kills > 0) {
		res->stop = AT_STOP_OOM;
		res->exit_code = 128 + SIGKILL;
	} else if (o->proc.limits.value[AT_LIMIT_CPU] &&
		   (sig == SIGXCPU ||
		    (sig == SIGKILL && (uint64_t)(res->user_cpu_ms + res->sys_cpu_ms) >=
					       o->proc.limits.value[AT_LIMIT_CPU] * 1000))) {
		res->stop = AT_STOP_CPU;
	} else if (o->proc.limits.value[AT_LIMIT_FSIZE] && sig == SIGXFSZ) {
		res->stop = AT_STOP_FSIZE;
	} else if (res->exit_code != 0 && cg->pids_refused > 0) {
		res->stop = AT_STOP_PIDS;
	}
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

static uint64_t ram_bytes(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);

	return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : 0;
}

void at_sandbox_defaults(struct at_limits *l)
{
	uint64_t mem = ram_bytes() / 100 * AT_SANDBOX_DEFAULT_MEMORY_PERCENT;

	if (mem < (256ULL << 20))
		mem = 256ULL << 20;
	if (!l->value[AT_LIMIT_PIDS]) {
		l->value[AT_LIMIT_PIDS] = AT_SANDBOX_DEFAULT_PIDS;
		l->defaults |= 1u << AT_LIMIT_PIDS;
	}
	if (!l->value[AT_LIMIT_MEMORY]) {
		l->value[AT_LIMIT_MEMORY] = mem;
		l->defaults |= 1u << AT_LIMIT_MEMORY;
	}
}
