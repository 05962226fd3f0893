/*
 * internal.h - what the files of sandbox/ share; never included outside it.
 *
 * The work is split in two halves:
 *   - the supervisor (the agenttask process) prepares everything that needs
 *     memory or formatting: the mount plan, the seccomp program (compiled to
 *     BPF), the cgroup, the environment;
 *   - the child, between clone() and execve(), only executes that plan with
 *     raw system calls: no malloc, no stdio, no locks. A failure is sent as a
 *     struct at_sb_report over a close-on-exec pipe and the child _exit()s;
 *     the supervisor turns it into a message.
 */
#ifndef AT_SANDBOX_INTERNAL_H
#define AT_SANDBOX_INTERNAL_H

#include <linux/filter.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <termios.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sandbox/sandbox.h"

/* The child's steps, for the error messages (see step_message in sandbox.c). */
enum at_sb_step {
	SB_SYNC = 1,
	SB_IDMAP,
	SB_CGROUPNS,
	SB_HOSTNAME,
	SB_NET,
	SB_PRIVATE,
	SB_SOURCE,
	SB_ROOT,
	SB_MKPATH,
	SB_BIND,
	SB_TMPFS,
	SB_PROC,
	SB_DEVPTS,
	SB_SYMLINK,
	SB_FILE,
	SB_RDONLY,
	SB_PIVOT,
	SB_CHDIR,
	SB_CAPS,
	SB_NNP,
	SB_FORK,
	SB_SETSID,
	SB_FDS,
	SB_RLIMIT,
	SB_SECCOMP,
	SB_EXEC,
	SB_SIGNALS,
	SB_LISTEN,
	SB_PTY,
	SB_CTTY,
};

enum at_sb_report_kind {
	SB_REPORT_SETUP = 1,      /* setup failed at step */
	SB_REPORT_EXEC,           /* execve failed: err */
	SB_REPORT_EXIT,           /* the command ended with wait status `status`; t_ns */
};

/* One message on the report pipe; smaller than PIPE_BUF, so written whole. */
struct at_sb_report {
	int kind;
	int step;
	int err;
	int status;
	int64_t t_ns[AT_STEP_COUNT];  /* CLOCK_MONOTONIC at the end of each step */
	char path[1024];
};

enum at_sb_op_kind {
	OP_BIND,                  /* bind source (opened without following links) */
	OP_TMPFS,                 /* tmpfs with arg = size, mode = mode */
	OP_PROC,
	OP_DEVPTS,
	OP_SYMLINK,               /* a symlink at target pointing to arg */
	OP_FILE,                  /* a regular file holding arg (arg_len bytes) */
	OP_DIR,                   /* an empty directory */
	OP_RDONLY,                /* make the mount at target read-only */
};

enum {
	OPF_RO = 1 << 0,          /* read-only */
	OPF_DEV = 1 << 1,         /* a device node: allow devices (not nodev), noexec */
	OPF_ISFILE = 1 << 2,      /* the source is not a directory */
	OPF_INROOT = 1 << 3,      /* OP_BIND: source is a path in the new root */
	OPF_OPTIONAL = 1 << 4,    /* OP_BIND, OPF_INROOT: skip when the source is absent */
};

struct at_sb_op {
	enum at_sb_op_kind kind;
	unsigned int flags;
	const char *target;       /* relative to the new root, no leading '/' */
	const char *source;       /* OP_BIND: absolute host path */
	const char *arg;          /* OP_SYMLINK target, OP_FILE data, OP_TMPFS size */
	size_t arg_len;
	const char *mode;         /* OP_TMPFS: octal mode string */
	int src_fd;               /* OP_BIND: opened by the child before mounting */
};

/* What the command gets as fds 0..2 (stdio.c, pty.c). */
enum at_sb_fd_mode {
	SB_FD_PASS = 0,           /* the caller's own descriptor */
	SB_FD_PIPE,               /* fd[i], a pipe the supervisor copies through */
	SB_FD_PTY,                /* the pty's slave, made by the init */
};

struct at_sb_stdio_child {
	enum at_sb_fd_mode mode[3];
	int fd[3];                /* SB_FD_PIPE: our pipe's end for the command */
	bool pty;                 /* make a pty (and hand its master over on sock) */
	int sock;                 /* the child's end of the socketpair, or -1 */
	struct termios tio;       /* the slave's first termios (have_tio) */
	struct winsize ws;        /* and window size (have_ws) */
	bool have_tio, have_ws;
	int slave;                /* child: the slave, kept open by the init */
};

