/*
 * run.h - a sandboxed run as plain data: the limits asked for, the steps of
 * its setup, and its result.
 *
 * sandbox/ fills a struct at_run_result, app/ hands it to the front ends,
 * core/audit.h logs it; none of them needs the others' headers for it.
 */
#ifndef AT_CORE_RUN_H
#define AT_CORE_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The sandbox's fixed HOME and PATH. */
#define AT_RUN_HOME "/home/sandbox"
/* The person's open review comments, read-only inside (app/layout.c; docs/agents.md). */
#define AT_RUN_COMMENTS_DIR "/run/agenttask"
#define AT_RUN_COMMENTS AT_RUN_COMMENTS_DIR "/comments.json"
#define AT_RUN_COMMENTS_ENV "AGENTTASK_COMMENTS"
#define AT_RUN_PATH "/usr/local/bin:/usr/bin:/bin"
/* Output kept of each stream when captured (half head, half tail), unless the caller says. */
#define AT_RUN_CAPTURE_MAX ((size_t)1 << 20)

/*
 * The private tmpfs of a run and their default caps (each also at most a
 * share of the memory limit: sandbox/system.c). `run --tmp-size`,
 * `--shm-size`, `--home-size` set them; HOME's applies where HOME is a
 * tmpfs (`--fresh-home`, the gate's checks), not to a task's lasting home.
 */
enum at_tmpfs {
	AT_TMPFS_TMP,
	AT_TMPFS_SHM,
	AT_TMPFS_HOME,
	AT_TMPFS_COUNT
};
#define AT_TMPFS_TMP_DEFAULT ((uint64_t)512 << 20)
#define AT_TMPFS_SHM_DEFAULT ((uint64_t)64 << 20)
#define AT_TMPFS_HOME_DEFAULT ((uint64_t)256 << 20)

/* Exit statuses of a run, as `agenttask run` returns them. */
enum {
	AT_RUN_TIMEOUT = 124,
	AT_RUN_SETUP = 125,       /* the sandbox could not be set up */
	AT_RUN_CANNOT_EXEC = 126,
	AT_RUN_NOT_FOUND = 127,
};

/* ---- limits: the values asked for, and how each was enforced ---- */

enum at_limit {
	AT_LIMIT_MEMORY,          /* bytes of memory */
	AT_LIMIT_PIDS,            /* processes and threads of the command */
	AT_LIMIT_CPU,             /* seconds of CPU time */
	AT_LIMIT_FSIZE,           /* bytes: largest file the command may write */
	AT_LIMIT_CPUS,            /* CPU bandwidth in thousandths of a CPU (1500: 1.5 CPUs) */
	AT_LIMIT_COUNT
};

/*
 * How a limit was enforced, best first (sandbox/limits.c chooses). The
 * cgroup mechanisms hold the whole tree of the run; an rlimit holds each
 * process on its own (at_limit_mech_note says what that weakens).
 */
enum at_limit_mech {
	AT_MECH_NONE = 0,         /* no limit asked for */
	AT_MECH_CGROUP_V2,        /* cgroup v2: a child of the delegated cgroup agenttask runs in */
	AT_MECH_SYSTEMD,          /* cgroup v2: a transient systemd scope (Delegate=yes) */
	AT_MECH_CGROUP_V1,        /* a per-run cgroup (v1 hierarchy): the whole tree */
	AT_MECH_RLIMIT,           /* setrlimit: per process (NPROC: per user) */
	AT_MECH_UNENFORCED,       /* a default that nothing here can enforce: not applied */
	AT_MECH_COUNT
};

struct at_limits {
	uint64_t value[AT_LIMIT_COUNT];   /* 0: no limit */
	/*
	 * Bit (1 << limit) set: that limit is a default (sandbox/sandbox.h's
	 * at_sandbox_defaults), not asked for. Where nothing can enforce it,
	 * the run goes on without it (AT_MECH_UNENFORCED); an asked-for limit
	 * is refused instead.
	 */
	unsigned int defaults;
};

/* Why a run was stopped, as `run` reports it ("reason" in its JSON). */
enum at_run_stop {
	AT_STOP_NONE = 0,
	AT_STOP_TIMEOUT,          /* --timeout: everything killed (124) */
	AT_STOP_OOM,              /* the memory limit: the kernel's OOM killer (137) */
	AT_STOP_PIDS,             /* the pids limit refused a fork, and the command failed */
	AT_STOP_CPU,              /* --cpu: SIGXCPU, or SIGKILL at the hard limit */
	AT_STOP_FSIZE,            /* --file-size: SIGXFSZ */
	AT_STOP_COUNT
};

/*
 * "memory", "pids", "cpu", "file-size", "cpus"; "none", "cgroup-v2",
 * "systemd-scope", "cgroup-v1", "rlimit", "unenforced" ("?" out of range).
 */
const char *at_limit_name(enum at_limit l);
const char *at_limit_mech_name(enum at_limit_mech m);
/* What enforcing limit l by m weakens (an rlimit, a default unenforced), or NULL. */
const char *at_limit_mech_note(enum at_limit l, enum at_limit_mech m);
/* "timeout", "oom", "pids", "cpu", "file-size"; NULL for AT_STOP_NONE. */
const char *at_run_stop_name(enum at_run_stop s);

