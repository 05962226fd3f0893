/*
 * sandbox.h - run one command in a sandbox bound to a task's worktree.
 *
 * The sandbox is made natively (clone, the mount API, pivot_root, libseccomp);
 * no helper program is ever executed. It works for an ordinary user through
 * an unprivileged user namespace, and for root the same way: the command
 * always runs in a new user namespace with every capability dropped.
 *
 * What the command sees (docs/security.md has the reasons):
 *   /                 an empty tmpfs, read-only, the host root detached
 *   /usr /bin /sbin /lib* and parts of /etc   read-only binds (merged-/usr
 *                     symlinks stay symlinks); never shadow, sudoers, ssh keys;
 *                     passwd and group written for the run: root, nobody, the
 *                     user (identity.c)
 *   /tmp, /home/sandbox (= $HOME), /dev/shm   private size-capped tmpfs
 *   /proc             a fresh procfs of the sandbox's own pid namespace; its
 *                     boot_id random, cmdline, keys, key-users empty
 *   /dev              null zero full random urandom tty, devpts, shm, fd links
 *   common_dir        read-only; its config replaced by sanitized_config,
 *                     config.worktree files hidden, state_dir hidden under an
 *                     empty read-only tmpfs
 *   worktree          read-write at its own path and the working directory;
 *                     its .git pointer file read-only
 *   binds             the caller's --ro / --rw additions, at their own paths
 *
 * Namespaces: user, mount, pid, ipc, uts, cgroup, and net (loopback only)
 * unless opts.net. In that new network namespace the child can also make
 * listening sockets for the caller (opts.listen), handed over before the
 * command starts: a server outside serves them, none runs inside. The sandbox's pid 1 is a small init that runs the command
 * in a new session, forwards signals to it, reaps orphans, and kills every
 * remaining process when the command exits; it dies with the supervisor
 * (PR_SET_PDEATHSIG), and with it the whole pid namespace.
 *
 * stdio (stdio.c, pty.c): fds 0..2 that are pipes, sockets, terminals or
 * /dev/null are passed as they are; anything else (a file, a directory, a
 * device) becomes a pipe the supervisor copies through, so the command
 * cannot reopen it. When stdin is a terminal (opts.tty), the command runs
 * on a pty of the sandbox's devpts as its controlling terminal, which the
 * supervisor relays to the caller's terminal, set raw meanwhile. Every
 * terminal among fds 0..2 gets its termios back, TIOCEXCL cleared, when
 * at_sandbox_run returns, however the run ended.
 *
 * Every path given here must be absolute and free of symbolic links (see
 * at_sandbox_check_path); setup refuses to follow a link met on the way.
 */
#ifndef AT_SANDBOX_SANDBOX_H
#define AT_SANDBOX_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

#define AT_SANDBOX_HOME "/home/sandbox"
#define AT_SANDBOX_PATH "/usr/local/bin:/usr/bin:/bin"
#define AT_SANDBOX_CAPTURE_MAX ((size_t)1 << 20)

/* Exit statuses of a run, as `agenttask run` returns them. */
enum {
	AT_RUN_TIMEOUT = 124,
	AT_RUN_SETUP = 125,       /* the sandbox could not be set up */
	AT_RUN_CANNOT_EXEC = 126,
	AT_RUN_NOT_FOUND = 127,
};

