/*
 * internal.h - what the supervisor's files of sandbox/ share; never included
 * outside sandbox/. The child's side is child.h.
 *
 *   run.c        at_sandbox_run: prepare, clone, supervise, finish
 *   spec.c       the spec's builders; system.c the standard layout
 *   plan.c       the spec checked (the invariants) and turned into the child's plan
 *   seccomp.c    the system call policy, compiled to BPF
 *   limits.c     cgroups and rlimits
 *   supervise.c  the supervisor's wait: reports, output, signals, timeout, cancel
 *   opts.c       the environment, paths
 */
#ifndef AT_SANDBOX_INTERNAL_H
#define AT_SANDBOX_INTERNAL_H

#include <sys/resource.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* One row of the seccomp table, for the tests that check every row. */
struct at_sb_seccomp_row {
	const char *syscall;
	int errnum;               /* what the filter returns for it */
	unsigned int arg;         /* with has_arg: the argument compared ... */
	uint64_t mask, value;     /* ... (arg & mask) == value */
	bool has_arg;
};
size_t at_sb_seccomp_rows(const struct at_sb_seccomp_row **out);

/* limits.c */
/* Read a small procfs file (whose st_size is 0) into buf, NUL-terminated. */
int at_sb_read_proc(const char *path, char *buf, size_t size);

struct at_sb_cgroup {
	char dirs[4][256];        /* cgroup dirs made for this run (to remove after) */
	int ndirs;
};
int at_sb_cgroup_setup(const uint64_t *limits, enum at_limit_mech *mech,
		       struct at_sb_cgroup *cg, struct at_error *err);
int at_sb_cgroup_attach(const struct at_sb_cgroup *cg, int pid, struct at_error *err);
void at_sb_cgroup_remove(struct at_sb_cgroup *cg);

/* supervise.c */
struct at_sb_super {
	/* in */
	int init_pid;
	int sig_fd, report_fd, out_fd, err_fd;   /* set to -1 once at EOF and closed */
	int cancel_fd;                           /* -1: none */
	uint64_t timeout_ms;
	size_t capture_max;
	/* out */
	bool init_done, timed_out, cancelled;
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

#endif
