/*
 * scope.c - a transient systemd scope for a run, asked for over D-Bus.
 *
 * On a systemd machine with the unified hierarchy the cgroups belong to
 * systemd: a process may only have one of its own by asking the manager.
 * agenttask asks the manager of its user (the system manager for root) to
 * StartTransientUnit a scope "agenttask-run-<pid>-<n>.scope" holding the
 * sandbox's init, Delegate=yes, with the limits as the unit's properties
 * (TasksMax, MemoryMax, MemoryHigh at 90%, MemorySwapMax 0,
 * CPUQuotaPerSecUSec): systemd writes pids.max, memory.max, memory.high,
 * memory.swap.max and cpu.max. The whole sandbox tree is born in it (the
 * init waits until it is in: at_sb_limits_attach). When its last process
 * is gone systemd stops the scope and removes its cgroup (CollectMode
 * inactive-or-failed: a failed one too).
 *
 * The manager is reached on its private socket first, as systemctl does
 * ($XDG_RUNTIME_DIR/systemd/private, /run/systemd/private): no bus daemon in
 * between; then on the user or system bus.
 *
 * libsystemd is loaded with dlopen() here, the first time a scope is
 * wanted, not linked: linked, its eight libraries would be loaded and
 * relocated at the start of every agenttask command (0.9 ms each time,
 * measured), `diff` and `new` included. It is Debian's libsystemd0, which
 * every systemd machine has; without it there is no scope, and the limits
 * fall back as where systemd does not run. Only the functions below are
 * looked up, each checked.
 */
#include "sandbox/internal.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"

#define SD_DEST "org.freedesktop.systemd1"
#define SD_PATH "/org/freedesktop/systemd1"
#define SD_MANAGER "org.freedesktop.systemd1.Manager"
#define CALL_TIMEOUT_US (10 * 1000 * 1000)
#define MOVE_TIMEOUT_MS 5000

/*
 * The functions of libsystemd we use: each field is named after its function
 * (sd_ + name) and typed from its declaration in <systemd/sd-bus.h>, so that
 * a pointer looked up by name is called as the header declares it (systemd's
 * DLSYM_ARG), never through a cast written by hand.
 */
#define SDB_FN(name) __typeof__(&sd_##name) name

struct sdb {
	void *lib;
	SDB_FN(bus_new);
	SDB_FN(bus_set_address);
	SDB_FN(bus_start);
	SDB_FN(bus_open_user);
	SDB_FN(bus_open_system);
	SDB_FN(bus_flush_close_unref);
	SDB_FN(bus_message_new_method_call);
	SDB_FN(bus_message_append);
	SDB_FN(bus_message_open_container);
	SDB_FN(bus_message_close_container);
	SDB_FN(bus_message_read);
	SDB_FN(bus_message_unref);
	SDB_FN(bus_call);
	SDB_FN(bus_match_signal);
	SDB_FN(bus_process);
	SDB_FN(bus_wait);
	SDB_FN(bus_slot_unref);
	SDB_FN(bus_error_free);
	SDB_FN(bus_call_method);
	SDB_FN(bus_get_property_trivial);
};

#define SYM(name) { offsetof(struct sdb, name), "sd_" #name }
static const struct {
	size_t off;
	const char *name;
} symbols[] = {
	SYM(bus_new),
	SYM(bus_set_address),
	SYM(bus_start),
	SYM(bus_open_user),
	SYM(bus_open_system),
	SYM(bus_flush_close_unref),
	SYM(bus_message_new_method_call),
	SYM(bus_message_append),
	SYM(bus_message_open_container),
	SYM(bus_message_close_container),
	SYM(bus_message_read),
	SYM(bus_message_unref),
	SYM(bus_call),
	SYM(bus_match_signal),
	SYM(bus_process),
	SYM(bus_wait),
	SYM(bus_slot_unref),
	SYM(bus_error_free),
	SYM(bus_call_method),
	SYM(bus_get_property_trivial),
};

struct at_sb_scope {
	struct sdb f;
	sd_bus *bus;
	const char *job;          /* the job we wait for, while we wait */
	char result[32];          /* its result, once JobRemoved came */
	bool job_done;
};