/* Everything the child needs, prepared by the supervisor. */
struct at_sb_child {
	struct at_sb_op *ops;
	size_t nops;
	const char *cwd;
	char *const *argv;
	char *const *envp;
	const char *path_env;     /* PATH value for the command lookup */
	bool new_net;
	const struct at_sandbox_listen *listen;
	size_t nlisten;
	int listen_fd;            /* our end of the socketpair they are handed over on */
	struct sock_fprog seccomp;
	uint64_t limits[AT_LIMIT_COUNT];
	bool rlimit[AT_LIMIT_COUNT];  /* enforce this limit with setrlimit */
	int last_cap;
	char uid_map[32], gid_map[32];  /* "<id> <id> 1\n": our own ids, kept */
	int sync_fd;              /* read end; the supervisor holds the write end */
	bool wait_sync;           /* wait for the final rlimit[]: we have been put in the cgroup */
	bool hold;                /* after the exit report, keep the cgroup until sync_fd's EOF */
	int report_fd;            /* write end of the report pipe */
	int out_fd, err_fd;       /* capture pipes' write ends, or -1 */
	struct at_sb_stdio_child stdio;
	sigset_t *saved_mask;     /* the supervisor's mask, restored for the command */
	int64_t t_clone_ns;
	int failed_op;            /* child: index of the op that failed, or -1 */
};

/* mounts.c */
int at_sb_plan_build(const struct at_sandbox_opts *o, struct at_sb_op **ops_out,
		     size_t *nops_out, struct at_error *err);
void at_sb_plan_free(struct at_sb_op *ops, size_t nops);
/*
 * In the child: open every source, build the new root; its descriptor, or -1
 * with errno, *step and *what (the path concerned, or NULL).
 */
int at_sb_mounts_build(struct at_sb_child *c, int *step, const char **what);
/* In the child: make rootfd the root, detach the old one, chdir to cwd. */
int at_sb_pivot(int rootfd, const char *cwd, int *step, const char **what);

/* seccomp.c */
int at_sb_seccomp_compile(struct sock_fprog *out, struct at_error *err);
void at_sb_seccomp_release(struct sock_fprog *prog);

/* limits.c */
/* Read a small procfs file (whose st_size is 0) into buf, NUL-terminated. */
int at_sb_read_proc(const char *path, char *buf, size_t size);

/*
 * How the run's tree-wide limits (memory, pids, cpus) are held: at most one
 * cgroup mechanism a run, chosen before the clone (at_sb_limits_prepare),
 * completed once the init exists (at_sb_limits_attach), read while the init
 * still holds the cgroup after the command's end (at_sb_limits_collect).
 */
struct at_sb_scope;               /* scope.c: a connection to systemd */
struct at_sb_cgroup {
	enum at_sandbox_mech tree;    /* CGROUP_V2, SYSTEMD, CGROUP_V1, or NONE */
	char dirs[4][512];            /* cgroups made for this run, removed after it */
	int ndirs;
	int into_fd;                  /* CGROUP_V2: the run's cgroup, clone3(CLONE_INTO_CGROUP); -1 */
	char v2_dir[512];             /* v2 (delegated or scope): the run's cgroup */
	struct at_sb_scope *scope;    /* SYSTEMD: until the init is in its scope */
	bool need_sync;               /* the init waits for its move and its final rlimits */
	bool collected;
	int64_t oom_kills, pids_refused;  /* -1: unknown */
	unsigned int seq;             /* this process's run number, for unique names */
	char why_not[256];            /* why the systemd scope was not had, for --verbose */
};
int at_sb_limits_prepare(const struct at_sandbox_opts *o, enum at_sandbox_mech *mech,
			 struct at_sb_cgroup *cg, struct at_error *err);
/*
 * clone(2) the init with flags: by clone3 into the run's cgroup where we
 * made it (CLONE_INTO_CGROUP: the tree is in it from its first instruction);
 * else plainly, and *wait_sync is set where it must wait to be moved.
 */
long at_sb_limits_clone(struct at_sb_cgroup *cg, unsigned long flags, bool *wait_sync);
/*
 * After the clone, before the init goes on: move it in (v1, systemd; a
 * controller may fall back then), and send it its rlimits over sync_fd.
 */
int at_sb_limits_attach(struct at_sb_cgroup *cg, const struct at_sandbox_opts *o, int pid,
			enum at_sandbox_mech *mech, int sync_fd, struct at_error *err);
/* The OOM kills and refused forks; while the init still holds the cgroup. */
void at_sb_limits_collect(struct at_sb_cgroup *cg);
void at_sb_limits_release(struct at_sb_cgroup *cg);
/* Why the run was stopped (res->stop; an OOM kill makes it 137). */
void at_sb_limits_result(struct at_sb_cgroup *cg, const struct at_sandbox_opts *o,
			 struct at_sandbox_result *res);
