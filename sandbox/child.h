/*
 * child.h - the child's side of a run: everything between clone() and
 * execve(), in child_setup.c (the setup order), child_net.c (the loopback,
 * listening sockets), child_mounts.c (the new root), child_pty.c (an
 * interactive run's pty),
 * child_init.c (the sandbox's pid 1), child_exec.c (the command's process)
 * and child_util.c (reports, clocks).
 *
 * The supervisor prepares everything that needs memory or formatting (the
 * mount plan, the seccomp program, the cgroup, the environment) into a
 * struct at_sb_child; the child only executes that plan with raw system
 * calls: no malloc, no stdio, no locks. A failure is sent as a struct
 * at_sb_report {step, errno, path} over a close-on-exec pipe and the child
 * _exit()s; the supervisor turns it into a message. Nothing here calls into
 * the supervisor's files.
 */
#ifndef AT_SANDBOX_CHILD_H
#define AT_SANDBOX_CHILD_H

/* In an overlay's work dir: the scratch overlayfs makes at each mount (child_mounts.c). */
#define AT_SB_SCRATCH "work"


#include <linux/filter.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/run.h"
#include "sandbox/sandbox.h"

enum at_sb_report_kind {
	SB_REPORT_SETUP = 1,      /* setup failed at step */
	SB_REPORT_EXEC,           /* execve failed: err */
	SB_REPORT_EXIT,           /* the command ended with wait status `status`; t_ns */
};

/* One message on the report pipe; smaller than PIPE_BUF, so written whole. */
struct at_sb_report {
	int kind;
	int step;                 /* enum at_run_step */
	int err;
	int status;               /* EXIT: the wait status; SETUP: the failed op's index, or -1 */
	int64_t t_ns[AT_STEP_COUNT];  /* CLOCK_MONOTONIC at the end of each timed step */
	char path[1024];
};

_Static_assert(sizeof(struct at_sb_report) <= 4096, "a report is written in one piece");

