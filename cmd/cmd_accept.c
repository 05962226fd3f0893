/*
 * agenttask accept [NAME] [--ff-only | --squash] [-m MSG] [--keep] [--tree ID]
 *                  [--override REASON] [--policy FILE]
 *
 * The order matters: the --tree check and the gate come first (the gate may
 * run checks for a long time, so it runs before the lock is taken, and the
 * tree it judged is then bound into the merge: a task that changes after the
 * gate is refused). Everything that writes happens under the lock, in
 * at_merge_accept, which decides every refusal before it writes anything.
 *
 * --override REASON only matters when the gate fails. It is recorded twice:
 * in the task's audit log (before anything merges; the log goes with the
 * task unless --keep) and as an "Agenttask-Override: REASON" trailer of the
 * new commit, the record that lasts. A fast-forward makes no commit, so an
 * override turns it into a merge commit (git merge --no-ff), and is refused
 * with --ff-only.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/progress.h"
#include "core/esc.h"
#include "cmd/review.h"
#include "core/audit.h"
#include "core/json.h"
#include "core/lock.h"
#include "core/runs.h"
#include "git/merge.h"
#include "git/worktree.h"

#define OVERRIDE_MAX 500

struct accept_args {
	const char *name;
	struct at_merge_opts merge;
	const char *override;
	const char *policy;
	bool keep;
	bool quiet;             /* no progress of the gate's checks */
	bool force;                      /* kill the task's running commands */
	uint64_t max_file_size;
};

struct accept_run {
	struct at_repo *repo;
	struct at_task task;
	struct at_gate_report *failed;   /* the failed gate, printed after the error */
	char gated_tree[AT_OID_HEXSZ + 1];
	char trailer[OVERRIDE_MAX + 32];
	bool overriding;
	bool remove_failed;              /* merged, but the task could not be removed */
	struct at_merge_result res;
};

static bool is_tree_id(const char *s)
{
	size_t i;

	for (i = 0; s[i]; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return i == AT_OID_HEXSZ;
}

static bool is_blank(const char *s)
{
	for (; *s; s++)
		if (!isspace((unsigned char)*s))
			return false;
	return true;
}

/* A reason is one line of printable text: it becomes a commit trailer. */
static bool is_reason(const char *s)
{
	size_t i;

	for (i = 0; s[i]; i++)
		if (iscntrl((unsigned char)s[i]))
			return false;
	return i > 0 && i <= OVERRIDE_MAX && !is_blank(s);
}

static int check_args(const struct accept_args *a, bool ff_only, bool squash)
{
	if (ff_only && squash)
		return at_cli_usage("accept", "--ff-only and --squash cannot be combined");
	if (a->merge.message && is_blank(a->merge.message))
		return at_cli_usage("accept", "empty commit message");
	if (a->merge.expect_tree && !is_tree_id(a->merge.expect_tree))
		return at_cli_usage("accept", "invalid tree id '%s' (expected %d hex digits)",
				    a->merge.expect_tree, AT_OID_HEXSZ);
	if (a->override && !is_reason(a->override))
		return at_cli_usage("accept", "--override needs a reason: one line of text, "
				    "at most %d characters", OVERRIDE_MAX);
	return -1;
}

/* -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, struct accept_args *a)
{
	static const struct option longopts[] = {
		{ "ff-only", no_argument, NULL, 'F' },
		{ "squash", no_argument, NULL, 'S' },
		{ "message", required_argument, NULL, 'm' },
		{ "keep", no_argument, NULL, 'k' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "force", no_argument, NULL, 'f' },
		{ "tree", required_argument, NULL, 't' },
		{ "override", required_argument, NULL, 'o' },
		{ "policy", required_argument, NULL, 'p' },
		AT_CLI_MAX_FILE_SIZE_OPTION,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool ff_only = false, squash = false;
	int c;

	while ((c = at_cli_getopt(argc, argv, "m:fqh", longopts)) != -1) {
		switch (c) {
		case 'F':
			ff_only = true;
			break;
		case 'S':
			squash = true;
			break;
		case 'm':
			a->merge.message = optarg;
			break;
		case 'q':
			a->quiet = true;
			break;
		case 'k':
			a->keep = true;
			break;
		case 'f':
			a->force = true;
			break;
		case 't':
			a->merge.expect_tree = optarg;
			break;
		case 'o':
			a->override = optarg;
			break;
		case 'p':
			a->policy = optarg;
			break;
		case AT_CLI_OPT_MAX_FILE_SIZE:
			if (at_cli_max_file_size("accept", optarg, &a->max_file_size) != 0)
				return AT_EXIT_USAGE;
			break;
		case 'h':
			return at_cli_help("accept");
		default:
			return at_cli_bad_option("accept");
		}
	}
	if (optind + 1 < argc)
		return at_cli_usage("accept", "too many arguments");
	a->name = optind < argc ? argv[optind] : NULL;
	a->merge.mode = ff_only ? AT_MERGE_FF_ONLY : squash ? AT_MERGE_SQUASH : AT_MERGE_AUTO;
	/*
	 * -m asks for a commit with that message; a fast-forward makes none and
	 * would drop it (as git merge -m does, silently). So -m makes a merge
	 * commit where a fast-forward would do, and is refused with --ff-only.
	 */
	if (a->merge.message && ff_only)
		return at_cli_usage("accept", "-m needs a commit for its message, which --ff-only "
				    "forbids: drop one of them");
	if (a->merge.message && a->merge.mode == AT_MERGE_AUTO)
		a->merge.mode = AT_MERGE_NO_FF;
	return check_args(a, ff_only, squash);
}

