/*
 * cmd_diff.c - agenttask diff [NAME] [OPTIONS] [-- PATH...], or diff --base
 * REV [--head REV] (its options: the table below).
 *
 * The task's whole change (commits, uncommitted and untracked files) against
 * its merge base (in CI: REV's tree against merge-base(--base, --head), what
 * `gate --base` judges), printed as `git diff` prints it (cmd/diff_print.c).
 */
#include <string.h>
#include <unistd.h>

#include "app/diff.h"
#include "app/json.h"
#include "cmd/commands.h"
#include "cmd/diff_print.h"

enum diff_mode { MODE_PATCH, MODE_STAT, MODE_NAMES, MODE_JSON };

struct diff_args {
	struct at_app app;         /* the front end's, with --max-file-size */
	enum diff_mode mode;
	bool stat, names, json;    /* the options that choose the mode */
	const char *color;         /* --color=WHEN, NULL: auto */
	bool patch;                /* --patch: with --json, the patch text too */
	struct at_app_diff_opts o; /* with the pathspec after "--", as given */
};

const struct at_cli_opt cmd_diff_opts[] = {
	AT_CLI_OPT_FLAG(0, "stat", struct diff_args, stat, "a summary per file, like git diff --stat"),
	AT_CLI_OPT_FLAG(0, "name-only", struct diff_args, names, "only the names of the changed files"),
	AT_CLI_OPT_FLAG(0, "json", struct diff_args, json,
			"print a JSON object: merge_base, tree, files, additions, deletions,\n"
			"host_files"),
	AT_CLI_OPT_FLAG('p', "patch", struct diff_args, patch,
			"with --json: the patch text too (\"patch\"), as diff prints it"),
	AT_CLI_OPT_COLOR(struct diff_args, color,
			 "colour the output: auto (on a terminal; default), always, never"),
	AT_CLI_OPT_STRING(0, "base", "REV", struct diff_args, o.base_rev,
			  "CI mode, without a task: the head's change against its merge\n"
			  "base with REV, what gate --base judges"),
	AT_CLI_OPT_STRING(0, "head", "REV", struct diff_args, o.head_rev,
			  "with --base: the head revision (default HEAD)"),
	AT_CLI_OPT_FLAG(0, "since-review", struct diff_args, o.since_review,
			"what changed since you last reviewed the task (made a comment,\n"
			"accepted with --keep), not since its base"),
	AT_CLI_OPT_STRING(0, "against", "OTHER", struct diff_args, o.against,
			  "from the task's full state to task OTHER's (two attempts\n"
			  "compared: 'agenttask fork'), not from the merge base"),
	AT_CLI_OPT_STRING(0, "run", "N", struct diff_args, o.run,
			  "only what run N of the task changed (N as 'log' numbers runs)"),
	AT_CLI_OPT_STRING(0, "since", "N", struct diff_args, o.since,
			  "everything changed since just before run N"),
	AT_CLI_OPT_MAX_FILE_SIZE(struct diff_args, app),
	AT_CLI_OPT_END,
};

/*
 * After the change, on stderr (a pipe of the patch stays exact): one
 * warning per changed file that tools on the host run, which the gate
 * fails on unless the policy allows them (--json has them as host_files).
 */
static int host_files(struct at_app_diff *d, struct at_error *err)
{
	const struct at_strlist *h;
	int rc;

	if ((rc = at_app_diff_host_files(d, &h, err)) < 0)
		return rc;
	fflush(stdout);
	at_cli_host_files(h, "changes", ": review it before accepting");
	return 0;
}

/*
 * The patch, --stat and --name-only are escaped for a person (a terminal,
 * or --color, which only a viewer wants); to a pipe, without colour, they
 * stay byte-exact, a patch `git apply` takes. --json is exact (JSON-escaped).
 */
static int show(const struct diff_args *a, struct at_app_diff *d, bool color,
		struct at_error *err)
{
	struct at_cli_patch_out o = { color, color || isatty(STDOUT_FILENO) };
	at_json *j;
	int rc;