/* Whether an interactive command runs on a pty of the supervisor (sandbox/stdio.c). */
enum at_run_tty {
	AT_TTY_AUTO = 0,          /* when stdin is a terminal and output is not captured */
	AT_TTY_FORCE,             /* always (-t); not with capture */
	AT_TTY_NEVER,             /* never (-T): a terminal is passed as it is */
};

/* ---- the steps of a run's setup: one enum, one table (name, what failed) ---- */

enum at_run_step {
	AT_STEP_NONE = 0,
	AT_STEP_CLONE,            /* timed: clone() of the namespaces returned in the child */
	AT_STEP_JOIN,             /* cgroup v1: the init moved itself into the run's cgroups */
	AT_STEP_SYNC,             /* the supervisor alive (and the cgroup joined) */
	AT_STEP_IDMAP,            /* timed: uid/gid maps written */
	AT_STEP_CGROUPNS,
	AT_STEP_HOSTNAME,
	AT_STEP_NET,              /* timed: loopback up (and listening sockets handed over) */
	AT_STEP_LISTEN,           /* the sockets the caller asked for, made and handed over */
	AT_STEP_PRIVATE,          /* the mount tree made private */
	AT_STEP_SOURCE,           /* every bind source opened */
	AT_STEP_ROOT,             /* the new root's tmpfs */
	AT_STEP_MKPATH,           /* a mount point or directory made */
	AT_STEP_BIND,
	AT_STEP_TMPFS,
	AT_STEP_PROC,
	AT_STEP_DEVPTS,
	AT_STEP_SYMLINK,
	AT_STEP_FILE,
	AT_STEP_RDONLY,
	AT_STEP_OVERLAY,          /* an overlay mounted (a task-private layer over a directory) */
	AT_STEP_CGROUP,           /* the run's own cgroup shown read-only (/sys/fs/cgroup) */
	AT_STEP_MOUNTS,           /* timed: the new root assembled */
	AT_STEP_PIVOT,            /* timed: pivot_root done, the old root detached */
	AT_STEP_CHDIR,
	AT_STEP_PTY,              /* the pty made (interactive runs) and its master sent */
	AT_STEP_CAPS,             /* capabilities dropped */
	AT_STEP_PRIVS,            /* timed: no_new_privs set, the init not dumpable */
	AT_STEP_FORK,             /* the command's process started */
	AT_STEP_SIGNALS,
	AT_STEP_SETSID,
	AT_STEP_CTTY,             /* the pty made the command's controlling terminal */
	AT_STEP_FDS,
	AT_STEP_RLIMIT,
	AT_STEP_EXEC,             /* timed: session, fds, rlimits done: seccomp, then execve */
	AT_STEP_SECCOMP,
	AT_STEP_EXITED,           /* timed: the command exited; all else in the sandbox reaped */
	AT_STEP_DONE,             /* timed: the init gone, namespaces torn down */
	AT_STEP_COUNT
};

/* Its name ("clone", "mounts", ...) for --verbose. */
const char *at_run_step_name(enum at_run_step s);

/*
 * What failed at that step, as a format with at most one %s (the path or
 * thing concerned): "cannot bind-mount '%s'".
 */
const char *at_run_step_failure(enum at_run_step s);

/* ---- a run ---- */

/* A path the caller asked to see in the sandbox (--ro, --rw), at its own path. */
struct at_run_bind {
	const char *path;         /* absolute, normalised, no symbolic link on the way */
	bool writable;
};

struct at_run_result {
	int exit_code;            /* the command's status, 128+N, 124, 126 or 127 */
	int term_signal;          /* signal that ended the command, or 0 */
	bool timed_out;
	bool cancelled;           /* the caller's cancel descriptor became readable */
	bool exec_failed;         /* 126/127: exec_error says why */
	char exec_error[256];

	int64_t start_ms;         /* wall clock, ms since the epoch */
	int64_t duration_ms;
	int64_t max_rss_kb;       /* largest resident set of any process */
	int64_t user_cpu_ms;
	int64_t sys_cpu_ms;

	enum at_limit_mech mech[AT_LIMIT_COUNT];
	enum at_run_stop stop;    /* why the run was stopped, or AT_STOP_NONE */
	int64_t oom_kills;        /* processes the OOM killer took in the run's cgroup; -1 unknown */
	int64_t pids_refused;     /* forks the pids cgroup refused; -1 unknown */
	char limits_note[256];    /* why no cgroup holds the limits (systemd refused), or "" */
	int64_t prepare_us;       /* before the clone (mount plan, seccomp filter); -1 */
	int64_t step_us[AT_STEP_COUNT];  /* microseconds after the clone; -1 not timed */
	enum at_run_step failed_step;    /* the setup step that failed (AT_ESANDBOX), or NONE */

	/*
	 * Captured output (NULL when not captured), NUL-terminated, as
	 * core/capture.h keeps it: the head and the tail of each stream, a
	 * marker between them where bytes were dropped; output is stdout and
	 * stderr interleaved in the order they were read, under the same cap.
	 */
	char *out, *err, *output;
	size_t out_len, err_len, output_len;
	uint64_t out_dropped, err_dropped, output_dropped;
	bool out_truncated, err_truncated, output_truncated;
};

/* Zero it, with every time and counter unknown (-1). */
void at_run_result_init(struct at_run_result *res);
/* Free the captured output; accepts NULL. */
void at_run_result_release(struct at_run_result *res);

#endif
