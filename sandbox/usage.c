/*
 * usage.c - a running sandbox's CPU and memory (usage.h).
 */
#include "sandbox/usage.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"
#include "sandbox/internal.h"
#include "sandbox/waiting.h"

static int64_t read_number(const char *path)
{
	char text[64];

	if (at_sb_read_proc(path, text, sizeof(text)) < 0)
		return -1;
	return strtoll(text, NULL, 10);
}

/* The run's cgroup of controller (v1; NULL: the v2 "0::" line), when it is not ours. */
static bool run_cgroup(int pid, const char *controller, char *buf, size_t size)
{
	char path[64], text[4096], mine[4096], *line, *save = NULL;
	bool found = false;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", pid);
	if (at_sb_read_proc(path, text, sizeof(text)) < 0 ||
	    at_sb_read_proc("/proc/self/cgroup", mine, sizeof(mine)) < 0)
		return false;
	for (line = strtok_r(text, "\n", &save); line && !found; line = strtok_r(NULL, "\n", &save)) {
		char *c = strchr(line, ':'), *rel = c ? strchr(c + 1, ':') : NULL;

		if (!rel)
			continue;
		*rel++ = '\0';
		if (controller ? strstr(c + 1, controller) != NULL : strcmp(c + 1, "") == 0)
			found = strstr(mine, rel) == NULL &&   /* the asker's own: not the run's */
				at_fmt(buf, size, "%s", rel) == 0;
	}
	return found;
}

static bool from_cgroup(int pid, struct at_sandbox_usage *out)
{
	char cg[1024], path[1200];
	int64_t cpu, mem;

	if (at_sb_cg2_unified()) {
		if (!run_cgroup(pid, NULL, cg, sizeof(cg)) ||
		    at_fmt(path, sizeof(path), "/sys/fs/cgroup%s/cpu.stat", cg) < 0 ||
		    (cpu = at_sb_cg_key(path, "usage_usec")) < 0 ||
		    at_fmt(path, sizeof(path), "/sys/fs/cgroup%s/memory.current", cg) < 0 ||
		    (mem = read_number(path)) < 0)
			return false;
		out->cpu_ms = (uint64_t)cpu / 1000;
	} else {
		if (!run_cgroup(pid, "memory", cg, sizeof(cg)) ||
		    at_fmt(path, sizeof(path), "/sys/fs/cgroup/memory%s/memory.usage_in_bytes", cg) < 0 ||
		    (mem = read_number(path)) < 0 ||
		    !run_cgroup(pid, "cpuacct", cg, sizeof(cg)) ||
		    at_fmt(path, sizeof(path), "/sys/fs/cgroup/cpu,cpuacct%s/cpuacct.usage", cg) < 0 ||
		    (cpu = read_number(path)) < 0)
			return false;
		out->cpu_ms = (uint64_t)cpu / 1000000;
	}
	out->memory_bytes = (uint64_t)mem;
	out->source = "cgroup";
	return true;
}

/* utime + stime (ticks) and rss (pages) of one process. */
static bool proc_use(int pid, uint64_t *ticks, uint64_t *pages)
{
	char path[64], text[1024], *p;
	unsigned long long ut, st;
	long long rss;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (at_sb_read_proc(path, text, sizeof(text)) < 0 || !(p = strrchr(text, ')')))
		return false;
	/* state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
	   cutime cstime priority nice threads itrealvalue starttime vsize rss */
	if (sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %*d %*d %*d %*d"
		   " %*d %*d %*u %*u %lld", &ut, &st, &rss) != 3)
		return false;
	*ticks += ut + st;
	*pages += rss > 0 ? (uint64_t)rss : 0;
	return true;
}

static bool from_proc(int init_pid, struct at_sandbox_usage *out)
{
	int *v = malloc(sizeof(int) * AT_SANDBOX_WAITING_MAX_PROCS);
	uint64_t ticks = 0, pages = 0;
	long hz = sysconf(_SC_CLK_TCK), page = sysconf(_SC_PAGESIZE);
	size_t n = 0, i;
	bool ok;

	if (!v)
		return false;
	ok = proc_use(init_pid, &ticks, &pages);
	at_sb_add_children(init_pid, v, &n, AT_SANDBOX_WAITING_MAX_PROCS);
	for (i = 0; ok && i < n; i++) {
		at_sb_add_children(v[i], v, &n, AT_SANDBOX_WAITING_MAX_PROCS);
		proc_use(v[i], &ticks, &pages);
	}
	free(v);
	if (!ok)
		return false;
	out->cpu_ms = ticks * 1000 / (uint64_t)(hz > 0 ? hz : 100);
	out->memory_bytes = pages * (uint64_t)(page > 0 ? page : 4096);
	out->source = "proc";
	return true;
}

bool at_sandbox_run_usage(int init_pid, struct at_sandbox_usage *out)
{
	if (init_pid <= 0)
		return false;
	return from_cgroup(init_pid, out) || from_proc(init_pid, out);
}