/* Remove the empty cgroups PREFIX<pid>-... in base whose agenttask (pid) is gone. */
void at_sb_cg_sweep(const char *base, const char *prefix);
/* Write value to dir/name (a cgroup file); 0 or -1 with errno. */
int at_sb_cg_write(const char *dir, const char *name, const char *value);

/* cgroup2.c: the unified hierarchy (paths are under /sys/fs/cgroup). */
bool at_sb_cg2_unified(void);
/* The cgroup of pid ("/user.slice/..."), from the "0::" line of /proc/PID/cgroup. */
int at_sb_cg2_of(int pid, char *buf, size_t size);
/*
 * A cgroup delegated to us, in which the run's cgroup is made; see cgroup2.c.
 * Under systemd, s (or NULL) is asked when the cgroup bears no mark.
 */
int at_sb_cg2_delegated(struct at_sb_scope *s, const bool *want, char *dir, size_t size);
/* Write the limits wanted into dir; want[i] cleared where dir has no such file. */
int at_sb_cg2_write_limits(const char *dir, const uint64_t *limits, bool *want);
/* Does the cgroup at dir enforce limit l (its controller is enabled there)? */
bool at_sb_cg2_has(const char *dir, enum at_sandbox_limit l);
void at_sb_cg2_events(const char *dir, int64_t *oom_kills, int64_t *pids_refused);
/* The value of "key N" in a flat-keyed cgroup file, or -1. */
int64_t at_sb_cg_key(const char *path, const char *key);

/* scope.c: systemd's transient scopes, through sd-bus (libsystemd, loaded when needed). */
/* Connect to this user's manager (the system's, for root); -1 when there is none. */
int at_sb_scope_connect(struct at_sb_scope **out);
/*
 * A transient scope holding pid, Delegate=yes, with the wanted limits as its
 * properties; waits until pid is in it. Its cgroup in dir.
 */
int at_sb_scope_start(struct at_sb_scope *s, int pid, const uint64_t *limits, const bool *want,
		      char *dir, size_t size, struct at_error *err);
void at_sb_scope_free(struct at_sb_scope *s);
/* Does the unit agenttask runs in have Delegate=yes? */
bool at_sb_scope_delegated(struct at_sb_scope *s);

/* In the child: the rlimits chosen above. 0, or -1 with errno and *which. */
int at_sb_rlimits_apply(const struct at_sb_child *c, int *which);

/* netns.c: in the child, bring up lo. 0 or -1 with errno. */
int at_sb_loopback_up(void);
/*
 * In the child: make c->listen's sockets, send them to the supervisor over
 * c->listen_fd, close ours, and wait for its go-ahead. 0, or -1 with errno.
 */
int at_sb_listen_handoff(const struct at_sb_child *c);
/*
 * In the supervisor: receive those sockets (fds[i] = -1 for one left out).
 * 1 when received, 0 when the child ended first, -1 with errno.
 */
int at_sb_listen_receive(int sock, size_t n, int *fds);

/* identity.c: the passwd, group and boot id shown inside (hole 10). */
struct at_sb_identity {
	char passwd[512], group[256];
	size_t passwd_len, group_len;
	char boot_id[40];         /* "xxxxxxxx-...\n", random for each run */
};
int at_sb_identity_make(struct at_sb_identity *id, struct at_error *err);
/* /proc files shown empty (relative to the new root; NULL-terminated). */
extern const char *const at_sb_masked_proc[];

/* stdio.c: the pumps that copy between the caller's fds and the command's. */
struct at_sb_pump {
	int src, dst;             /* -1 once done */
	bool input;               /* toward the command: src the caller's, dst ours */
	bool careful;             /* dst may block: write PIPE_BUF at a time after POLLOUT */
	bool shared;              /* our end is the pty master: pty.c closes it */
	bool eof, dst_failed;
	bool hangup;              /* the caller's reader went away (EPIPE): SIGHUP the command */
	char *buf;
	size_t off, len;
	int poll_index;
	void (*on_eof)(struct at_sb_pump *p);  /* may queue a last byte (pty.c) */
	unsigned char veof;
	char last;                /* the last byte written, or 0 */
	/*
	 * A stdin file that can seek is read with pread from start on, and at
	 * the end its offset is set past what the command read, no further:
	 * `while read f; do agenttask run ...; done <list` keeps its list.
	 * peek: our hold of the pipe's read end, to count what is unread.
	 */
	int seek_fd, peek;
	off_t start, pos;
	uint64_t copied;
};