enum at_sb_op_kind {
	OP_BIND,                  /* bind source (opened without following links) */
	OP_TMPFS,                 /* tmpfs with arg = size, mode = mode */
	OP_PROC,
	OP_DEVPTS,
	OP_SYMLINK,               /* a symlink at target pointing to arg */
	OP_FILE,                  /* a regular file holding arg (arg_len bytes), or data_fd's */
	OP_DIR,                   /* a directory and its parents */
	OP_RDONLY,                /* make the mount at target read-only */
	OP_OVERLAY,               /* overlay: lower source, upper arg, work mode (host paths) */
	OP_CGROUP,                /* the run's own cgroup, read-only (c->cg) */
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
	const char *source;       /* OP_BIND: absolute host path, or relative in the root */
	const char *arg;          /* OP_SYMLINK target, OP_FILE data, OP_TMPFS size */
	size_t arg_len;
	const char *mode;         /* OP_TMPFS: octal mode string */
	int data_fd;              /* OP_FILE: copy the content from it (pread); -1: arg */
	unsigned int perm;        /* OP_DIR: its permission bits */
	int src_fd;               /* OP_BIND, OP_OVERLAY: opened by the child before mounting */
	int upper_fd, work_fd;    /* OP_OVERLAY: the same for upper and work */
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

/*
 * The run's own cgroup as OP_CGROUP shows it: nothing, the sandbox's cgroup
 * namespace's cgroup2, or the run's v1 cgroups (host paths, no link on the
 * way) bound at <target>/<name>.
 */
enum at_sb_cg_view { SB_CG_NONE = 0, SB_CG_V2, SB_CG_V1 };
#define AT_SB_CG_V1_MAX 4

struct at_sb_cg {
	enum at_sb_cg_view view;
	int n;
	const char *dir[AT_SB_CG_V1_MAX];
	const char *name[AT_SB_CG_V1_MAX];
	int fd[AT_SB_CG_V1_MAX];  /* child: opened with the other sources; -1 */
};

/*
 * cgroup v1: the run's cgroups, which the init moves itself into before
 * anything else, by writing "0" to each one's tasks file, opened by the
 * supervisor (the kernel checks the opener's credentials). A thread moving
 * itself takes no global lock; the supervisor writing the init's pid to
 * cgroup.procs takes cgroup_threadgroup_rwsem for writing, and that waits
 * for an RCU grace period unless another move came just before: several
 * ms, at every run of an agent's pace (docs/performance.md).
 */
struct at_sb_join {
	int n;
	int fd[AT_SB_CG_V1_MAX];
	const char *dir[AT_SB_CG_V1_MAX];
};

/*
 * What the supervisor sends on the sync pipe once it has put the init in
 * the run's cgroup (v1: the init moves itself in first, struct at_sb_join,
 * and reads this after): the limits that fall back to rlimits after all, and
 * whether the run has a cgroup of its own (a systemd scope may be refused).
 */
struct at_sb_sync {
	bool rlimit[AT_LIMIT_COUNT];
	bool own_cgroup;
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
	int netns_fd;             /* our end of the socketpair our user and network namespaces
				     are handed over on (spec.on_netns); -1: none */
	struct sock_fprog seccomp;
	uint64_t limits[AT_LIMIT_COUNT];
	bool rlimit[AT_LIMIT_COUNT];  /* enforce this limit with setrlimit */
	int last_cap;
	char uid_map[32], gid_map[32];  /* "<id> <id> 1\n": our own ids, kept */
	int sync_fd;              /* read end; the supervisor holds the write end */
	bool wait_sync;           /* wait for the final rlimit[]: we have been put in the cgroup */
	bool hold;                /* after the exit report, keep the cgroup until sync_fd's EOF */
	struct at_sb_cg cg;       /* what OP_CGROUP shows */
	struct at_sb_join join;   /* v1: the cgroups to move into first */
	int report_fd;            /* write end of the report pipe */
	int out_fd, err_fd;       /* capture pipes' write ends, or -1 */
	struct at_sb_stdio_child stdio;
	sigset_t *saved_mask;     /* the supervisor's mask, restored for the command */
	int64_t t_clone_ns;
	int failed_op;            /* child: index of the op that failed, or -1 */
};

/* Signals the supervisor passes on to the command (0-terminated). */
extern const int at_sb_forwarded[];

/* child_setup.c: the sandbox's pid 1 from clone() on. Never returns. */
void at_sb_child_main(struct at_sb_child *c) __attribute__((noreturn));

/*
 * child_mounts.c: open every source, build the new root; its descriptor,
 * or -1 with errno, *step and *what (the path concerned, or NULL).
 */
int at_sb_mounts_build(struct at_sb_child *c, int *step, const char **what);
/* child_mounts.c: make rootfd the root, detach the old one, chdir to cwd. */
int at_sb_pivot(int rootfd, const char *cwd, int *step, const char **what);

/* child_init.c: in pid 1: run the command, reap, forward signals. Never returns. */
void at_sb_init_run(struct at_sb_child *c, int64_t *t_ns) __attribute__((noreturn));

/* child_exec.c: in the command's process, after the init started it. Never returns. */
void at_sb_command_exec(struct at_sb_child *c, int64_t *t_ns) __attribute__((noreturn));

/* child_net.c: bring up lo. 0 or -1 with errno. */
int at_sb_loopback_up(void);
/*
 * child_net.c: make c->listen's sockets, send them to the supervisor over
 * c->listen_fd and close ours; at_sb_listen_wait, before the command, waits
 * for its go-ahead (it serves them) and closes c->listen_fd. 0, or -1 with errno.
 */
int at_sb_listen_handoff(const struct at_sb_child *c);
int at_sb_listen_wait(const struct at_sb_child *c);
/*
 * child_net.c: send our user and network namespaces (/proc/self/ns/user and
 * net, opened by ourselves: no ptrace check) over c->netns_fd, and close it.
 * 0, or -1 with errno.
 */
int at_sb_netns_handoff(const struct at_sb_child *c);

/*
 * child_pty.c: after pivot_root, make the pty in the sandbox's devpts and send its
 * master to the supervisor; the slave stays open in c->slave. 0 or -1 with errno.
 */
int at_sb_pty_make(struct at_sb_stdio_child *cs);

/* limits.c: the rlimits chosen by the supervisor. 0, or -1 with errno and *which. */
int at_sb_rlimits_apply(const struct at_sb_child *c, int *which);

/* child_util.c: async-signal-safe helpers. */
void at_sb_report_send(int fd, int kind, int step, int errnum, int status, const char *path,
		       const int64_t *t_ns);
void at_sb_report_fail(int fd, int step, int errnum, const char *path, const int64_t *t_ns);

/*
 * Remove volatile's marker from the scratch in the overlay work dir open at
 * work_fd (child_mounts.c): with it there, overlayfs refuses the next
 * mount. 0 when it is gone, or was never there.
 */
int at_sb_clear_marker(int work_fd);

#endif
