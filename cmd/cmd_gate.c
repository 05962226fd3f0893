/*
 * cmd_gate.c - agenttask gate [NAME] [--json | --markdown] [--policy FILE]
 *              agenttask gate --base REV [--head REV] [--json | --markdown] [--policy FILE]
 *
 * Exit 0 when the gate passes (or there is no policy), 1 when it fails, 2 for
 * a malformed policy or a usage error. The report goes to stdout either way.
 */
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/progress.h"
#include "core/esc.h"
#include "cmd/review.h"
#include "core/audit.h"
#include "core/json.h"

enum gate_format { GATE_TEXT, GATE_JSON, GATE_MARKDOWN };

struct gate_args {
	const char *name, *base, *head, *policy;
	enum gate_format format;
	bool color, quiet;
	uint64_t max_file_size;
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
			if (at_cli_max_file_size("gate", optarg, &a->max_file_size) != 0)
				return AT_EXIT_USAGE;
			break;
		case 'h':
			return at_cli_help("gate");
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

/* The names of the failed rules and checks of a report's JSON. */
static at_json *failed_rules(const at_json *report)
{
	at_json *arr = at_json_array(), *r;

	for (r = at_json_child(at_json_get(report, "results")); arr && r; r = at_json_next(r)) {
		bool passed = true;

		if (at_json_get_bool(r, "passed", &passed) && !passed &&
		    at_json_append(arr, at_json_string(at_json_get_string(r, "rule"))) < 0) {
			at_json_free(arr);
			return NULL;
		}
	}
	return arr;
}

/* The verdict in the task's audit log; a failure to log is a warning only. */
static void audit(struct at_repo *r, const struct at_task *t, const struct at_gate_report *rep,
		  const char *policy_file)
{
	struct at_error err = AT_ERROR_INIT;
	at_json *j = at_gate_report_json(rep), *e = at_json_object();
	const char *policy = at_json_get_string(j, "policy");
	int bad = !j;

	bad |= at_json_add_string(e, "event", "gate");
	bad |= at_json_add_string(e, "task", t->name);
	bad |= at_json_add_bool(e, "passed", at_gate_report_passed(rep));
	bad |= at_json_add_string(e, "tree", at_gate_report_tree(rep));
	if (policy_file || policy)
		bad |= at_json_add_string(e, "policy", policy ? policy : policy_file);
	else
		bad |= at_json_add_null(e, "policy");
	bad |= at_json_add(e, "failed", failed_rules(j));
	if (bad)
		at_error_set(&err, AT_ESYS, "out of memory");
	else
		at_audit_append(at_repo_paths(r), t->name, e, &err);
	if (at_error_isset(&err))
		at_esc_printf(stderr, "agenttask: warning: the gate was not logged: %s\n", err.msg);
	at_json_free(e);
	at_json_free(j);
}

static int review(struct at_cli *cli, const struct gate_args *a, struct at_gate_report **rep,
		  struct at_error *err)
{
	struct at_repo *repo = NULL;
	struct at_task task;
	int rc;

	cli->max_file_size = a->max_file_size;
	rc = at_cli_open(cli, &repo, err);
	if (rc == 0 && a->base) {
		rc = at_review_revs(cli, repo, a->base, a->head, a->policy, rep, err);
	} else if (rc == 0) {
		rc = at_cli_task(cli, repo, a->name, &task, err);
		if (rc == 0)
			rc = at_review_task(cli, repo, &task, a->policy, rep, err);
		if (rc == 0)
			audit(repo, &task, *rep, a->policy);
	}
	at_repo_free(repo);
	return rc;
}

int cmd_gate(struct at_cli *cli, int argc, char **argv)
{
	struct gate_args a = { NULL, NULL, NULL, NULL, GATE_TEXT, false, false, 0 };
	struct at_error err = AT_ERROR_INIT;
	struct at_gate_report *rep = NULL;
	struct at_cli_progress progress;
	int rc;

	if ((rc = parse_args(argc, argv, &a)) >= 0)
		return rc;
	at_cli_progress_init(&progress, a.quiet);
	cli->progress = at_cli_progress_hook(&progress);
	rc = review(cli, &a, &rep, &err);
	at_cli_progress_end(&progress, rc == 0);
	if (rc < 0)
		return at_cli_fail(&err);
	rc = at_gate_report_passed(rep) ? AT_EXIT_OK : AT_EXIT_FAIL;
	if (a.format == GATE_JSON) {
		if (at_cli_print_json(at_gate_report_json(rep)) != AT_EXIT_OK)
			rc = AT_EXIT_FAIL;
	} else if (a.format == GATE_MARKDOWN) {
		at_gate_report_print_markdown(rep, stdout);
	} else {
		at_gate_report_print(rep, stdout, a.color);
	}
	at_gate_report_free(rep);
	return rc;
}
