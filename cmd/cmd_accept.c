/*
 * cmd_accept.c - agenttask accept [NAME] [--ff-only | --squash] [-m MSG] [--keep] [--quiet]
 *                [--json]
 *                [--tree ID] [--override REASON] [--policy FILE] [--max-file-size SIZE]
 * (app/accept.h has the order of things and what an override records.)
 */
#include "app/accept.h"
#include "app/json.h"
#include "cmd/commands.h"
#include "cmd/print.h"
#include "cmd/progress.h"
#include "core/esc.h"

/* -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, struct at_app_accept_opts *o, struct at_app *app,
		      bool *quiet, bool *json)
{
	static const struct option longopts[] = {
		{ "ff-only", no_argument, NULL, 'F' },
		{ "squash", no_argument, NULL, 'S' },
		{ "message", required_argument, NULL, 'm' },
		{ "keep", no_argument, NULL, 'k' },
		{ "json", no_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "force", no_argument, NULL, 'f' },
		{ "tree", required_argument, NULL, 't' },
		{ "override", required_argument, NULL, 'o' },
		{ "policy", required_argument, NULL, 'p' },
		AT_CLI_MAX_FILE_SIZE_OPTION,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct at_error err = AT_ERROR_INIT;
	bool ff_only = false, squash = false;
	int c;

	while ((c = at_cli_getopt(argc, argv, "m:fqh", longopts)) != -1) {
		switch (c) {
		case 'F': ff_only = true; break;
		case 'S': squash = true; break;
		case 'm': o->message = optarg; break;
		case 'k': o->keep = true; break;
		case 'j': *json = true; break;
		case 'q': *quiet = true; break;
		case 'f': o->force = true; break;
		case 't': o->expect_tree = optarg; break;
		case 'o': o->override = optarg; break;
		case 'p': o->policy_file = optarg; break;
		case AT_CLI_OPT_MAX_FILE_SIZE:
			if (at_cli_max_file_size("accept", optarg, app) != 0)
				return AT_EXIT_USAGE;
			break;
		case 'h': return AT_EXIT_HELP;
		default: return at_cli_bad_option("accept");
		}
	}
	if (optind + 1 < argc)
		return at_cli_usage("accept", "too many arguments");
	if (ff_only && squash)
		return at_cli_usage("accept", "--ff-only and --squash cannot be combined");
	o->name = optind < argc ? argv[optind] : NULL;
	o->mode = ff_only ? AT_MERGE_FF_ONLY : squash ? AT_MERGE_SQUASH : AT_MERGE_AUTO;
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
		printf("accepted task '%s': fast-forwarded '%s' to %.12s\n", name, base, tip);
		break;
	case AT_MERGED_COMMIT:
		printf("accepted task '%s': merged into '%s' as %.12s%s\n", name, base, tip, over);
		break;
	case AT_MERGED_SQUASH:
		printf("accepted task '%s': squashed into '%s' as %.12s%s\n", name, base, tip, over);
		break;
	}
	if (r->merge.updated_worktree[0])
		printf("updated the checkout of '%s' in '%s'\n", base, r->merge.updated_worktree);
	if (o->keep)
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
	struct at_app_accept_opts o = { .mode = AT_MERGE_AUTO };
	struct at_error err = AT_ERROR_INIT;
	struct at_app app = *app_in;
	struct at_app_accept_result res;
	struct at_cli_progress progress;
	bool quiet = false, json = false;
	size_t i;
	int rc;

	if ((rc = parse_args(argc, argv, &o, &app, &quiet, &json)) >= 0)
		return rc;
	fflush(NULL);
	/* The gate's checks may take long: their progress. */
	at_cli_progress_init(&progress, quiet);
	o.progress = at_cli_progress_hook(&progress);
	rc = at_app_accept(&app, &o, &res, &err);
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
	else if (json)
		rc = at_cli_print_json(at_app_accept_json(&o, &res)) ? AT_EXIT_FAIL : 0;
	else
		print_result(&o, &res);
	if (rc == 0 && res.remove_failed) {
		at_esc_printf(stderr, "agenttask: task '%s' was accepted but not removed: %s\n",
			      res.task.name, res.remove_err.msg);
		rc = AT_EXIT_FAIL;
	}
	at_app_accept_result_release(&res);
	return rc;
}