static int load(struct sdb *f)
{
	size_t i;

	f->lib = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL);
	if (!f->lib)
		return -1;
	for (i = 0; i < sizeof(symbols) / sizeof(symbols[0]); i++) {
		void *sym = dlsym(f->lib, symbols[i].name);

		if (!sym) {
			dlclose(f->lib);
			f->lib = NULL;
			return -1;
		}
		memcpy((char *)f + symbols[i].off, &sym, sizeof(sym));
	}
	return 0;
}

/* The manager's private socket: no bus daemon needed, as systemctl does. */
static int connect_private(struct at_sb_scope *s)
{
	char addr[300], path[256];
	const char *rt = getenv("XDG_RUNTIME_DIR");
	struct stat st;

	if (getuid() == 0)
		snprintf(path, sizeof(path), "/run/systemd/private");
	else if (rt && rt[0] == '/')
		snprintf(path, sizeof(path), "%s/systemd/private", rt);
	else
		snprintf(path, sizeof(path), "/run/user/%u/systemd/private", (unsigned)getuid());
	/* Our own manager's socket, or none: never another user's. */
	if (lstat(path, &st) < 0 || !S_ISSOCK(st.st_mode) || st.st_uid != getuid())
		return -1;
	if (at_fmt(addr, sizeof(addr), "unix:path=%s", path) < 0)
		return -1;
	if (s->f.bus_new(&s->bus) < 0)
		return -1;
	if (s->f.bus_set_address(s->bus, addr) < 0 || s->f.bus_start(s->bus) < 0) {
		s->bus = s->f.bus_flush_close_unref(s->bus);
		return -1;
	}
	return 0;
}

int at_sb_scope_connect(struct at_sb_scope **out)
{
	struct at_sb_scope *s;

	*out = NULL;
	/* systemd is the init, and the hierarchy is the unified one. */
	if (access("/run/systemd/system", F_OK) < 0 || !at_sb_cg2_unified())
		return -1;
	s = calloc(1, sizeof(*s));
	if (!s || load(&s->f) < 0) {
		free(s);
		return -1;
	}
	if (connect_private(s) < 0 &&
	    (getuid() == 0 ? s->f.bus_open_system(&s->bus) : s->f.bus_open_user(&s->bus)) < 0) {
		s->bus = NULL;
		at_sb_scope_free(s);
		return -1;
	}
	*out = s;
	return 0;
}

void at_sb_scope_free(struct at_sb_scope *s)
{
	if (!s)
		return;
	if (s->bus)
		s->f.bus_flush_close_unref(s->bus);
	/* The library stays loaded: unloading it is never needed, and unsafe under ASan. */
	free(s);
}

bool at_sb_scope_delegated(struct at_sb_scope *s)
{
	static const char *const ifaces[] = { "org.freedesktop.systemd1.Scope",
					      "org.freedesktop.systemd1.Service" };
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	const char *unit = NULL;
	int yes = 0, r;
	size_t i;

	if (!s)
		return false;
	r = s->f.bus_call_method(s->bus, SD_DEST, SD_PATH, SD_MANAGER, "GetUnitByPID", &e, &reply, "u",
			     (uint32_t)getpid());
	if (r >= 0)
		r = s->f.bus_message_read(reply, "o", &unit);
	for (i = 0; r >= 0 && i < sizeof(ifaces) / sizeof(ifaces[0]); i++) {
		s->f.bus_error_free(&e);
		if (s->f.bus_get_property_trivial(s->bus, SD_DEST, unit, ifaces[i], "Delegate", &e, 'b',
					      &yes) >= 0)
			break;
	}
	s->f.bus_error_free(&e);
	s->f.bus_message_unref(reply);
	return yes != 0;
}

static int on_job_removed(sd_bus_message *m, void *arg, sd_bus_error *e)
{
	struct at_sb_scope *s = arg;
	const char *path = NULL, *unit = NULL, *result = NULL;
	uint32_t id;

	(void)e;
	if (s->f.bus_message_read(m, "uoss", &id, &path, &unit, &result) < 0 || !s->job)
		return 0;
	if (path && strcmp(path, s->job) == 0) {
		snprintf(s->result, sizeof(s->result), "%s", result ? result : "");
		s->job_done = true;
	}
	return 0;
}

