/*
 * cmd_gate.c - agenttask gate [NAME], or gate --base REV [--head REV] in CI
 * (its options: the table below).
 *
 * Exit 0 when the gate passes (or there is no policy), 1 when it fails, 2 for
 * a malformed policy or a usage error. The report goes to stdout either way.
 */
#include "app/gate.h"
#include "app/json.h"
#include "cmd/commands.h"
#include "cmd/print.h"
#include "cmd/progress.h"

enum gate_format { GATE_TEXT, GATE_JSON, GATE_MARKDOWN };

struct gate_args {
	struct at_app app;         /* the front end's, with --max-file-size */
	const char *name, *base, *head, *policy;
	enum gate_format format;
	const char *when;          /* --color=WHEN, NULL: auto */
	bool color, quiet;
};

/* --json, --markdown: the format (opt->val), given once. */
static int set_format(void *field, const struct at_cli_opt *opt, const char *value,
		      struct at_error *err)
{
	enum gate_format *format = field;

	(void)value;
	if (*format != GATE_TEXT)
		return at_error_set(err, AT_EUSAGE, "--json and --markdown exclude each other");
	*format = (enum gate_format)opt->val;
	return 0;
}

const struct at_cli_opt cmd_gate_opts[] = {
	AT_CLI_OPT_CALL(0, "json", NULL, set_format, struct gate_args, format, GATE_JSON,
			"print {passed, merge_base, tree, policy, results: [{rule,\n"
			"kind, passed, message, paths}], host_files} (policy null: no\n"
			"policy), and network: [{check, network}] for checks\n"
			"with allow_hosts"),
	AT_CLI_OPT_CALL(0, "markdown", NULL, set_format, struct gate_args, format, GATE_MARKDOWN,
			"print a summary for a pull-request comment"),
	AT_CLI_OPT_FLAG('q', "quiet", struct gate_args, quiet,
			"no progress of the checks on the terminal"),
	AT_CLI_OPT_COLOR(struct gate_args, when,
			 "colour the text report: auto (on a terminal; default), always,\n"
			 "never"),
	AT_CLI_OPT_STRING(0, "policy", "FILE", struct gate_args, policy,
			  "judge by FILE instead of the base's .agenttask/policy.json"),
	AT_CLI_OPT_STRING(0, "base", "REV", struct gate_args, base,
			  "CI: judge the change from merge-base(REV, HEAD REV) to HEAD REV,\n"
			  "with the policy read from REV, in any checkout, without a task"),
	AT_CLI_OPT_STRING(0, "head", "REV", struct gate_args, head,
			  "with --base: the head to judge (default HEAD)"),
	AT_CLI_OPT_MAX_FILE_SIZE(struct gate_args, app),
	AT_CLI_OPT_END,
};

/* Returns -1 to go on, else an exit status. */
static int parse_args(int argc, char **argv, struct gate_args *a)
{
	int rc;

	if ((rc = at_cli_parse("gate", cmd_gate_opts, argc, argv, a)) >= 0)
		return rc;
	if (optind + 1 < argc)
		return at_cli_usage("gate", "too many arguments");
	a->name = optind < argc ? argv[optind] : NULL;
	if (a->head && !a->base)
		return at_cli_usage("gate", "--head needs --base");
	if (a->base && a->name)
		return at_cli_usage("gate", "a task NAME and --base exclude each other");
	if (a->base && !a->head)
		a->head = "HEAD";
	return at_cli_color_for("gate", a->when, &a->color);
}

int cmd_gate(const struct at_app *app, int argc, char **argv)
{
	struct gate_args a = { *app, NULL, NULL, NULL, NULL, GATE_TEXT, NULL, false, false };
	struct at_app_gate_opts o = { NULL, NULL, NULL, NULL, { NULL, NULL } };
	struct at_error err = AT_ERROR_INIT;
	struct at_app_gate_result res;
	struct at_cli_progress progress;
	int rc;

	if ((rc = parse_args(argc, argv, &a)) >= 0)
		return rc;
	o.name = a.name;
	o.base_rev = a.base;
	o.head_rev = a.head;
	o.policy_file = a.policy;
	/* The checks may take long: their progress, one line redrawn on stderr. */
	at_cli_progress_init(&progress, a.quiet);
	o.progress = at_cli_progress_hook(&progress);
	rc = at_app_gate(&a.app, &o, &res, &err);
	at_cli_progress_end(&progress, rc == 0);
	at_cli_warnings(&res.warnings);
	if (rc < 0) {
		at_app_gate_result_release(&res);
		return at_cli_fail(&err);
	}
	rc = at_gate_report_passed(res.report) ? AT_EXIT_OK : AT_EXIT_FAIL;
	if (a.format == GATE_JSON) {
		if (at_cli_print_json(at_app_gate_json(res.report)) != AT_EXIT_OK)
			rc = AT_EXIT_FAIL;
	} else if (a.format == GATE_MARKDOWN) {
		at_cli_print_gate_markdown(res.report, stdout);
	} else {
		at_cli_print_gate(res.report, stdout, a.color);
	}
	at_app_gate_result_release(&res);
	return rc;
}