enum at_sandbox_limit {
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
 * process on its own (at_sandbox_mech_note says what that weakens).
 */
enum at_sandbox_mech {
	AT_MECH_NONE = 0,         /* no limit asked for */
	AT_MECH_CGROUP_V2,        /* cgroup v2: a child of the delegated cgroup agenttask runs in */
	AT_MECH_SYSTEMD,          /* cgroup v2: a transient systemd scope (Delegate=yes) */
	AT_MECH_CGROUP_V1,        /* a per-run cgroup (v1 hierarchy): the whole tree */
	AT_MECH_RLIMIT,           /* setrlimit: per process (NPROC: per user) */
	AT_MECH_UNENFORCED,       /* a default that nothing here can enforce: not applied */
};

/* Why a run was stopped, as `run` reports it ("reason" in its JSON). */
enum at_sandbox_stop {
	AT_STOP_NONE = 0,
	AT_STOP_TIMEOUT,          /* --timeout: everything killed (124) */
	AT_STOP_OOM,              /* the memory limit: the kernel's OOM killer (137) */
	AT_STOP_PIDS,             /* the pids limit refused a fork, and the command failed */
	AT_STOP_CPU,              /* --cpu: SIGXCPU, or SIGKILL at the hard limit */
	AT_STOP_FSIZE,            /* --file-size: SIGXFSZ */
	AT_STOP_COUNT
};

/* The defaults of every run: at most this many processes, and a share of RAM. */
#define AT_SANDBOX_DEFAULT_PIDS 4096
#define AT_SANDBOX_DEFAULT_MEMORY_PERCENT 50

struct at_sandbox_bind {
	const char *path;         /* absolute, no symlinks; bound at the same path */
	bool writable;
};

/*
 * A TCP socket to listen on inside the sandbox's own network namespace, made
 * before the command starts and handed to the supervisor (see listen in
 * at_sandbox_opts): on 127.0.0.1:port, or [::1]:port. A socket marked
 * optional that cannot be made (no IPv6 in the namespace) is left out.
 */
struct at_sandbox_listen {
	uint16_t port;
	bool ipv6;
	bool optional;
};

#define AT_SANDBOX_LISTEN_MAX 32

/*
 * Called in the supervisor with the listening sockets of opts.listen, in
 * that order (-1 for an optional one left out), which it then owns: it
 * must close them. It runs before the command does; a failure (its error
 * set) stops the run before the command starts.
 */
typedef int (*at_sandbox_listen_fn)(void *ctx, const int *fds, size_t n, struct at_error *err);

/* Whether an interactive command runs on a pty of the supervisor. */
enum at_sandbox_tty {
	AT_TTY_AUTO = 0,          /* when stdin is a terminal and output is not captured */
	AT_TTY_FORCE,             /* always (-t); not with capture */
	AT_TTY_NEVER,             /* never (-T): a terminal is passed as it is */
};

struct at_sandbox_opts {
	const char *worktree;          /* read-write, the working directory */
	const char *git_pointer_file;  /* <worktree>/.git, bound read-only over itself */
	const char *common_dir;        /* the git common dir, bound read-only */
	const char *state_dir;         /* agenttask's state in it: hidden */
	const char *admin_dir;         /* the worktree's admin dir in common_dir */
	const char *sanitized_config;  /* text shown as <common_dir>/config */

	char *const *argv;             /* the command; argv[0] is looked up in PATH */
	char *const *envp;             /* the whole environment (at_sandbox_env) */

	const struct at_sandbox_bind *binds;
	size_t nbinds;

	bool net;                      /* share the host's network */

	/* Listening sockets made in the new network namespace (never with net). */
	const struct at_sandbox_listen *listen;
	size_t nlisten;                /* at most AT_SANDBOX_LISTEN_MAX */
	at_sandbox_listen_fn on_listen;
	void *listen_ctx;

	uint64_t limits[AT_LIMIT_COUNT];  /* 0: no limit */
	/*
	 * Bit (1 << limit) set: that limit is a default (at_sandbox_defaults),
	 * not asked for. Where nothing can enforce it, the run goes on without
	 * it (AT_MECH_UNENFORCED); an asked-for limit is refused instead.
	 */
	unsigned int default_limits;
	uint64_t timeout_ms;           /* 0: none; else kill everything after it */

	enum at_sandbox_tty tty;

	bool capture;                  /* collect stdout/stderr in the result */
	size_t capture_max;            /* bytes kept of each; the rest is dropped */

	/*
	 * Called in the supervisor once the init is cloned, with its pid, so
	 * that the caller can record it (core/runs.h: killing the init kills the
	 * whole sandbox); NULL for none. It must not block.
	 */
	void (*started)(int init_pid, void *arg);
	void *started_arg;
};

#define AT_SANDBOX_OPTS_INIT \
	{ .capture_max = AT_SANDBOX_CAPTURE_MAX }

/* Steps of a run timed for --verbose, in order. */
enum at_sandbox_step {
	AT_STEP_CLONE,            /* clone() of the namespaces returned in the child */
	AT_STEP_IDMAP,            /* uid/gid maps written (and the cgroup joined) */
	AT_STEP_NET,              /* loopback up in the new network namespace (and listen sockets handed over) */
	AT_STEP_MOUNTS,           /* the new root assembled */
	AT_STEP_PIVOT,            /* pivot_root done, the old root detached */
	AT_STEP_PRIVS,            /* capabilities dropped, no_new_privs set */
	AT_STEP_EXEC,             /* session, fds, rlimits done: seccomp, then execve */
	AT_STEP_EXITED,           /* the command exited; all else in the sandbox killed, reaped */
	AT_STEP_DONE,             /* the init gone, namespaces torn down, seen by the supervisor */
	AT_STEP_COUNT
};

struct at_sandbox_result {
	int exit_code;            /* the command's status, 128+N, 124, 126 or 127 */
	int term_signal;          /* signal that ended the command, or 0 */
	bool timed_out;
	bool exec_failed;         /* 126/127: exec_error says why */
	char exec_error[256];

