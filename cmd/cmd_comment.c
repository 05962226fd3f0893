/*
 * cmd_comment.c - agenttask comment NAME [PATH:LINE[-LINE]] TEXT, comment
 * NAME --resolve ID, and agenttask comments NAME [--json] [--all] (their
 * options: the tables below).
 *
 * The person's review comments, which the agent reads (docs/agents.md).
 */
#include <stdlib.h>
#include <string.h>

#include "app/comment.h"
#include "app/json.h"
#include "cmd/commands.h"
#include "core/esc.h"

struct comment_args {
	struct at_app app;
	const char *resolve;   /* --resolve ID */
	bool json;
};

const struct at_cli_opt cmd_comment_opts[] = {
	AT_CLI_OPT_STRING(0, "resolve", "ID", struct comment_args, resolve,
			  "mark comment ID resolved (the agent no longer sees it)"),
	AT_CLI_OPT_FLAG(0, "json", struct comment_args, json, "print {task, id}"),
	AT_CLI_OPT_END,
};

/* A whole number >= 1 of s[0..len), else 0. */
static unsigned long number(const char *s, size_t len)
{
	unsigned long v = 0;
	size_t i;

	if (len == 0 || len > 9)
		return 0;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	return v;
}

/* "PATH:LINE" or "PATH:FIRST-LAST" into c (path cut at the last ':'); -1 when it is not. */
static int parse_place(char *arg, struct at_app_comment_new *c)
{
	char *colon = strrchr(arg, ':'), *dash;

	if (!colon || colon == arg)
		return -1;
	dash = strchr(colon + 1, '-');
	c->first = number(colon + 1, (size_t)((dash ? dash : colon + strlen(colon)) - colon - 1));
	c->last = dash ? number(dash + 1, strlen(dash + 1)) : c->first;
	if (!c->first || !c->last || c->last < c->first)
		return -1;
	*colon = '\0';
	c->path = arg;
	return 0;
}

static int resolve(struct comment_args *a, const char *name)
{
	struct at_error err = AT_ERROR_INIT;
	unsigned long id = number(a->resolve, strlen(a->resolve));
	at_json *j;

	if (!id) {
		at_error_set(&err, AT_EUSAGE, "bad comment id '%s'", a->resolve);
		return at_cli_fail_usage("comment", &err);
	}
	if (at_app_comment_resolve(&a->app, name, id, &err) < 0)
		return at_cli_fail(&err);
	if (!a->json) {
		printf("resolved comment %lu\n", id);
		return AT_EXIT_OK;
	}
	j = at_json_object();
	if (j && (at_json_add_string(j, "task", name) < 0 ||
		  at_json_add_number(j, "resolved", (double)id) < 0)) {
		at_json_free(j);
		j = NULL;
	}
	return at_cli_print_json(j);
}

int cmd_comment(const struct at_app *app, int argc, char **argv)
{
	struct comment_args a = { *app, NULL, false };
	struct at_app_comment_new c = { NULL, 0, 0, NULL };
	struct at_error err = AT_ERROR_INIT;
	unsigned long id = 0;
	const char *name;
	at_json *j;
	int rc;

	if ((rc = at_cli_parse("comment", cmd_comment_opts, argc, argv, &a)) >= 0)
		return rc;
	if (optind >= argc)
		return at_cli_usage("comment", "missing task NAME");
	name = argv[optind++];
	if (a.resolve)
		return optind < argc ? at_cli_usage("comment", "--resolve takes no TEXT")
				     : resolve(&a, name);
	if (optind + 2 == argc) {
		if (parse_place(argv[optind], &c) < 0) {
			at_error_set(&err, AT_EUSAGE, "bad place '%s': PATH:LINE or PATH:FIRST-LAST",
				     argv[optind]);
			return at_cli_fail_usage("comment", &err);
		}
		optind++;
	} else if (optind + 1 != argc) {
		return at_cli_usage("comment", optind >= argc ? "missing TEXT" : "too many arguments");
	}
	c.text = argv[optind];
	if (at_app_comment_add(&a.app, name, NULL, &c, 1, &id, &err) < 0)
		return at_cli_fail(&err);
	if (!a.json) {
		printf("comment %lu on '%s'\n", id, name);
		return AT_EXIT_OK;
	}
	j = at_json_object();
	if (j && (at_json_add_string(j, "task", name) < 0 ||
		  at_json_add_number(j, "id", (double)id) < 0)) {
		at_json_free(j);
		j = NULL;
	}
	return at_cli_print_json(j);
}

struct comments_args {
	struct at_app app;
	bool json, all;
};

const struct at_cli_opt cmd_comments_opts[] = {
	AT_CLI_OPT_FLAG(0, "json", struct comments_args, json,
			"print {task, open, comments: [{id, path, line, end_line, outdated,\n"
			"made_on, text, author, time, resolved}]}"),
	AT_CLI_OPT_FLAG(0, "all", struct comments_args, all, "resolved comments too"),
	AT_CLI_OPT_END,
};

/* One comment: "ID  PATH:LINE[-LINE]" (or "(the whole change)"), its state, its text indented. */
static void show(const struct at_app_comment_view *v)
{
	const struct at_comment *c = v->c;
	const char *t;

	printf("%lu  ", c->id);
	if (!c->path) {
		printf("(the whole change)");
	} else {
		at_esc_fputs(stdout, c->path, 0);
		if (v->outdated)
			printf(":%zu  outdated (its line changed or went)", c->first);
		else if (v->first == v->last)
			printf(":%zu", v->first);
		else
			printf(":%zu-%zu", v->first, v->last);
	}
	printf("%s\n", c->resolved ? "  resolved" : "");
	for (t = c->text; *t;) {
		size_t n = strcspn(t, "\n");

		fputs("    ", stdout);
		at_esc_write(stdout, t, n, 0);
		fputc('\n', stdout);
		t += n + (t[n] == '\n');
	}
}

int cmd_comments(const struct at_app *app, int argc, char **argv)
{
	struct comments_args a = { *app, false, false };
	struct at_app_comments_result res;
	struct at_error err = AT_ERROR_INIT;
	const char *name = NULL;
	at_json *j;
	size_t i;
	int rc;

	if ((rc = at_cli_parse("comments", cmd_comments_opts, argc, argv, &a)) >= 0)
		return rc;
	if (optind + 1 < argc)
		return at_cli_usage("comments", "too many arguments");
	name = optind < argc ? argv[optind] : NULL;
	if (at_app_comments(&a.app, name, a.all, &res, &err) < 0)
		return at_cli_fail(&err);
	if (a.json) {
		j = at_app_comments_result_json(&res);
		at_app_comments_result_release(&res);
		return at_cli_print_json(j);
	}
	for (i = 0; i < res.n; i++)
		show(&res.v[i]);
	if (res.n == 0)
		printf("no %scomments on task '%s'\n", a.all ? "" : "open ", res.task.name);
	at_app_comments_result_release(&res);
	return AT_EXIT_OK;
}
