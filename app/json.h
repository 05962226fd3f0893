/*
 * json.h - the JSON form of each result, the same for every front end
 * (`list --json`, `diff --json`, a gate report, `run --json`, an MCP
 * response). Each returns a new object (the caller frees it) or NULL when
 * out of memory.
 */
#ifndef AT_APP_JSON_H
#define AT_APP_JSON_H

#include "app/accept.h"
#include "app/checkpoint.h"
#include "app/comment.h"
#include "app/commit.h"
#include "app/diff.h"
#include "app/discard.h"
#include "app/drop.h"
#include "app/gc.h"
#include "app/new.h"
#include "app/doctor.h"
#include "app/gate.h"
#include "app/rewind.h"
#include "app/run.h"
#include "app/task.h"
#include "app/du.h"
#include "app/fork.h"
#include "app/live.h"
#include "core/json.h"

/* name, phase, branch, base_branch, base_commit, head_commit, path, created, dirty, ... */
at_json *at_app_task_json(const struct at_task *t, const struct at_task_info *info);

/* Add base_moved, base_ahead, merges_cleanly (null when unknown), conflicts (and preview_error). */
int at_app_preview_json(at_json *o, const struct at_app_preview *p);

/* task (a task's diff), merge_base, tree, files[], additions, deletions; and the preview's keys. */
at_json *at_app_diff_json(struct at_app_diff *d, struct at_error *err);

/* Add "patch": the patch text, as git prints it without colour (`diff --json --patch`). */
int at_app_diff_json_add_patch(at_json *j, struct at_app_diff *d, struct at_error *err);

/* task, entry, ref, discarded, tip, base_branch: one entry of `trash`. */
at_json *at_app_trash_json(const struct at_trash_entry *e);

/*
 * task (a task's gate), passed, merge_base, tree (null when nothing was judged), policy,
 * policy_commit, note, results[].
 */
at_json *at_app_gate_json(const struct at_gate_report *rep);

/* {"error": {"code": at_error_code_name, "message"}}: what a failed command reports. */
at_json *at_app_error_json(const struct at_error *err);

/*
 * task, exit_code, reason (exit, signal, timeout, oom, pids, cpu, file-size;
 * "error" when the sandbox could not be set up), signal, timed_out,
 * cancelled, duration_ms, max_rss_kb, user/sys_cpu_ms, output_max; stdout,
 * stderr, output (interleaved) each with _truncated, _dropped and, when the
 * bytes are not UTF-8, _base64; limits; error {code, message} when the
 * sandbox failed or the command could not be executed.
 */
at_json *at_app_run_json(const struct at_app_run_opts *o, const struct at_app_run_result *res,
			 const struct at_error *run_err);

/* files (as diff --json's), additions, deletions of what a run changed, added to o. */
int at_app_run_changes_add(at_json *o, const struct at_change_set *cs);

/* task, checkpoints [{number, kind, commit, head, tree, time}], runs [{number, last,
 * files, additions, deletions}], warnings (docs/json.md). */
at_json *at_app_checkpoints_json(const struct at_app_checkpoints *c);

/* What each numbered run of l changed, added to its entry (files, additions, deletions). */
int at_app_log_add_changes(struct at_app_log *l);

/*
 * What the commands that change something report (docs/json.md has each
 * schema). One name for one meaning everywhere: "task" is the name of the
 * task a result is about ("name" only inside a task object, whose name it
 * is); commits are 40-hex ids; "warnings" lists what went wrong after the
 * command's work was done.
 */
at_json *at_app_new_json(const struct at_app_new_result *r);
at_json *at_app_commit_json(const struct at_app_commit_result *r);
at_json *at_app_rewind_json(const struct at_app_rewind_result *r);
at_json *at_app_accept_json(const struct at_app_accept_opts *o, const struct at_app_accept_result *r);
at_json *at_app_discard_json(const struct at_app_discard_result *r);
at_json *at_app_restore_json(const struct at_app_restore_result *r);
at_json *at_app_drop_json(const struct at_app_drop_result *r);
at_json *at_app_gc_json(const struct at_app_gc_result *r);

/*
 * The comments a result shows, as an array of {id, path, line, end_line,
 * outdated, made_on {tree, line, end_line}, text, author, time, resolved}
 * (path and lines null on the whole change): the same for `comments
 * --json`, the MCP tool review_comments, run --json and the sandbox's file.
 */
at_json *at_app_comments_json(const struct at_app_comments_result *res);
/* {task, open (how many), comments (that array)}: `comments --json`, the MCP tool. */
at_json *at_app_comments_result_json(const struct at_app_comments_result *res);

/*
 * du: {tasks: [{task, worktree, home, caches, git (bytes), total, trash_entries,
 * error (only when it could not be measured)}], total}; the schema in docs/json.md.
 */
at_json *at_app_du_json(const struct at_app_du *d);

/*
 * A task's activity for list --json's "live": state, command, since,
 * cpu_ms, memory_bytes, usage_source, runs, exit_code, exited_at, gate
 * {passed, time}, change {files, additions, deletions}, ports [{port,
 * host_port, url}]; null where there is none (docs/json.md).
 */
at_json *at_app_live_json(const struct at_app_live *l);

/* fork: the new task, as new gives it (its head the commit it started from). */
at_json *at_app_fork_json(const struct at_app_fork_result *r);

/* can_sandbox, checks[{check, title, state, detail, fix (null when none)}]. */
at_json *at_app_doctor_json(const struct at_doctor *d);

#endif