/*
 * With a policy, the gate must pass, or be overridden with a reason. The
 * override is recorded as a trailer of a new commit, so it forces one: a
 * fast-forward becomes a merge commit (like git merge --no-ff).
 */
static int run_gate(struct at_cli *cli, struct accept_run *run, struct accept_args *a,
		    struct at_error *err)
{
	struct at_gate_report *rep = NULL;
	int rc;

	if ((rc = at_review_task(cli, run->repo, &run->task, a->policy, &rep, err)) < 0)
		return rc;
	if (at_gate_report_has_policy(rep)) {
		snprintf(run->gated_tree, sizeof(run->gated_tree), "%s", at_gate_report_tree(rep));
		if (run->gated_tree[0])
			a->merge.gated_tree = run->gated_tree;
	}
	if (!at_gate_report_has_policy(rep) || at_gate_report_passed(rep)) {
		if (a->override)
			fprintf(stderr, "agenttask: note: nothing to override (%s); "
				"--override ignored\n", at_gate_report_has_policy(rep) ?
				"the gate passed" : "no review policy");
		at_gate_report_free(rep);
		return 0;
	}
	if (!a->override) {
		run->failed = rep;
		return at_error_set(err, AT_EGATE, "task '%s' failed the review gate "
				    "(fix it, or accept with --override REASON)", run->task.name);
	}
	at_gate_report_free(rep);
	if (a->merge.mode == AT_MERGE_FF_ONLY)
		return at_error_set(err, AT_EUSAGE, "--override is recorded in a new commit, which "
				    "--ff-only forbids: drop --ff-only");
	run->overriding = true;
	snprintf(run->trailer, sizeof(run->trailer), "Agenttask-Override: %s", a->override);
	a->merge.trailer = run->trailer;
	if (a->merge.mode == AT_MERGE_AUTO)
		a->merge.mode = AT_MERGE_NO_FF;
	return 0;
}

/*
 * The override goes to the task's audit log before anything merges: no
 * overridden accept without a record. The log outlives the task, and the
 * Agenttask-Override trailer records it in history too.
 */
static int record_override(const struct accept_run *run, const struct accept_args *a,
			   struct at_error *err)
{
	at_json *e = at_json_object();
	int rc;

	if (!e || at_json_add_string(e, "event", "accept-override") < 0 ||
	    at_json_add_string(e, "reason", a->override) < 0 ||
	    at_json_add_string(e, "tree", run->gated_tree) < 0 ||
	    at_json_add_string(e, "base_branch", at_branch_short(run->task.base_branch)) < 0)
		rc = at_error_set(err, AT_ESYS, "out of memory");
	else
		rc = at_audit_append(at_repo_paths(run->repo), run->task.name, e, err);
	at_json_free(e);
	return rc;
}

static const char *merge_kind_name(enum at_merge_kind kind)
{
	switch (kind) {
	case AT_MERGED_UP_TO_DATE:
		return "up-to-date";
	case AT_MERGED_FAST_FORWARD:
		return "fast-forward";
	case AT_MERGED_COMMIT:
		return "merge";
	case AT_MERGED_SQUASH:
		return "squash";
	}
	return "unknown";
}

/*
 * Under the lock: the task again (it may be gone by now), its running
 * commands stopped unless it is kept, merge, remove.
 */
