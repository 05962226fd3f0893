/*
 * cmd_accept.c - agenttask accept: merge the task into its base branch (its
 * options: the table below, which --help and the parser both read).
 * (app/accept.h has the order of things and what an override records.)
 */
#include <string.h>

#include "app/accept.h"
#include "app/json.h"
#include "cmd/accept_pick.h"
#include "cmd/commands.h"
#include "cmd/print.h"
#include "cmd/progress.h"
#include "core/esc.h"

/* -1 to go on, else the exit status. */
struct accept_args {
	struct at_app app;               /* the front end's, with --max-file-size */
	struct at_app_accept_opts o;
	bool ff_only, squash, quiet, json, interactive;
	struct at_oid pick_tree, pick_state;
	struct at_strlist exclude;       /* --exclude PATHSPEC, repeatable */
};

const struct at_cli_opt cmd_accept_opts[] = {
	AT_CLI_OPT_FLAG(0, "ff-only", struct accept_args, ff_only,
			"fast-forward only; refuse when the base has moved on"),
	AT_CLI_OPT_FLAG(0, "squash", struct accept_args, squash,
			"one new commit on the base with the task's whole change"),
	AT_CLI_OPT_STRING('m', "message", "MSG", struct accept_args, o.message,
			  "message of the merge or squash commit; a task that would\n"
			  "fast-forward gets a merge commit instead (not with --ff-only)"),
	AT_CLI_OPT_FLAG(0, "keep", struct accept_args, o.keep,
			"keep the task (worktree and branch) after accepting it"),
	AT_CLI_OPT_FLAG('q', "quiet", struct accept_args, quiet,
			"no progress of the gate's checks on the terminal"),
	AT_CLI_OPT_FLAG(0, "json", struct accept_args, json,
			"print what moved as JSON (docs/json.md)"),
	AT_CLI_OPT_FLAG('f', "force", struct accept_args, o.force,
			"kill the task's running commands ('agenttask run') first"),
	AT_CLI_OPT_STRING(0, "tree", "ID", struct accept_args, o.expect_tree,
			  "refuse unless the task's full state is still tree ID (as reviewed)"),
	AT_CLI_OPT_STRING(0, "override", "REASON", struct accept_args, o.override,
			  "accept although the review gate fails; REASON is recorded in the\n"
			  "audit log and as an Agenttask-Override trailer of a merge commit"),
	AT_CLI_OPT_STRING(0, "policy", "FILE", struct accept_args, o.policy_file,
			  "judge the task by FILE instead of the base's .agenttask/policy.json"),
	AT_CLI_OPT_LIST(0, "exclude", "PATHSPEC", struct accept_args, exclude,
			"leave the changes PATHSPEC matches out (repeatable): only\n"
			"the rest of the change, or of the PATHSPEC after --, is accepted"),
	AT_CLI_OPT_FLAG('p', "interactive", struct accept_args, interactive,
			"walk the hunks on the terminal with git's keys (y n q a d s e ?),\n"
			"see the --stat of what they make, and accept exactly that"),
	AT_CLI_OPT_FLAG(0, "drop-rest", struct accept_args, o.drop_rest,
			"with a part: what is not accepted goes to the trash (restore\n"
			"brings the whole task back) instead of staying in the task"),
	AT_CLI_OPT_MAX_FILE_SIZE(struct accept_args, app),
	AT_CLI_OPT_END,
};

static int parse_args(int argc, char **argv, struct accept_args *a)
{
	struct at_error err = AT_ERROR_INIT;
	struct at_app_accept_opts *o = &a->o;
	int rc, dd;

	/* A pathspec comes after "--" (only its changes are accepted); options and NAME before. */
	for (dd = 1; dd < argc && strcmp(argv[dd], "--") != 0; dd++)
		;
	if (dd < argc) {
		o->paths = argv + dd + 1;
		o->npaths = (size_t)(argc - dd - 1);
		if (!o->npaths)
			return at_cli_usage("accept", "'--' needs a PATHSPEC after it");
	}
	argc = dd;
	if ((rc = at_cli_parse("accept", cmd_accept_opts, argc, argv, a)) >= 0)
		return rc;
	o->exclude = a->exclude.v;
	o->nexclude = a->exclude.n;
	if (optind + 1 < argc)
		return at_cli_usage("accept", "too many arguments");
	if (a->ff_only && a->squash)
		return at_cli_usage("accept", "--ff-only and --squash cannot be combined");
	o->name = optind < argc ? argv[optind] : NULL;
	if (a->interactive && (o->npaths || o->nexclude || o->expect_tree || a->json))
		return at_cli_usage("accept", "-p picks the part itself: not with a PATHSPEC, "
				    "--exclude, --tree or --json");
	o->mode = a->ff_only ? AT_MERGE_FF_ONLY : a->squash ? AT_MERGE_SQUASH : AT_MERGE_AUTO;
	return at_app_accept_check(o, &err) < 0 ? at_cli_usage("accept", "%s", err.msg) : -1;
}

