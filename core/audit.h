/*
 * audit.h - the task's audit log: <logs_dir>/NAME.jsonl.
 *
 * One JSON object per line, appended with O_APPEND in a single write(2), so
 * concurrent writers never interleave within a line. Every mutating command
 * writes one entry of its kind, through the typed builder of that kind
 * below: the schema is written down once, here, and nowhere else.
 *
 * The log is append-only from agenttask's side; a line that cannot be parsed
 * (a crash mid-write on a full disk, a hand edit) does not stop the reader.
 */
#ifndef AT_CORE_AUDIT_H
#define AT_CORE_AUDIT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/json.h"
#include "core/oid.h"
#include "core/run.h"
#include "core/strlist.h"
#include "core/task.h"

/* Largest line accepted, bytes (an entry is refused when longer). */
#define AT_AUDIT_LINE_MAX (4u << 20)

/* The log's path for task into buf; 0 or -1 (too long). */
int at_audit_path(const struct at_paths *p, const char *task, char *buf, size_t size);

/*
 * The schema: every event has "event" and "time" (ISO 8601 UTC, with
 * milliseconds for a run: its start), and these members, written by the
 * one builder of each kind below. Ids are full hex, branches short names.
 *
 *   new              base_branch, base_commit
 *   run              task, argv[], number (the run's: its checkpoint's, when
 *                    one was taken), start, duration_ms, exit_code, timed_out,
 *                    signal, max_rss_kb, user_cpu_ms, sys_cpu_ms, net,
 *                    binds[{path, writable}], limits{NAME: {value, mechanism,
 *                    default, note (what an rlimit weakens)}} (the timeout
 *                    one of them, in ms), network (with an allowlist or a
 *                    forward),
 *                    reason (when a limit or the timeout stopped it: timeout,
 *                    oom, pids, cpu, file-size), cancelled (when it was),
 *                    error {code, message} (when it did not run: the
 *                    sandbox's code; or could not be executed: "exec")
 *   gate             task, passed, tree (null: nothing judged), policy (null:
 *                    none), failed[] (names of the failed rules and checks),
 *                    network[{check, network}] (checks with allow_hosts: as
 *                    run's net records, each connection)
 *   accept-override  reason, tree, base_branch (before anything merges)
 *   accept           base_branch, commit, result (up-to-date, fast-forward,
 *                    merge, squash)
 *   commit           commit (only when one was made)
 *   discard          trash (the ref), saved ("full state" or "commits only
 *                    (--force)")
 *   restore          trash (the ref brought back), base_branch
 *   fork             from (the task forked), base_branch, base_commit, tip
 *                    (the commit both started from)
 *   import           old, new (the task's branch moved to the commit its HEAD
 *                    inside the sandbox named), objects (how many came in)
 *   repair           tip (the task's branch on the host: HEAD inside now),
 *                    dropped (the commit HEAD inside named, not imported;
 *                    null when it was the tip), reason (why it was not
 *                    imported; null), kept (where the old layer was set aside)
 *   rewind           to (the checkpoint the task was brought back to), saved
 *                    (the checkpoint that keeps the state it replaced), head
 *                    (the task's branch after it)
 *   file             op (write, edit, delete), path (relative to the worktree;
 *                    its controls escaped, bytes that are not UTF-8 shown as
 *                    U+FFFD), bytes (the file's size after), created (write):
 *                    a change an agent made through the MCP file tools
 *
 * The builders return 0, or an error (the entry was not written): a front
 * end reports it as a warning where the command itself already happened.
 */

/*
 * The primitive under the builders: append entry (an object with an
 * "event"; not consumed) to task's log, creating the logs directory and the
 * file (mode 0600) when missing, and adding "time" when absent. Everything
 * but the builders and their tests goes through a builder.
 */
int at_audit_append(const struct at_paths *p, const char *task, at_json *entry,
		    struct at_error *err);

int at_audit_new(const struct at_paths *p, const struct at_task *t, struct at_error *err);

