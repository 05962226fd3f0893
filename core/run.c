#include "core/run.h"

#include <stdlib.h>
#include <string.h>

static const char *const limit_names[AT_LIMIT_COUNT] = {
	[AT_LIMIT_MEMORY] = "memory", [AT_LIMIT_PIDS] = "pids", [AT_LIMIT_CPU] = "cpu",
	[AT_LIMIT_FSIZE] = "file-size", [AT_LIMIT_CPUS] = "cpus",
};

static const char *const mech_names[AT_MECH_COUNT] = {
	[AT_MECH_NONE] = "none", [AT_MECH_CGROUP_V2] = "cgroup-v2",
	[AT_MECH_SYSTEMD] = "systemd-scope", [AT_MECH_CGROUP_V1] = "cgroup-v1",
	[AT_MECH_RLIMIT] = "rlimit", [AT_MECH_UNENFORCED] = "unenforced",
};

static const char *const stop_names[AT_STOP_COUNT] = {
	[AT_STOP_TIMEOUT] = "timeout", [AT_STOP_OOM] = "oom", [AT_STOP_PIDS] = "pids",
	[AT_STOP_CPU] = "cpu", [AT_STOP_FSIZE] = "file-size",
};

const char *at_limit_name(enum at_limit l)
{
	return (unsigned int)l < AT_LIMIT_COUNT ? limit_names[l] : "?";
}

const char *at_limit_mech_name(enum at_limit_mech m)
{
	return (unsigned int)m < AT_MECH_COUNT ? mech_names[m] : "?";
}

const char *at_run_stop_name(enum at_run_stop s)
{
	return (unsigned int)s < AT_STOP_COUNT ? stop_names[s] : NULL;
}

const char *at_limit_mech_note(enum at_limit l, enum at_limit_mech m)
{
	if (m == AT_MECH_UNENFORCED)
		return l == AT_LIMIT_MEMORY
			       ? "not enforced: no cgroup here, and RLIMIT_AS would break programs "
				 "that reserve address space"
			       : "not enforced: no cgroup here, and RLIMIT_NPROC does not bind root";
	if (m != AT_MECH_RLIMIT)
		return NULL;
	switch (l) {
	case AT_LIMIT_MEMORY:
		return "RLIMIT_AS, per process: address space, not memory used; the tree may use "
		       "many times the limit, and programs that reserve address space fail";
	case AT_LIMIT_PIDS:
		return "RLIMIT_NPROC: the processes of this uid in the sandbox's user namespace";
	case AT_LIMIT_CPU:
		return "RLIMIT_CPU, per process: the tree may use the limit many times over";
	case AT_LIMIT_FSIZE:
		return "RLIMIT_FSIZE, per file written: not the disk space used";
	default:
		return NULL;
	}
}

/* The one table of the setup steps: a name, and what it means when it fails. */
static const struct {
	const char *name;
	const char *failure;
} steps[AT_STEP_COUNT] = {
	[AT_STEP_NONE] = { "none", "sandbox setup failed" },
	[AT_STEP_CLONE] = { "clone", "cannot create the sandbox's namespaces" },
	[AT_STEP_JOIN] = { "join", "cannot move the sandbox into '%s'" },
	[AT_STEP_SYNC] = { "sync", "cannot start the sandbox" },
	[AT_STEP_IDMAP] = { "idmap+cgroup", "cannot write the sandbox's %s" },
	[AT_STEP_CGROUPNS] = { "cgroupns", "cannot create the cgroup namespace" },
	[AT_STEP_HOSTNAME] = { "hostname", "cannot set the sandbox's host name" },
	[AT_STEP_NET] = { "net", "cannot bring up the loopback interface" },
	[AT_STEP_LISTEN] = { "listen", "cannot listen on the sandbox's loopback" },
	[AT_STEP_PRIVATE] = { "private", "cannot make the mount tree private" },
	[AT_STEP_SOURCE] = { "source", "cannot open '%s'" },
	[AT_STEP_ROOT] = { "root", "cannot mount the sandbox's root tmpfs" },
	[AT_STEP_MKPATH] = { "mkpath", "cannot create mount point '/%s'" },
	[AT_STEP_BIND] = { "bind", "cannot bind-mount '%s'" },
	[AT_STEP_TMPFS] = { "tmpfs", "cannot mount a tmpfs on '/%s'" },
	[AT_STEP_PROC] = { "proc", "cannot mount /proc" },
	[AT_STEP_DEVPTS] = { "devpts", "cannot mount /dev/pts" },
	[AT_STEP_SYMLINK] = { "symlink", "cannot create symbolic link '/%s'" },
	[AT_STEP_FILE] = { "file", "cannot write '/%s'" },
	[AT_STEP_RDONLY] = { "rdonly", "cannot make '/%s' read-only" },
	[AT_STEP_OVERLAY] = { "overlay", "cannot mount an overlay on '/%s'" },
	[AT_STEP_CGROUP] = { "cgroup", "cannot show the run's cgroup at '/%s'" },
	[AT_STEP_MOUNTS] = { "mounts", "cannot assemble the sandbox's root" },
	[AT_STEP_PIVOT] = { "pivot_root", "cannot pivot_root into the new root" },
	[AT_STEP_CHDIR] = { "chdir", "cannot change directory to '%s'" },
	[AT_STEP_PTY] = { "pty", "cannot make the sandbox's terminal" },
	[AT_STEP_CAPS] = { "capabilities", "cannot drop capabilities" },
	[AT_STEP_PRIVS] = { "privileges", "cannot set no_new_privs" },
	[AT_STEP_FORK] = { "fork", "cannot fork the command" },
	[AT_STEP_SIGNALS] = { "signals", "cannot restore the signal mask" },
	[AT_STEP_SETSID] = { "setsid", "cannot start a new session" },
	[AT_STEP_CTTY] = { "ctty", "cannot make the pty the command's terminal" },
	[AT_STEP_FDS] = { "fds", "cannot set up the command's file descriptors" },
	[AT_STEP_RLIMIT] = { "rlimits", "cannot set the %s limit" },
	[AT_STEP_EXEC] = { "exec", "cannot execute the command" },
	[AT_STEP_SECCOMP] = { "seccomp", "cannot load the seccomp filter" },
	[AT_STEP_EXITED] = { "exited", "the command's end was not seen" },
	[AT_STEP_DONE] = { "done", "the sandbox ended without a status" },
};

const char *at_run_step_name(enum at_run_step s)
{
	return (unsigned int)s < AT_STEP_COUNT && steps[s].name ? steps[s].name : "?";
}

const char *at_run_step_failure(enum at_run_step s)
{
	return (unsigned int)s < AT_STEP_COUNT && steps[s].failure ? steps[s].failure
								     : "sandbox setup failed";
}

void at_run_result_init(struct at_run_result *res)
{
	int i;

	memset(res, 0, sizeof(*res));
	res->prepare_us = -1;
	res->oom_kills = res->pids_refused = -1;
	for (i = 0; i < AT_STEP_COUNT; i++)
		res->step_us[i] = -1;
}

void at_run_result_release(struct at_run_result *res)
{
	if (!res)
		return;
	free(res->out);
	free(res->err);
	free(res->output);
	res->out = res->err = res->output = NULL;
}
