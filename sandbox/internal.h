/*
 * internal.h - what the supervisor's files of sandbox/ share; never included
 * outside sandbox/. The child's side is child.h.
 *
 *   run.c        at_sandbox_run: prepare, clone, supervise, finish
 *   spec.c       the spec's builders; system.c the standard layout
 *   plan.c       the spec checked (the invariants) and turned into the child's plan
 *   seccomp.c    the system call policy, compiled to BPF
 *   limits.c     the limits: which mechanism holds each, cgroup v1, rlimits, defaults
 *   cgroup2.c    cgroup v2: a delegated subtree; scope.c: a systemd scope over sd-bus
 *   cgfs.c       the small files of procfs and cgroupfs, under all of them
 *   doctor.c     what the sandbox needs from this machine (doctor.h)
 *   supervise.c  the supervisor's wait: reports, output, signals, timeout, cancel
 *   opts.c       the environment, paths
 *   stdio.c      the command's fds 0..2: pipes copied through; pty.c the pty's relay
 *   identity.c   the passwd, group and boot id shown inside
 */
#ifndef AT_SANDBOX_INTERNAL_H
#define AT_SANDBOX_INTERNAL_H

#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <termios.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/capture.h"
#include "sandbox/child.h"
#include "sandbox/sandbox.h"

/* plan.c: the spec's operations as the child's plan, or AT_ESANDBOX when it breaks an invariant. */
int at_sb_plan_build(const struct at_sandbox_spec *s, struct at_sb_op **ops_out,
		     size_t *nops_out, struct at_error *err);
void at_sb_plan_free(struct at_sb_op *ops, size_t nops);

/* seccomp.c */
int at_sb_seccomp_compile(struct sock_fprog *out, struct at_error *err);
/* The same program with every refusal's errno replaced by errnum: for the tests. */
int at_sb_seccomp_compile_errno(struct sock_fprog *out, int errnum, struct at_error *err);
void at_sb_seccomp_release(struct sock_fprog *prog);
/* seccomp_built.c: the program of at_sb_seccomp_compile as the build made it, a copy to release. */
int at_sb_seccomp_builtin(struct sock_fprog *out, struct at_error *err);

/* One row of the seccomp table, for the tests that check every row. */
struct at_sb_seccomp_row {
	const char *syscall;
	int errnum;               /* what the filter returns for it */
	unsigned int arg;         /* with has_arg: the argument compared ... */
	uint64_t mask, value;     /* ... (arg & mask) == value */
	bool has_arg;
};
size_t at_sb_seccomp_rows(const struct at_sb_seccomp_row **out);

/* cgfs.c: small files of procfs and cgroupfs (paths under /sys/fs/cgroup). */
/* Read a small procfs file (whose st_size is 0) into buf, NUL-terminated. */
int at_sb_read_proc(const char *path, char *buf, size_t size);
/* Write value to dir/name (a cgroup file); 0 or -1 with errno. */
int at_sb_cg_write(const char *dir, const char *name, const char *value);
/* The value of "key N" in a flat-keyed cgroup file, or -1. */
int64_t at_sb_cg_key(const char *path, const char *key);
/* Is /sys/fs/cgroup the unified (v2) hierarchy? */
bool at_sb_cg2_unified(void);
/* The cgroup of pid ("/user.slice/..."), from the "0::" line of /proc/PID/cgroup. */
int at_sb_cg2_of(int pid, char *buf, size_t size);
/* A directory PREFIX<pid>-... of an agenttask (not this one) that is gone. */
struct dirent;
bool at_sb_cg_orphan(const struct dirent *e, const char *prefix);
/* Remove the empty cgroups PREFIX<pid>-... in base whose agenttask (pid) is gone. */
void at_sb_cg_sweep(const char *base, const char *prefix);

/* waiting.c: append pid's children (of every thread) to v[*n], up to max. */
void at_sb_add_children(int pid, int *v, size_t *n, size_t max);

/* limits.c */

/*
 * How the run's tree-wide limits (memory, pids, cpus) are held: at most one
 * cgroup mechanism a run, chosen before the clone (at_sb_limits_prepare),
 * completed once the init exists (at_sb_limits_attach), read while the init
 * still holds the cgroup after the command's end (at_sb_limits_collect).
 */