struct at_audit_run {
	char *const *argv;                /* NULL-terminated */
	const struct at_run_result *res;
	int exit_code;                    /* what the run's caller exits with */
	bool net;
	const struct at_run_bind *binds;
	size_t nbinds;
	const struct at_limits *limits;   /* applied (asked for and defaults); NULL: none */
	uint64_t timeout_ms;
	const struct at_error *error;     /* why it did not run, or NULL */
	at_json *network;                 /* the allowlist and its connections, or NULL:
					     at_audit_run takes it (and frees it) */
	at_json *published;               /* [{port, host_port, url}] of run --publish, or NULL:
					     taken (and freed) as network */
	unsigned number;                  /* the run's number (its checkpoint's), 0: none */
};
int at_audit_run(const struct at_paths *p, const char *task, const struct at_audit_run *e,
		 struct at_error *err);

/* The "limits" member of a run's entry (and of `run --json`). */
at_json *at_audit_limits_json(const struct at_limits *l, const enum at_limit_mech *mech,
			      uint64_t timeout_ms);

/*
 * tree NULL: nothing was judged (no policy); policy NULL: none; network
 * (copied; NULL: none): the connections of the checks with allow_hosts.
 */
int at_audit_gate(const struct at_paths *p, const char *task, bool passed,
		  const struct at_oid *tree, const char *policy, const struct at_strlist *failed,
		  const at_json *network, struct at_error *err);

int at_audit_override(const struct at_paths *p, const struct at_task *t, const char *reason,
		      const struct at_oid *tree, struct at_error *err);

int at_audit_accept(const struct at_paths *p, const char *task, const char *base_branch,
		    const struct at_oid *commit, const char *result, struct at_error *err);

int at_audit_commit(const struct at_paths *p, const char *task, const struct at_oid *commit,
		    struct at_error *err);

int at_audit_discard(const struct at_paths *p, const char *task, const char *trash_ref,
		     bool commits_only, struct at_error *err);

int at_audit_import(const struct at_paths *p, const char *task, const struct at_oid *old,
		    const struct at_oid *new_tip, size_t objects, struct at_error *err);

/* `agenttask rewind` (app/rewind.h). */
int at_audit_rewind(const struct at_paths *p, const char *task, unsigned to, unsigned saved,
		    const struct at_oid *head, struct at_error *err);

/* `agenttask repair` (app/repair.h): dropped and reason may be NULL. */
int at_audit_repair(const struct at_paths *p, const char *task, const struct at_oid *tip,
		    const struct at_oid *dropped, const char *reason, const char *kept,
		    struct at_error *err);

/* A file tool's change (app/files.h): op "write", "edit" or "delete". */
int at_audit_file(const struct at_paths *p, const char *task, const char *op, const char *path,
		  uint64_t bytes, bool created, struct at_error *err);

int at_audit_restore(const struct at_paths *p, const struct at_task *t, const char *trash_ref,
		     struct at_error *err);

/* `agenttask fork FROM NEW` (app/fork.h), in NEW's log. */
int at_audit_fork(const struct at_paths *p, const struct at_task *t, const char *from,
		  const struct at_oid *tip, struct at_error *err);

/*
 * Read task's log into *array_out, oldest first (an empty array when there
 * is no log yet). A line that is not a JSON object is not dropped silently:
 * it appears as {"event": "corrupt", "line": N, "error": {"code": "corrupt",
 * "message": "..."}}. A run's error written as a string (by an older
 * agenttask) is read as {code, message} too.
 */
int at_audit_read(const struct at_paths *p, const char *task, at_json **array_out,
		  struct at_error *err);

/*
 * The time of an entry as at_audit_read gives it ("time", ISO 8601 UTC,
 * milliseconds dropped; a run's end: its start plus its duration), in
 * seconds since the epoch; false when it has none that parses.
 */
bool at_audit_entry_time(const at_json *entry, int64_t *secs);

/*
 * The time of the task's newest entry of any event (0 when the log is
 * empty or missing): when it last did anything agenttask recorded.
 */
int at_audit_last_time(const struct at_paths *p, const char *task, int64_t *secs,
		       struct at_error *err);

/*
 * The same for a log's bytes (buf need not be NUL-terminated); `what`
 * names it in messages. What at_audit_read does once the file is open.
 */
int at_audit_parse(const char *buf, size_t len, const char *what, at_json **array_out,
		   struct at_error *err);

#endif
