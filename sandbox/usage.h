/*
 * usage.h - what a running sandbox uses now, CPU and memory, as `list`
 * shows it. Asked from the host, by any process of the run's user, with
 * only the sandbox's init as the host sees it (core/runs.h records it).
 *
 * From the run's own cgroup where it has one (the init's cgroup is not the
 * asker's): on cgroup v2 cpu.stat's usage_usec and memory.current, on v1
 * cpuacct.usage and memory.usage_in_bytes. Without one (its limits are
 * rlimits), from /proc: utime + stime and the resident size of the init and
 * its descendants (at most AT_SANDBOX_WAITING_MAX_PROCS of them), which
 * misses what exited children used. Reads procfs and cgroupfs only.
 */
#ifndef AT_SANDBOX_USAGE_H
#define AT_SANDBOX_USAGE_H

#include <stdbool.h>
#include <stdint.h>

struct at_sandbox_usage {
	uint64_t cpu_ms;        /* CPU time, user and system, since the run began */
	uint64_t memory_bytes;  /* memory in use now */
	const char *source;     /* "cgroup" or "proc" */
};

/* false when init_pid is gone or nothing could be read. */
bool at_sandbox_run_usage(int init_pid, struct at_sandbox_usage *out);

#endif
