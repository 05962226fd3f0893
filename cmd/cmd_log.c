/*
 * cmd_log.c - agenttask log [NAME] [--json]: the task's audit log.
 *
 * The text is for a person, to a terminal or not: every string the task
 * chose (argv, a reason, an error naming its files) is shown with its
 * controls, tab and newline too, as \xNN (core/esc.h). --json is exact.
 */
#include <stdio.h>
#include <string.h>

#include "app/json.h"
#include "app/task.h"
#include "cmd/commands.h"
#include "core/esc.h"
#include "core/json.h"

/* s as one field: quoted when it holds a blank or a quote, its controls shown. */
static void print_field(const char *key, const char *s, bool first)
{
	bool quote = strpbrk(s, " \t'\"") || !*s;

	printf("%s%s%s%s", first ? "" : " ", key ? key : "", key ? "=" : "", quote ? "'" : "");
	at_esc_fputs(stdout, s, 0);
	fputs(quote ? "'" : "", stdout);
}

static void print_argv(const at_json *argv)
{
	const at_json *a;
	bool first = true;

	for (a = at_json_child(argv); a; a = at_json_next(a)) {
		const char *s = at_json_string_value(a);
		if (!s)
			continue;
		print_field(NULL, s, first);
		first = false;
	}
}

/* Any other event: its string, boolean and number members, key=value ("reason=..."). */
static void print_fields(const at_json *e)
{
	const at_json *m;
	bool first = true;
	char num[32];

	for (m = at_json_child(e); m; m = at_json_next(m)) {
		const char *key = at_json_key(m), *val = at_json_string_value(m);

		if (!key || strcmp(key, "event") == 0 || strcmp(key, "time") == 0)
			continue;
		if (at_json_is_bool(m))
			val = at_json_bool_value(m) ? "true" : "false";
		if (at_json_is_number(m)) {
			snprintf(num, sizeof(num), "%.0f", at_json_number_value(m));
			val = num;
		}
		if (!val)
			continue;
		print_field(key, val, first);
		first = false;
	}
}

/* An entry's error: {code, message} (the reader makes an old string one so too). */
static const char *error_message(const at_json *e)
{
	const char *msg = at_json_get_string(at_json_get(e, "error"), "message");

	return msg ? msg : "";
}

/* Under a run with a number: what it changed, as git diff --stat counts it, one file a line. */
static void print_run_files(const at_json *e)
{
	const at_json *f, *files = at_json_get(e, "files");
	double n, add = 0, del = 0;
	const char *st, *path;

	if (at_json_get_number(e, "number", &n))
		printf("%-24s %-8s run %.0f", "", "", n);
	if (!files) {
		if (at_json_get(e, "number"))
			putchar('\n');
		return;
	}
	at_json_get_number(e, "additions", &add);
	at_json_get_number(e, "deletions", &del);
	printf(": %zu file%s changed, %.0f insertion%s(+), %.0f deletion%s(-)\n",
	       at_json_size(files), at_json_size(files) == 1 ? "" : "s", add, add == 1 ? "" : "s",
	       del, del == 1 ? "" : "s");
	for (f = at_json_child(files); f; f = at_json_next(f)) {
		st = at_json_get_string(f, "status");
		path = at_json_get_string(f, "path");
		add = del = 0;
		at_json_get_number(f, "additions", &add);
		at_json_get_number(f, "deletions", &del);
		printf("%-24s %-8s   %-9s ", "", "", st ? st : "?");
		at_esc_fputs(stdout, path ? path : "", 0);
		printf(" | +%.0f -%.0f\n", add, del);
	}
}

/* Colours: the event cyan, a run's exit green for 0 and red otherwise, as a test runner's. */
static void print_entry(const at_json *e, bool c)
{
	const char *reset = at_cli_c(c, AT_COLOR_RESET);
	const char *event = at_json_get_string(e, "event");
	const char *time = at_json_get_string(e, "time");
	double exit_code, duration, line;
	bool timed_out = false;

	if (event && strcmp(event, "corrupt") == 0) {
		at_json_get_number(e, "line", &line);
		printf("%-24s %-8s line %.0f is corrupt and was skipped (", "-", "corrupt", line);
		at_esc_fputs(stdout, error_message(e), 0);
		fputs(")\n", stdout);
		return;
	}
	/* The task's strings escaped; the colour codes, ours, around them. */
	at_esc_printf(stdout, "%-24s ", time ? time : "-");
	fputs(at_cli_c(c, AT_COLOR_CYAN), stdout);
	at_esc_printf(stdout, "%-8s", event ? event : "?");
	printf("%s ", reset);
	if (event && strcmp(event, "run") == 0) {
		at_json_get_bool(e, "timed_out", &timed_out);
		if (at_json_get_number(e, "exit_code", &exit_code))
			printf("%sexit %-3.0f%s ",
			       at_cli_c(c, exit_code == 0 ? AT_COLOR_GREEN : AT_COLOR_RED),
			       exit_code, reset);
		if (at_json_get_number(e, "duration_ms", &duration))
			printf("%8.0f ms  ", duration);
		print_argv(at_json_get(e, "argv"));
		if (timed_out)
			printf("  %s(timed out)%s", at_cli_c(c, AT_COLOR_RED), reset);
		if (at_json_get(e, "error")) {
			printf("  %s(", at_cli_c(c, AT_COLOR_RED));
			at_esc_fputs(stdout, error_message(e), 0);
			printf(")%s", reset);
		}
		putchar('\n');
		print_run_files(e);
		return;
	} else {
		print_fields(e);
	}
	putchar('\n');
}

struct log_args {
	bool json;
	const char *color;
};

const struct at_cli_opt cmd_log_opts[] = {
	AT_CLI_OPT_FLAG(0, "json", struct log_args, json,
			"print the log as a JSON array (one object per event)"),
	AT_CLI_OPT_COLOR(struct log_args, color,
			 "colour the output: auto (on a terminal; default), always, never"),
	AT_CLI_OPT_END,
};

int cmd_log(const struct at_app *app, int argc, char **argv)
{
	struct at_error err = AT_ERROR_INIT;
	struct at_app_log log;
	const at_json *e;
	struct log_args a = { false, NULL };
	const char *name;
	bool color;
	int rc;

	if ((rc = at_cli_parse("log", cmd_log_opts, argc, argv, &a)) >= 0 ||
	    (rc = at_cli_name_operand("log", argc, argv, false, &name)) >= 0 ||
	    (rc = at_cli_color_for("log", a.color, &color)) >= 0)
		return rc;
	if (at_app_log(app, name, &log, &err) < 0)
		return at_cli_fail(&err);
	at_cli_warnings(&log.warnings);
	if (at_app_log_add_changes(&log) < 0) {
		at_app_log_release(&log);
		at_error_set(&err, AT_ESYS, "out of memory");
		return at_cli_fail(&err);
	}
	if (!a.json)
		at_cli_page(app);
	if (a.json) {
		rc = at_cli_print_json(log.entries);
		log.entries = NULL;
		at_app_log_release(&log);
		return rc;
	}
	if (at_json_size(log.entries) == 0)
		printf("no entries in the log of task '%s'\n", log.task);
	for (e = at_json_child(log.entries); e; e = at_json_next(e))
		print_entry(e, color);
	at_app_log_release(&log);
	return AT_EXIT_OK;
}