#define AT_SB_PUMPS_MAX 4

struct at_sb_stdio {
	enum at_sandbox_tty tty;
	bool pty;
	enum at_sb_fd_mode mode[3];
	int child_fd[3];          /* the pipe ends for the command until the clone */
	struct at_sb_pump pumps[AT_SB_PUMPS_MAX];
	size_t npumps;
	struct {
		int fd;
		dev_t rdev;
		struct termios tio;
	} saved[3];               /* the terminals among fds 0..2, as they were */
	int nsaved;
	/* pty.c */
	int pty_sock, child_sock; /* the socketpair the master comes over */
	int pty_master;
	int host_tty;             /* the caller's terminal (fd 0), or -1 */
	bool raw;
	sigset_t sigpipe_saved;
	bool sigpipe_blocked, sigpipe_was_pending;
};

void at_sb_stdio_init(struct at_sb_stdio *io);
int at_sb_stdio_prepare(struct at_sb_stdio *io, const struct at_sandbox_opts *o,
			struct at_sb_stdio_child *cs, struct at_error *err);
void at_sb_stdio_child_close(struct at_sb_stdio *io);
void at_sb_stdio_started(struct at_sb_stdio *io);
void at_sb_stdio_block_sigpipe(struct at_sb_stdio *io);
struct at_sb_pump *at_sb_stdio_add_pump(struct at_sb_stdio *io, int src, int dst, bool input);
/* The poll loop: fill pfd (up to max), then handle what came back. */
int at_sb_stdio_pollfds(struct at_sb_stdio *io, struct pollfd *pfd, int max);
void at_sb_stdio_handle(struct at_sb_stdio *io, const struct pollfd *pfd);
void at_sb_stdio_command_gone(struct at_sb_stdio *io);
bool at_sb_stdio_busy(const struct at_sb_stdio *io);  /* output still to copy */
bool at_sb_stdio_take_hangup(struct at_sb_stdio *io); /* a reader left since the last call */
/* Restores every terminal, whatever happened: call it on every path. */
void at_sb_stdio_release(struct at_sb_stdio *io);

/* pty.c */
int at_sb_pty_prepare(struct at_sb_stdio *io, struct at_sb_stdio_child *cs,
		      struct at_error *err);
/* In the child, after pivot_root: make the pty, send its master. 0 or -1 with errno. */
int at_sb_pty_make(struct at_sb_stdio_child *cs);
/* In the supervisor: receive the master, relay, the caller's terminal raw. */
int at_sb_pty_receive(struct at_sb_stdio *io, struct at_error *err);
/* SIGWINCH: the new size to the pty (true), or nothing to do here (false). */
bool at_sb_pty_winch(struct at_sb_stdio *io);
void at_sb_pty_release(struct at_sb_stdio *io);

/* supervise.c */
/* Signals the supervisor passes on to the command (0-terminated). */
extern const int at_sb_forwarded[];

/* In the child (pid 1): run the command, reap, forward signals. Never returns. */
void at_sb_init_run(struct at_sb_child *c, int64_t *t_ns) __attribute__((noreturn));

struct at_sb_super {
	/* in */
	int init_pid;
	int sig_fd, report_fd, out_fd, err_fd;   /* set to -1 once at EOF and closed */
	struct at_sb_stdio *stdio;  /* the pumps, polled with the rest */
	/* Called at the init's exit report, the command's tree gone but the init's cgroup kept. */
	void (*at_exit_report)(void *arg);
	void *arg;
	uint64_t timeout_ms;
	size_t capture_max;
	/* out */
	bool init_done, timed_out;
	int init_status;
	struct rusage ru;
	bool have_setup_fail, have_exec_fail, have_timing, have_cmd_status;
	struct at_sb_report setup_fail, exec_fail;
	int64_t t_ns[AT_STEP_COUNT];  /* from the init's exit report */
	int64_t t_done_ns;            /* when the init was reaped */
	int cmd_status;
	char *out_buf, *err_buf;
	size_t out_len, err_len;
	bool out_truncated, err_truncated;
};

/* Wait for the run to end (reading reports and output); 0, or -1 with errno. */
int at_sb_supervise(struct at_sb_super *s);

/* sandbox.c: in the command's process, after the init forked it. Never returns. */
void at_sb_command_exec(struct at_sb_child *c, int64_t *t_ns) __attribute__((noreturn));

/* Async-signal-safe helpers for the child (sandbox.c). */
void at_sb_report_fail(int fd, int step, int errnum, const char *path, const int64_t *t_ns);
int64_t at_sb_now_ns(void);

#endif
