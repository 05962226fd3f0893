/*
 * review.h - the review gate as accept and gate use it.
 *
 * The policy is read from the task's base revision (never from the task's
 * own changes), or from policy_file when one is named. Rules run on the
 * task's full state; checks run in fresh sandboxed runs.
 *
 * The base revision is the tip of the task's base branch, the branch accept
 * would merge into, so a policy tightened there after the task started
 * applies; the task's base_commit when it has no base branch or that branch
 * is gone. In CI it is the --base revision itself. A task cannot loosen its
 * policy: its own edit of .agenttask/policy.json is never read.
 *
 * Checks run in a scratch worktree (git/scratch.h) holding exactly the tree
 * judged, never in the task's worktree, so they see no ignored or stale
 * files and cannot change what they judge.
 */
#ifndef AT_CMD_REVIEW_H
#define AT_CMD_REVIEW_H

#include <stdbool.h>
#include <stdio.h>

#include "cmd/cli.h"

struct at_gate_report;

/*
 * Evaluate the gate for a task. On success *out is a report (free it with
 * at_gate_report_free). A malformed policy is an error (AT_EPOLICY), never
 * a pass.
 */
int at_review_task(struct at_cli *cli, struct at_repo *r, const struct at_task *t,
		   const char *policy_file, struct at_gate_report **out, struct at_error *err);

/*
 * CI: judge head_rev's change against merge-base(base_rev, head_rev), with
 * the policy read from base_rev itself (or policy_file); checks run in a
 * scratch worktree of head_rev that is removed afterwards.
 */
int at_review_revs(struct at_cli *cli, struct at_repo *r, const char *base_rev,
		   const char *head_rev, const char *policy_file, struct at_gate_report **out,
		   struct at_error *err);

/* False when there was no policy at all (nothing was judged). */
bool at_gate_report_has_policy(const struct at_gate_report *rep);
bool at_gate_report_passed(const struct at_gate_report *rep);

/* The id of the tree the gate judged. */
const char *at_gate_report_tree(const struct at_gate_report *rep);

/* One line per failed rule (with its paths, and a failing check's output). */
void at_gate_report_print_failures(const struct at_gate_report *rep, FILE *f);

/* The whole report: as text, as JSON (caller frees), as a pull-request comment. */
void at_gate_report_print(const struct at_gate_report *rep, FILE *f, bool color);
at_json *at_gate_report_json(const struct at_gate_report *rep);
void at_gate_report_print_markdown(const struct at_gate_report *rep, FILE *f);

void at_gate_report_free(struct at_gate_report *rep);

#endif
