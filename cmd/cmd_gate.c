/*
 * cmd_gate.c - agenttask gate [NAME] [--json | --markdown] [--policy FILE]
 *              agenttask gate --base REV [--head REV] [--json | --markdown] [--policy FILE]
 *              (either with [--quiet] [--color[=WHEN] | --no-color] [--max-file-size SIZE])
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
	bool color, quiet;
};

enum { OPT_JSON = 256, OPT_MARKDOWN, OPT_POLICY, OPT_BASE, OPT_HEAD };

/* Returns -1 to go on, else an exit status. */
static int parse_args(int argc, char **argv, struct gate_args *a)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "markdown", no_argument, NULL, OPT_MARKDOWN },
		{ "policy", required_argument, NULL, OPT_POLICY },
		{ "base", required_argument, NULL, OPT_BASE },
		{ "head", required_argument, NULL, OPT_HEAD },
		{ "quiet", no_argument, NULL, 'q' },
		AT_CLI_MAX_FILE_SIZE_OPTION,
		{ "help", no_argument, NULL, 'h' },
		AT_CLI_COLOR_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	const char *when = NULL;
	int c;

	while ((c = at_cli_getopt(argc, argv, "qh", longopts)) != -1) {
		switch (c) {
		case 'q':
			a->quiet = true;
			break;
		case AT_OPT_COLOR:
		case AT_OPT_NO_COLOR:
			when = at_cli_color_when(c, optarg);
			break;
		case OPT_JSON:
		case OPT_MARKDOWN:
			if (a->format != GATE_TEXT)
				return at_cli_usage("gate", "--json and --markdown exclude each other");
			a->format = c == OPT_JSON ? GATE_JSON : GATE_MARKDOWN;
			break;
		case OPT_POLICY:
			a->policy = optarg;
			break;
		case OPT_BASE:
			a->base = optarg;
			break;
		case OPT_HEAD:
			a->head = optarg;
			break;
		case AT_CLI_OPT_MAX_FILE_SIZE:
			if (at_cli_max_file_size("gate", optarg, &a->app) != 0)
				return AT_EXIT_USAGE;
			break;
		case 'h':
			return AT_EXIT_HELP;
		default:
			return at_cli_bad_option("gate");
		}
	}
	if (optind + 1 < argc)
		return at_cli_usage("gate", "too many arguments");
	a->name = optind < argc ? argv[optind] : NULL;
	if (a->head && !a->base)
		return at_cli_usage("gate", "--head needs --base");
	if (a->base && a->name)
		return at_cli_usage("gate", "a task NAME and --base exclude each other");
	if (a->base && !a->head)
		a->head = "HEAD";
	return at_cli_color_for("gate", when, &a->color);
}

int cmd_gate(const struct at_app *app, int argc, char **argv)
{
	struct gate_args a = { *app, NULL, NULL, NULL, NULL, GATE_TEXT, false, false };
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
