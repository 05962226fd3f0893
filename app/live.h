/*
 * live.h - what each task is doing now, for `list --json` and `list
 * --watch`: running (its command, since when, CPU and memory), waiting for
 * input (an interactive run whose foreground process reads its terminal),
 * exited (the last run's status and end, from the audit log) or idle; its
 * change (files, +, -), the gate's last verdict and its published ports.
 *
 * A watch holds the repository open and caches what is dear: a task's
 * change (one scan and a diff) is worked out again only when its audit
 * log, its worktree's top directory or its admin directory (the index, HEAD)
 * changed since (a run's end, an MCP file write, a commit, an import are
 * each logged), and the log is read again only when it changed. What is
 * cheap is read on every poll: the run records, /proc and the run's cgroup,
 * the published ports. A change made on the host by hand deep in the
 * worktree, with no run, is seen at the next logged event or the next
 * `list`. Nothing is changed and no lock is taken.
 */
#ifndef AT_APP_LIVE_H
#define AT_APP_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "app/app.h"
#include "core/ports.h"

enum at_live_state { AT_LIVE_IDLE, AT_LIVE_RUNNING, AT_LIVE_WAITING, AT_LIVE_EXITED };

/* "idle", "running", "waiting", "exited": the names --json and the view use. */
const char *at_live_state_name(enum at_live_state s);

struct at_app_live {
	enum at_live_state state;
	/* running or waiting: the newest live run */
	int pid;                        /* its agenttask */
	char command[256];              /* its command, arguments joined by spaces (the
					   agent's bytes: escape them to show them); cut */
	int64_t since;                  /* when it began, epoch seconds */
	bool has_usage;
	uint64_t cpu_ms, memory_bytes;
	const char *usage_source;       /* "cgroup" or "proc" (sandbox/usage.h) */
	size_t nruns;                   /* live runs */
	/* the last run that ended, from the log */
	bool has_exit;
	int exit_code;
	int64_t exited_at;
	/* the gate's last verdict, from the log */
	bool has_gate, gate_passed;
	int64_t gate_at;
	/* the change against the merge base; has_change false when it could not be worked out */
	bool has_change;
	size_t files, additions, deletions;
	/* published now (core/ports.h) */
	size_t nports;
	struct at_port_map ports[AT_PORTS_MAX];
};

struct at_app_watch_entry {
	struct at_task task;
	struct at_app_live live;
	struct at_error err;            /* the change could not be worked out: why */
};

struct at_app_watch;

/* A watch of app's repository; with changes false, no task's change is worked out. */
int at_app_watch_open(const struct at_app *app, bool changes, struct at_app_watch **out,
		      struct at_error *err);

/*
 * Every task now, sorted by name; *out and *n owned by w, valid until the
 * next poll or at_app_watch_free.
 */
int at_app_watch_poll(struct at_app_watch *w, const struct at_app_watch_entry **out, size_t *n,
		      struct at_error *err);
void at_app_watch_free(struct at_app_watch *w);

#endif
