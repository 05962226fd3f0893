/*
 * gate.h - the review gate: judge a task (or, in CI, a branch) by the policy
 * of its base.
 *
 * The policy is read first, from the base revision (never from the task's
 * own changes), or from policy_file when one is named. With or without a
 * policy, the change set of the task's full state is worked out and its
 * files that tools on the host run or obey are listed (core/hostfiles.h):
 * the rule host_files fails on one unless the policy allows them ("host_files":
 * "allow"). Without a policy that is the only rule. With one, its rules
 * judge the change set too, and
 * its checks run sandboxed, each in a scratch worktree (git/scratch.h)
 * holding exactly the tree judged, never the task's worktree: they see no
 * ignored or stale files and cannot change what they judge.
 *
 * The base revision is the tip of the task's base branch, the branch accept
 * would merge into, so a policy tightened there after the task started
 * applies; the task's base_commit when it has no base branch or that branch
 * is gone. In CI it is the --base revision itself. A task cannot loosen its
 * policy: its own edit of .agenttask/policy.json is never read.
 */
#ifndef AT_APP_GATE_H
#define AT_APP_GATE_H

#include <limits.h>
#include <stdbool.h>

#include "app/app.h"
#include "core/json.h"
#include "core/policy.h"

struct at_gate_report {
	char task[AT_NAME_MAX + 1];      /* the task judged; "" for two revisions (CI) */
	bool has_policy;                 /* false: only host_files was judged (note says why) */
	bool judged;                     /* base and tree are known (a diff was made) */
	char policy[PATH_MAX + 64];      /* "main:.agenttask/policy.json", or the file */
	bool has_policy_commit;
	struct at_oid policy_commit;     /* the commit it was read at (not for a file) */
	struct at_oid base;              /* when judged: the merge base compared against */
	struct at_oid tree;              /* when judged: the tree judged */
	char note[PATH_MAX + 128];       /* why there is no policy, when so */
	struct at_policy_result res;
	struct at_strlist host_files;    /* every changed file the host runs, whether the
					    policy allows them or not (sorted) */
	at_json *network;                /* [{check, network}]: the allowances and connections
					    of each check with allow_hosts (app/net.h); NULL: none */
};

bool at_gate_report_passed(const struct at_gate_report *rep);
void at_gate_report_free(struct at_gate_report *rep);

/* The names of the failed rules and checks. */
int at_gate_report_failed(const struct at_gate_report *rep, struct at_strlist *out);

struct at_app_gate_opts {
	const char *name;                /* the task (NULL: by app->dir) ... */
	const char *base_rev;            /* ... or CI: head_rev judged against base_rev */
	const char *head_rev;            /* NULL: HEAD */
	const char *policy_file;         /* judge by this file instead of the base's policy */
	struct at_progress_hook progress;  /* each check as it starts */
};

struct at_app_gate_result {
	struct at_gate_report *report;
	struct at_strlist warnings;
};

/*
 * Judge. A malformed policy is an error (AT_EPOLICY), never a pass. A
 * task's verdict is written to its audit log (a failure to write is a
 * warning).
 */
int at_app_gate(const struct at_app *app, const struct at_app_gate_opts *o,
		struct at_app_gate_result *out, struct at_error *err);
void at_app_gate_result_release(struct at_app_gate_result *res);

#endif