static int run_locked(struct accept_run *run, const struct accept_args *a, struct at_error *err)
{
	struct at_runs_guard guard = AT_RUNS_GUARD_INIT;
	int lock = -1, rc;

	rc = at_lock_acquire(at_repo_paths(run->repo), &lock, err);
	if (rc == 0)
		rc = at_task_resolve(run->repo, run->task.name, ".", &run->task, err);
	if (rc == 0 && !a->keep)
		rc = at_runs_stop(at_repo_paths(run->repo), run->task.name, a->force, &guard, err);
	if (rc == 0 && run->overriding)
		rc = record_override(run, a, err);
	if (rc == 0)
		rc = at_merge_accept(run->repo, &run->task, &a->merge, &run->res, err);
	if (rc == 0)
		at_cli_audit(run->repo, run->task.name, "accept", "base_branch",
			     at_branch_short(run->res.base_branch), "commit", run->res.new_tip,
			     "result", merge_kind_name(run->res.kind), NULL);
	/* The base has moved: a failure from here on is reported, not returned. */
	if (rc == 0 && !a->keep)
		run->remove_failed = at_task_remove(run->repo, &run->task, err) < 0;
	at_runs_release(&guard, rc == 0 && !run->remove_failed);
	at_lock_release(lock);
	return rc;
}

static void print_result(const struct accept_run *run, const struct accept_args *a)
{
	const struct at_merge_result *res = &run->res;
	const char *base = at_branch_short(res->base_branch);

	switch (res->kind) {
	case AT_MERGED_UP_TO_DATE:
		printf("'%s' already has all of task '%s': nothing to merge\n", base,
		       run->task.name);
		break;
	case AT_MERGED_FAST_FORWARD:
		printf("accepted task '%s': fast-forwarded '%s' to %.12s\n", run->task.name, base,
		       res->new_tip);
		break;
	case AT_MERGED_COMMIT:
		printf("accepted task '%s': merged into '%s' as %.12s%s\n", run->task.name, base,
		       res->new_tip, run->overriding ? " (gate overridden)" : "");
		break;
	case AT_MERGED_SQUASH:
		printf("accepted task '%s': squashed into '%s' as %.12s%s\n", run->task.name, base,
		       res->new_tip, run->overriding ? " (gate overridden)" : "");
		break;
	}
	if (res->updated_worktree[0])
		printf("updated the checkout of '%s' in '%s'\n", base, res->updated_worktree);
	if (a->keep)
		printf("kept task '%s' (--keep)\n", run->task.name);
	else if (!run->remove_failed)
		printf("removed task '%s'\n", run->task.name);
}

static int report_failure(struct accept_run *run, const struct at_error *err)
{
	int status = at_cli_fail(err);
	size_t i;

	for (i = 0; i < run->res.paths.count; i++) {
		at_esc_fputs(stderr, run->res.paths.paths[i], 0);   /* the task's names */
		fputc('\n', stderr);
	}
	if (run->failed)
		at_gate_report_print_failures(run->failed, stderr);
	return status;
}

int cmd_accept(struct at_cli *cli, int argc, char **argv)
{
	struct accept_args a = { NULL, AT_MERGE_OPTS_INIT, NULL, NULL, false, false, false, 0 };
	struct at_cli_progress progress;
	struct at_error err = AT_ERROR_INIT;
	struct accept_run run;
	int rc, status;

	if ((status = parse_args(argc, argv, &a)) >= 0)
		return status;
	memset(&run, 0, sizeof(run));
	cli->max_file_size = a.max_file_size;
	rc = at_cli_open(cli, &run.repo, &err);
	if (rc == 0)
		rc = at_cli_task(cli, run.repo, a.name, &run.task, &err);
	/* A stale review is refused before the gate spends time on it. */
	if (rc == 0 && a.merge.expect_tree)
		rc = at_merge_check_tree(run.repo, &run.task, a.merge.expect_tree, &err);
	/* The gate's checks may take long: their progress, before the lock is taken. */
	at_cli_progress_init(&progress, a.quiet);
	cli->progress = at_cli_progress_hook(&progress);
	if (rc == 0)
		rc = run_gate(cli, &run, &a, &err);
	at_cli_progress_end(&progress, rc == 0);
	if (rc == 0)
		rc = run_locked(&run, &a, &err);
	if (rc == 0)
		print_result(&run, &a);
	if (rc == 0 && run.remove_failed) {
		at_esc_printf(stderr, "agenttask: task '%s' was accepted but not removed: %s\n",
			      run.task.name, err.msg);
		status = AT_EXIT_FAIL;
	} else {
		status = rc == 0 ? AT_EXIT_OK : report_failure(&run, &err);
	}
	at_gate_report_free(run.failed);
	at_merge_result_release(&run.res);
	at_repo_free(run.repo);
	return status;
}