static int append_prop(struct at_sb_scope *s, sd_bus_message *m, const char *name,
		       const char *type, uint64_t v)
{
	return s->f.bus_message_append(m, "(sv)", name, type, v);
}

/* The scope's properties: what it holds, and the limits. */
static int append_props(struct at_sb_scope *s, sd_bus_message *m, int pid,
			const uint64_t *limits, const bool *want)
{
	int r = s->f.bus_message_open_container(m, 'a', "(sv)");

	if (r >= 0)
		r = s->f.bus_message_append(m, "(sv)", "Description", "s", "agenttask run");
	if (r >= 0)
		r = s->f.bus_message_append(m, "(sv)", "PIDs", "au", 1, (uint32_t)pid);
	if (r >= 0)
		r = s->f.bus_message_append(m, "(sv)", "Delegate", "b", 1);
	if (r >= 0)
		r = s->f.bus_message_append(m, "(sv)", "CollectMode", "s", "inactive-or-failed");
	if (r >= 0 && want[AT_LIMIT_PIDS])
		r = append_prop(s, m, "TasksMax", "t", limits[AT_LIMIT_PIDS] + 1);
	if (r >= 0 && want[AT_LIMIT_MEMORY])
		r = append_prop(s, m, "MemoryMax", "t", limits[AT_LIMIT_MEMORY]);
	if (r >= 0 && want[AT_LIMIT_MEMORY])
		r = append_prop(s, m, "MemoryHigh", "t", limits[AT_LIMIT_MEMORY] / 10 * 9);
	if (r >= 0 && want[AT_LIMIT_MEMORY])
		r = append_prop(s, m, "MemorySwapMax", "t", 0);
	if (r >= 0 && want[AT_LIMIT_CPUS])
		r = append_prop(s, m, "CPUQuotaPerSecUSec", "t", limits[AT_LIMIT_CPUS] * 1000);
	if (r >= 0)
		r = s->f.bus_message_close_container(m);
	if (r >= 0)
		r = s->f.bus_message_append(m, "a(sa(sv))", 0);
	return r;
}

/* StartTransientUnit; the job's path in job (owned by reply). */
static int start_unit(struct at_sb_scope *s, const char *name, int pid, const uint64_t *limits,
		      const bool *want, sd_bus_message **reply, const char **job,
		      struct at_error *err)
{
	sd_bus_message *m = NULL;
	sd_bus_error e = SD_BUS_ERROR_NULL;
	int r;

	r = s->f.bus_message_new_method_call(s->bus, &m, SD_DEST, SD_PATH, SD_MANAGER,
					 "StartTransientUnit");
	if (r >= 0)
		r = s->f.bus_message_append(m, "ss", name, "fail");
	if (r >= 0)
		r = append_props(s, m, pid, limits, want);
	if (r >= 0)
		r = s->f.bus_call(s->bus, m, CALL_TIMEOUT_US, &e, reply);
	if (r >= 0)
		r = s->f.bus_message_read(*reply, "o", job);
	if (r < 0)
		at_error_set(err, AT_ESANDBOX, "systemd did not start the scope '%s': %s", name,
			     e.message ? e.message : strerror(-r));
	s->f.bus_error_free(&e);
	s->f.bus_message_unref(m);
	return r < 0 ? -1 : 0;
}

static int wait_job(struct at_sb_scope *s, const char *name, struct at_error *err)
{
	int64_t end = at_mono_ms() + CALL_TIMEOUT_US / 1000;

	while (!s->job_done && at_mono_ms() < end) {
		int r = s->f.bus_process(s->bus, NULL);

		if (r < 0)
			break;
		if (r == 0)
			s->f.bus_wait(s->bus, 100 * 1000);
	}
	if (!s->job_done)
		return at_error_set(err, AT_ESANDBOX, "systemd did not start the scope '%s' in time",
				    name);
	if (strcmp(s->result, "done") != 0)
		return at_error_set(err, AT_ESANDBOX, "systemd's job for the scope '%s' ended '%s'",
				    name, s->result);
	return 0;
}