	if (a->mode != MODE_JSON)
		at_cli_page(&a->app);
	switch (a->mode) {
	case MODE_JSON:
		if (!(j = at_app_diff_json(d, err)))
			return err->code;
		if (a->patch && (rc = at_app_diff_json_add_patch(j, d, err)) < 0) {
			at_json_free(j);
			return rc;
		}
		/* at_cli_print_json has said what failed */
		return at_cli_print_json(j) == AT_EXIT_OK ? 0 : AT_ESYS;
	case MODE_STAT:
	case MODE_NAMES:
		if ((rc = at_cli_diff_text(d, a->mode == MODE_STAT, &o, err)) < 0)
			return rc;
		return host_files(d, err);
	case MODE_PATCH:
	default:
		if ((rc = at_app_diff_patch(d, at_cli_diff_line, &o, err)) < 0)
			return rc;
		if (at_app_diff_task(d) && !a->o.against && !a->o.run && !a->o.since)
			at_cli_diff_note(d);
		return host_files(d, err);
	}
}

/* 0 to go on; else what to return (an exit status, or AT_EXIT_HELP). */
static int parse_args(int argc, char **argv, struct diff_args *a)
{
	int rc, dd;

	/* The pathspec comes after "--"; options and NAME before it. */
	for (dd = 1; dd < argc && strcmp(argv[dd], "--") != 0; dd++)
		;
	if (dd < argc) {
		a->o.paths = argv + dd + 1;
		a->o.npaths = (size_t)(argc - dd - 1);
	}
	argc = dd;
	if ((rc = at_cli_parse("diff", cmd_diff_opts, argc, argv, a)) >= 0)
		return rc;
	/* One mode, however often given: --stat --stat is --stat. */
	if (a->stat + a->names + a->json > 1)
		return at_cli_usage("diff", "--stat, --name-only and --json cannot be combined");
	a->mode = a->stat ? MODE_STAT : a->names ? MODE_NAMES : a->json ? MODE_JSON : MODE_PATCH;
	if (a->patch && (a->mode == MODE_STAT || a->mode == MODE_NAMES))
		return at_cli_usage("diff", "--patch goes with --json (or alone): not with %s",
				    a->mode == MODE_STAT ? "--stat" : "--name-only");
	if (optind + 1 < argc)
		return at_cli_usage("diff", "too many arguments");
	a->o.name = optind < argc ? argv[optind] : NULL;
	if (a->o.head_rev && !a->o.base_rev)
		return at_cli_usage("diff", "--head needs --base");
	if (a->o.base_rev && a->o.name)
		return at_cli_usage("diff", "a task NAME and --base exclude each other");
	if (a->o.base_rev && a->o.since_review)
		return at_cli_usage("diff", "--since-review is a task's: not with --base");
	if (a->o.base_rev && a->o.against)
		return at_cli_usage("diff", "--against and --base exclude each other");
	if (a->o.base_rev && (a->o.run || a->o.since))
		return at_cli_usage("diff", "--run and --since are a task's: not with --base");
	if ((a->o.since_review ? 1 : 0) + (a->o.against ? 1 : 0) + (a->o.run ? 1 : 0) +
		    (a->o.since ? 1 : 0) > 1)
		return at_cli_usage("diff", "--since-review, --against, --run and --since "
				    "exclude each other");
	return 0;
}

int cmd_diff(const struct at_app *app, int argc, char **argv)
{
	struct diff_args a = { *app, MODE_PATCH, false, false, false, NULL, false,
			       { NULL, NULL, NULL, NULL, 0, false, NULL, NULL, NULL } };
	struct at_error err = AT_ERROR_INIT;
	struct at_app_diff *d = NULL;
	bool color = false;
	int rc;

	if ((rc = parse_args(argc, argv, &a)) != 0)
		return rc;
	if ((rc = at_cli_color_for("diff", a.color, &color)) >= 0)
		return rc;
	rc = at_app_diff_open(&a.app, &a.o, &d, &err);
	if (rc == 0)
		at_cli_warnings(at_app_diff_warnings(d));
	if (rc == 0)
		rc = show(&a, d, color, &err);
	if (rc == 0 && fflush(stdout) != 0)
		rc = at_error_sys(&err, AT_ESYS, "cannot write the diff");
	at_app_diff_free(d);
	if (rc < 0)   /* without a message: it has been printed already */
		return at_error_isset(&err) ? at_cli_fail(&err) : AT_EXIT_FAIL;
	return AT_EXIT_OK;
}