struct at_sb_scope;               /* scope.c: a connection to systemd */
struct at_sb_cgroup {
	enum at_limit_mech tree;      /* CGROUP_V2, SYSTEMD, CGROUP_V1, or NONE */
	char dirs[4][512];            /* cgroups made for this run, removed after it */
	int ndirs;
	int into_fd;                  /* CGROUP_V2: the run's cgroup, clone3(CLONE_INTO_CGROUP); -1 */
	int tasks_fd[4];              /* CGROUP_V1: each dir's tasks file, or -1 */
	bool self_join;               /* CGROUP_V1: the init moves itself in (at_sb_limits_join) */
	char v2_dir[512];             /* v2 (delegated or scope): the run's cgroup */
	struct at_sb_scope *scope;    /* SYSTEMD: until the init is in its scope */
	bool need_sync;               /* the init waits for its move and its final rlimits */
	bool collected;
	int64_t oom_kills, pids_refused;  /* -1: unknown */
	unsigned int seq;             /* this process's run number, for unique names */
	/* v1: what OP_CGROUP shows (at_sb_limits_view): each dir resolved, its controller */
	char view_dir[4][512], view_name[4][16];
	char why_not[256];            /* why the systemd scope was not had, for --verbose */
};
int at_sb_limits_prepare(const struct at_sandbox_spec *s, enum at_limit_mech *mech,
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
int at_sb_limits_attach(struct at_sb_cgroup *cg, const struct at_sandbox_spec *s, int pid,
			enum at_limit_mech *mech, int sync_fd, struct at_error *err);
/* The OOM kills and refused forks; while the init still holds the cgroup. */
void at_sb_limits_collect(struct at_sb_cgroup *cg);
/*
 * What OP_CGROUP will show of the run's cgroup (child.h), after
 * at_sb_limits_prepare: v2 for a cgroup of our own or a systemd scope to be
 * (the init is told over the sync pipe when it is refused), v1 the run's
 * dirs, resolved (a hierarchy may be a link: cpu -> cpu,cpuacct).
 */
void at_sb_limits_view(struct at_sb_cgroup *cg, struct at_sb_cg *view);
/*
 * A v1 cgroup: the tasks files the init writes itself into (child.h's
 * struct at_sb_join); then at_sb_limits_attach does not move it. Else j->n 0.
 */
void at_sb_limits_join(struct at_sb_cgroup *cg, struct at_sb_join *j);
void at_sb_limits_release(struct at_sb_cgroup *cg);
/* Why the run was stopped (res->stop; an OOM kill makes it 137). */
void at_sb_limits_result(struct at_sb_cgroup *cg, const struct at_sandbox_spec *s,
			 struct at_run_result *res);

/* cgroup2.c: the unified hierarchy. */
/*
 * A cgroup delegated to us, in which the run's cgroup is made; see cgroup2.c.
 * Under systemd, s (or NULL) is asked when the cgroup bears no mark.
 */
int at_sb_cg2_delegated(struct at_sb_scope *s, const bool *want, char *dir, size_t size);
/* Write the limits wanted into dir; want[i] cleared where dir has no such file. */
int at_sb_cg2_write_limits(const char *dir, const uint64_t *limits, bool *want);
/* Does the cgroup at dir enforce limit l (its controller is enabled there)? */
bool at_sb_cg2_has(const char *dir, enum at_limit l);
void at_sb_cg2_events(const char *dir, int64_t *oom_kills, int64_t *pids_refused);

/* scope.c: systemd's transient scopes, through sd-bus (libsystemd, loaded when needed). */
/* Connect to this user's manager (the system's, for root); -1 when there is none. */
int at_sb_scope_connect(struct at_sb_scope **out);
/*
 * A transient scope holding pid, Delegate=yes, with the wanted limits as its
 * properties; waits until pid is in it. Its cgroup in dir.
 */
int at_sb_scope_start(struct at_sb_scope *s, int pid, const uint64_t *limits, const bool *want,
		      char *dir, size_t size, struct at_error *err);
/*
 * Stop the scopes beside ours (dir: our scope's cgroup) that killed
 * agenttasks left empty; scope.c says why. Once our init has been let go.
 */
void at_sb_scope_sweep(struct at_sb_scope *s, const char *dir);
void at_sb_scope_free(struct at_sb_scope *s);
/* Does the unit agenttask runs in have Delegate=yes? */
bool at_sb_scope_delegated(struct at_sb_scope *s);

/* identity.c: the passwd, group and boot id shown inside (hole 10). */
struct at_sb_identity {
	char passwd[512], group[256];
	size_t passwd_len, group_len;
	char boot_id[40];         /* "xxxxxxxx-...\n", random for each run */
};
/* 0, or -1 with errno when no random boot id can be had (getrandom). */
int at_sb_identity_make(struct at_sb_identity *id);

/* /etc read-only, what is not world-readable covered; a minimal /sys (etc.c). */
void at_sb_add_etc(struct at_sandbox_spec *s);
/*
 * For the unit tests: a walk of another tree than /etc; what it found
 * ("d/x", "f/x", "l/x"), and how many directories it listed anew.
 */
struct at_sandbox_etc *at_sb_etc_start_at(const char *root, const char *cache);
const struct at_strlist *at_sb_etc_found(struct at_sandbox_etc *e, size_t *listed);
void at_sb_add_sys(struct at_sandbox_spec *s);
/* /proc files shown empty (in the sandbox; NULL-terminated). */
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
	enum at_run_tty tty;
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
int at_sb_stdio_prepare(struct at_sb_stdio *io, const struct at_sandbox_spec *o,
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
/* In the supervisor: receive the master, relay, the caller's terminal raw. */
int at_sb_pty_receive(struct at_sb_stdio *io, struct at_error *err);
/* SIGWINCH: the new size to the pty (true), or nothing to do here (false). */
bool at_sb_pty_winch(struct at_sb_stdio *io);

/* supervise.c */
enum { AT_SB_OUT, AT_SB_ERR, AT_SB_BOTH, AT_SB_CAPTURES };   /* stdout, stderr, interleaved */

struct at_sb_super {
	/* in */
	int init_pid;
	int sig_fd, report_fd, out_fd, err_fd;   /* set to -1 once at EOF and closed */
	struct at_sb_stdio *stdio;               /* the pumps, polled with the rest; or NULL */
	/* Called at the init's exit report, the command's tree gone but the init's cgroup kept. */
	void (*at_exit_report)(void *arg);
	void *arg;
	int cancel_fd;                           /* -1: none */
	uint64_t timeout_ms;
	/* out (the captures set up by the caller, each with its cap) */
	struct at_capture cap[AT_SB_CAPTURES];
	bool init_done, timed_out, cancelled;
	int init_status;
	struct rusage ru;
	bool have_setup_fail, have_exec_fail, have_timing, have_cmd_status;
	struct at_sb_report setup_fail, exec_fail;
	int64_t t_ns[AT_STEP_COUNT];  /* from the init's exit report */
	int64_t t_done_ns;            /* when the init was reaped */
	int cmd_status;
};

/* Wait for the run to end (reading reports and output); 0, or -1 with errno. */
int at_sb_supervise(struct at_sb_super *s);

#endif