/*
 * The job is done before the init is in the scope where a user manager had
 * to ask the system manager to move it (from a login session's scope, which
 * the user does not own): wait for the kernel to say so.
 */
static int wait_moved(int pid, const char *name, char *dir, size_t size, struct at_error *err)
{
	int64_t end = at_mono_ms() + MOVE_TIMEOUT_MS;
	char cg[400];
	size_t n = strlen(name);

	for (;;) {
		if (at_sb_cg2_of(pid, cg, sizeof(cg)) == 0 && strlen(cg) > n &&
		    strcmp(cg + strlen(cg) - n, name) == 0 && cg[strlen(cg) - n - 1] == '/')
			break;
		if (at_mono_ms() >= end)
			return at_error_set(err, AT_ESANDBOX,
					    "the sandbox was not moved into the scope '%s'", name);
		usleep(1000);
	}
	if (at_fmt(dir, size, "/sys/fs/cgroup%s", cg) < 0)
		return at_error_set(err, AT_ESANDBOX, "cgroup path too long '%s'", cg);
	return 0;
}

/*
 * The scopes that killed agenttasks left, beside ours. Where a user
 * manager asks the system manager to move the init in, the scope's cgroup
 * exists before the init is in it; an agenttask
 * killed then takes its init with it before the move, the cgroup is never
 * populated, systemd never hears it become empty, and the scope stays
 * active until the user's manager stops (seen after a fork bomb, when the
 * managers were slow). So each agenttask-run-PID-N.scope whose PID is gone
 * and whose cgroup holds no process is stopped; no job is waited for. A
 * scope with a process in it is never touched: stopping it would kill.
 */
void at_sb_scope_sweep(struct at_sb_scope *s, const char *dir)
{
	static const char prefix[] = "agenttask-run-", suffix[] = ".scope";
	char parent[400], path[700];
	const char *slash = strrchr(dir, '/');
	struct dirent *e;
	DIR *d;

	if (!slash || (size_t)(slash - dir) >= sizeof(parent))
		return;
	memcpy(parent, dir, (size_t)(slash - dir));
	parent[slash - dir] = '\0';
	d = opendir(parent);
	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		size_t n = strlen(e->d_name);
		sd_bus_error err = SD_BUS_ERROR_NULL;

		if (n < sizeof(suffix) || strcmp(e->d_name + n - (sizeof(suffix) - 1), suffix) != 0 ||
		    !at_sb_cg_orphan(e, prefix))
			continue;
		if (at_fmt(path, sizeof(path), "%s/%s/cgroup.events", parent, e->d_name) < 0 ||
		    at_sb_cg_key(path, "populated") != 0)
			continue;
		(void)s->f.bus_call_method(s->bus, SD_DEST, SD_PATH, SD_MANAGER, "StopUnit", &err, NULL,
				       "ss", e->d_name, "replace");
		s->f.bus_error_free(&err);
	}
	closedir(d);
}

int at_sb_scope_start(struct at_sb_scope *s, int pid, const uint64_t *limits, const bool *want,
		      char *dir, size_t size, struct at_error *err)
{
	static unsigned int seq;
	sd_bus_message *reply = NULL;
	sd_bus_slot *slot = NULL;
	const char *job = NULL;
	char name[96];
	int rc;

	snprintf(name, sizeof(name), "agenttask-run-%ld-%u.scope", (long)getpid(), seq++);
	/* Subscribed before the call: the job may end before its reply is read. */
	if (s->f.bus_match_signal(s->bus, &slot, NULL, SD_PATH, SD_MANAGER, "JobRemoved",
			      on_job_removed, s) < 0)
		return at_error_set(err, AT_ESANDBOX, "cannot watch systemd's jobs");
	rc = start_unit(s, name, pid, limits, want, &reply, &job, err);
	if (rc == 0) {
		s->job = job;
		rc = wait_job(s, name, err);
		s->job = NULL;
	}
	if (rc == 0)
		rc = wait_moved(pid, name, dir, size, err);
	s->f.bus_message_unref(reply);
	s->f.bus_slot_unref(slot);
	return rc < 0 ? -1 : 0;
}