static void print_result(const struct at_app_accept_opts *o, const struct at_app_accept_result *r)
{
	const char *base = at_branch_short(r->merge.base_branch), *name = r->task.name;
	const char *over = r->overriding ? " (gate overridden)" : "";
	char tip[AT_OID_HEXSZ + 1];

	at_oid_fmt(tip, &r->merge.new_tip);
	switch (r->merge.kind) {
	case AT_MERGED_UP_TO_DATE:
		printf("'%s' already has all of task '%s': nothing to merge\n", base, name);
		break;
	case AT_MERGED_FAST_FORWARD:
		printf("accepted %stask '%s': fast-forwarded '%s' to %.12s\n",
		       r->partial ? "part of " : "", name, base, tip);
		break;
	case AT_MERGED_COMMIT:
		printf("accepted %stask '%s': merged into '%s' as %.12s%s\n",
		       r->partial ? "part of " : "", name, base, tip, over);
		break;
	case AT_MERGED_SQUASH:
		printf("accepted task '%s': squashed into '%s' as %.12s%s\n", name, base, tip, over);
		break;
	}
	if (r->merge.updated_worktree[0])
		printf("updated the checkout of '%s' in '%s'\n", base, r->merge.updated_worktree);
	if (r->partial && r->trash[0])
		at_esc_printf(stdout, "the rest of task '%s' is in the trash ('%s'; 'agenttask "
			      "restore %s' brings the whole task back)\n", name, r->trash, name);
	if (r->partial && !o->drop_rest)
		printf("kept task '%s' with the rest of its change (%zu path%s; 'agenttask diff "
		       "%s' shows it)\n", name, r->left.n, r->left.n == 1 ? "" : "s", name);
	else if (o->keep)
		printf("kept task '%s' (--keep)\n", name);
	else if (!r->remove_failed)
		printf("removed task '%s'\n", name);
}

static int print_failure(const struct at_app_accept_result *r, const struct at_error *err)
{
	int status = at_cli_fail(err);
	size_t i;

	for (i = 0; i < r->merge.paths.n; i++) {
		at_esc_fputs(stderr, r->merge.paths.v[i], 0);   /* the task's names */
		fputc('\n', stderr);
	}
	if (r->failed_gate)
		at_cli_print_gate_failures(r->failed_gate, stderr);
	return status;
}

int cmd_accept(const struct at_app *app_in, int argc, char **argv)
{
	struct accept_args a = { .app = *app_in, .o = { .mode = AT_MERGE_AUTO } };
	struct at_error err = AT_ERROR_INIT;
	struct at_app_accept_result res;
	struct at_cli_progress progress;
	size_t i;
	int rc;

	if ((rc = parse_args(argc, argv, &a)) >= 0)
		return rc;
	if (a.interactive) {
		if ((rc = at_cli_pick(&a.app, a.o.name, false, &a.pick_tree, &a.pick_state)) != 0) {
			at_strlist_release(&a.exclude);
			return rc < 0 ? AT_EXIT_OK : rc;
		}
		a.o.pick_tree = &a.pick_tree;
		a.o.pick_state = &a.pick_state;
	}
	fflush(NULL);
	/* The gate's checks may take long: their progress. */
	at_cli_progress_init(&progress, a.quiet);
	a.o.progress = at_cli_progress_hook(&progress);
	rc = at_app_accept(&a.app, &a.o, &res, &err);
	at_cli_progress_end(&progress, rc == 0);
	for (i = 0; i < res.notes.n; i++)
		at_esc_printf(stderr, "agenttask: note: %s\n", res.notes.v[i]);
	at_cli_warnings(&res.warnings);
	if (rc < 0 && res.host_files.n)
		at_cli_host_files(&res.host_files, "changes", ": review it");
	else if (rc == 0)
		at_cli_host_files(&res.host_files, "accepted a change to", "");
	if (rc < 0)
		rc = print_failure(&res, &err);
	else if (a.json)
		rc = at_cli_print_json(at_app_accept_json(&a.o, &res)) ? AT_EXIT_FAIL : 0;
	else
		print_result(&a.o, &res);
	if (rc == 0 && res.remove_failed) {
		at_esc_printf(stderr, "agenttask: task '%s' was accepted but not removed: %s\n",
			      res.task.name, res.remove_err.msg);
		rc = AT_EXIT_FAIL;
	}
	at_app_accept_result_release(&res);
	at_strlist_release(&a.exclude);
	return rc;
}