	int64_t start_ms;         /* wall clock, ms since the epoch */
	int64_t duration_ms;
	int64_t max_rss_kb;       /* largest resident set of any process */
	int64_t user_cpu_ms;
	int64_t sys_cpu_ms;

	enum at_sandbox_mech mech[AT_LIMIT_COUNT];
	enum at_sandbox_stop stop;   /* why the run was stopped, or AT_STOP_NONE */
	int64_t oom_kills;           /* processes the OOM killer took in the run's cgroup; -1 unknown */
	int64_t pids_refused;        /* forks the pids cgroup refused; -1 unknown */
	char limits_note[256];       /* why no cgroup holds the limits (systemd refused), or "" */
	int64_t prepare_us;       /* before the clone (mount plan, seccomp filter); -1 */
	int64_t step_us[AT_STEP_COUNT];  /* microseconds after the clone; -1 unknown */

	char *out, *err;          /* captured output (opts.capture), NUL-terminated */
	size_t out_len, err_len;
	bool out_truncated, err_truncated;
};

/*
 * Run opts->argv in the sandbox and wait for it. 0 when the command ran (its
 * status, or 126/127 when it could not be executed, is in *res);
 * AT_ESANDBOX when the sandbox could not be set up (the command never ran,
 * not even unsandboxed), with the failing step, path and a likely cause in
 * err. *res must be released with at_sandbox_result_release in both cases.
 */
int at_sandbox_run(const struct at_sandbox_opts *opts, struct at_sandbox_result *res,
		   struct at_error *err);
void at_sandbox_result_release(struct at_sandbox_result *res);

const char *at_sandbox_mech_name(enum at_sandbox_mech m);
const char *at_sandbox_limit_name(enum at_sandbox_limit l);
const char *at_sandbox_stop_name(enum at_sandbox_stop s);   /* "oom", ...; NULL for NONE */
/* What enforcing limit l by m weakens (an rlimit, a default unenforced), or NULL. */
const char *at_sandbox_mech_note(enum at_sandbox_limit l, enum at_sandbox_mech m);

/*
 * Fill the limits left at 0 with the defaults of every run: pids
 * AT_SANDBOX_DEFAULT_PIDS, memory AT_SANDBOX_DEFAULT_MEMORY_PERCENT of RAM
 * (at least 256 MiB); mark them in *default_mask.
 */
void at_sandbox_defaults(uint64_t limits[AT_LIMIT_COUNT], unsigned int *default_mask);
const char *at_sandbox_step_name(enum at_sandbox_step s);

/* The version of the libseccomp loaded, "MAJOR.MINOR.MICRO", into buf. */
void at_sandbox_seccomp_version(char *buf, size_t size);

/*
 * Options (opts.c)
 */

/* "512M", "2G", "100K", "4096" (powers of 1024; B and iB accepted); AT_EUSAGE. */
int at_sandbox_parse_size(const char *s, uint64_t *out, struct at_error *err);

/* A positive whole number no larger than max; AT_EUSAGE. */
int at_sandbox_parse_count(const char *s, uint64_t max, uint64_t *out, struct at_error *err);

/* Seconds, "30" or "1.5", as milliseconds; AT_EUSAGE. */
int at_sandbox_parse_seconds(const char *s, uint64_t *ms_out, struct at_error *err);

/* CPUs, "2" or "0.5" (at most 1000), as thousandths of a CPU; AT_EUSAGE. */
int at_sandbox_parse_cpus(const char *s, uint64_t *milli_out, struct at_error *err);

/*
 * The command's environment: PATH=AT_SANDBOX_PATH and HOME=AT_SANDBOX_HOME,
 * then TERM, LANG, LC_* and TZ from host_env, then each name in pass (taken
 * from host_env when set there), then each K=V of set. Later entries replace
 * earlier ones. *out is a NULL-terminated array freed with at_sandbox_env_free.
 * AT_EUSAGE for a malformed K=V or name.
 */
int at_sandbox_env(char *const *host_env, char *const *pass, size_t npass, char *const *set,
		   size_t nset, char ***out, struct at_error *err);
void at_sandbox_env_free(char **env);

/*
 * Check a --ro/--rw path before it is used: it must be absolute, exist, and
 * contain no symbolic link; AT_EUSAGE otherwise. Refused as well (AT_EUSAGE):
 * anything inside common_dir but the worktree (git metadata and agenttask
 * state, even read-only: the real config, other tasks), the worktree's .git
 * pointer, and, writable, a parent of common_dir.
 */
int at_sandbox_check_bind(const struct at_sandbox_opts *opts, const char *path, bool writable,
			  struct at_error *err);

/* Is the path absolute, normalised ("/a/b", no "." "..", "//", trailing '/')? */
bool at_sandbox_path_normal(const char *path);

#endif
