/*
 * help.c - agenttask help [--man] [COMMAND], and the overview of --help.
 *
 * One source for every form of the manual: the command table and the texts of
 * commands.c, with each command's option table (cmd_<name>.c, cmd/opt.h).
 * `COMMAND --help` and `help COMMAND` print them; `help --man` turns them into
 * man(7) source, which the build runs to make the installed pages
 * (cmd/CMakeLists.txt), so the pages cannot drift from --help. The hidden
 * `help --complete [COMMAND]` lists the commands, or a command's options, for
 * the shell completions (dist/completion), which ask the binary at each Tab.
 *
 * The texts follow one layout, which the roff writer relies on: an item is a
 * line "  TERM  text" (TERM ends at two spaces), indented lines below it
 * continue its text, a blank line ends a paragraph, any other line is prose.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"

static const char usage_line[] =
	"agenttask [-C DIR] [--no-pager] [--version] [--help] COMMAND [ARGS...]";

void at_cli_overview(FILE *f)
{
	const struct at_command *c;

	fprintf(f, "usage: %s\n\n%s\noptions:\n%s\ncommands:\n", usage_line, at_overview,
		at_global_options);
	for (c = at_commands; c->name; c++)
		fprintf(f, "  %-9s %s\n", c->name, c->summary);
	fprintf(f, "\nexit status:\n%s\n"
		   "Run 'agenttask help COMMAND' (or 'agenttask COMMAND --help') for a command's\n"
		   "options; 'man agenttask-COMMAND' shows the same.\n", at_exit_status);
}

/* Text for a roff text line: backslashes and hyphens (as minus signs, for copy and paste). */
static void roff_text(FILE *f, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (s[i] == '\\')
			fputs("\\e", f);
		else if (s[i] == '-')
			fputs("\\-", f);
		else
			fputc(s[i], f);
	}
}

/* One text line; \& keeps a leading '.' or '\'' from being read as a request. */
static void roff_line(FILE *f, const char *s, size_t n)
{
	fputs("\\&", f);
	roff_text(f, s, n);
	fputc('\n', f);
}

/* An item's term: options in bold, their arguments in italics, anything else plain. */
static void roff_term(FILE *f, const char *s, size_t n)
{
	bool after_option = false;
	size_t i = 0, j, k;

	fputs("\\&", f);
	while (i < n) {
		for (j = i; j < n && s[j] != ' '; j++)
			;
		k = j > i && s[j - 1] == ',' ? j - 1 : j;   /* "-m," : the comma stays plain */
		if (s[i] == '-' || after_option) {
			fputs(s[i] == '-' ? "\\fB" : "\\fI", f);
			roff_text(f, s + i, k - i);
			fputs("\\fR", f);
			after_option = s[i] == '-' && k == j;
		} else {
			roff_text(f, s + i, k - i);
		}
		roff_text(f, s + k, j - k);
		if (j < n)
			fputc(' ', f);
		i = j + 1;
	}
	fputc('\n', f);
}

/* The items of text (items true) or its prose paragraphs, as roff. */
static void roff_block(FILE *f, const char *text, bool items)
{
	const char *line = text, *end, *sep;
	bool in_item = false, para = false;
	size_t n;

	for (; *line; line = *end ? end + 1 : end) {
		end = strchr(line, '\n');
		if (!end)
			end = line + strlen(line);
		n = (size_t)(end - line);
		if (n == 0) {
			in_item = false;
			para = para && !items;
		} else if (n > 2 && line[0] == ' ' && line[1] == ' ' && line[2] != ' ') {
			in_item = true;
			if (!items)
				continue;
			sep = strstr(line + 2, "  ");
			if (!sep || sep > end)
				sep = end;
			fputs(".TP\n", f);
			roff_term(f, line + 2, (size_t)(sep - line - 2));
			while (sep < end && *sep == ' ')
				sep++;
			if (sep < end)
				roff_line(f, sep, (size_t)(end - sep));
		} else if (line[0] == ' ') {
			if (items && in_item) {
				while (*line == ' ')
					line++;
				roff_line(f, line, (size_t)(end - line));
			}
		} else if (!items) {
			if (!para)
				fputs(".PP\n", f);
			para = true;
			roff_line(f, line, (size_t)(end - line));
		}
	}
}

static void roff_title(FILE *f, const char *name, const char *summary)
{
	char upper[64];
	size_t i;

	for (i = 0; name[i] && i + 1 < sizeof(upper); i++)
		upper[i] = (char)toupper((unsigned char)name[i]);
	upper[i] = '\0';
	fputs(".TH ", f);
	roff_text(f, upper, i);
	fputs(" 1 \"\" \"agenttask " AT_VERSION "\" \"agenttask manual\"\n.nh\n.ad l\n.SH NAME\n", f);
	roff_text(f, name, strlen(name));
	fputs(" \\- ", f);
	roff_text(f, summary, strlen(summary));
	fputs("\n.SH SYNOPSIS\n.nf\n", f);
}

/* The synopsis lines, verbatim (continuation lines keep their indent). */
static void roff_synopsis(FILE *f, const char *usage)
{
	const char *line, *end;

	for (line = usage; *line; line = *end ? end + 1 : end) {
		end = strchr(line, '\n');
		if (!end)
			end = line + strlen(line);
		roff_line(f, line, (size_t)(end - line));
	}
	fputs(".fi\n", f);
}

struct help_args {
	bool man, complete;
};

static const struct at_cli_opt help_opts[] = {
	AT_CLI_OPT_FLAG(0, "man", struct help_args, man,
			"print the manual page's source (roff) instead, for man -l -"),
	/* For the shell completions (dist/completion), not for people: not shown. */
	AT_CLI_OPT_FLAG(0, "complete", struct help_args, complete, NULL),
	AT_CLI_OPT_END,
};

/* c's option table: help's is this file's (the command table cannot point here). */
static const struct at_cli_opt *opts_of(const struct at_command *c)
{
	return c->opts ? c->opts : help_opts;
}

/* The synopsis of c, its options' arguments filled in from its table. */
static void synopsis(char *buf, size_t size, const struct at_command *c)
{
	at_cli_synopsis(buf, size, c->usage, opts_of(c));
}

/* What follows the summary in c's help: its options, then its prose. */
static void help_body(FILE *f, const struct at_command *c)
{
	at_cli_opts_help(f, opts_of(c), c->width);
	fputs(c->help, f);
}

/* help_body as a string, to lay out as roff; NULL when out of memory. */
static char *help_text(const struct at_command *c)
{
	char *text = NULL;
	size_t n;
	FILE *f = open_memstream(&text, &n);

	if (!f)
		return NULL;
	help_body(f, c);
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

static int man_command(FILE *f, const struct at_command *c)
{
	char name[64], usage[1024], *help = help_text(c);

	if (!help)
		return -1;
	snprintf(name, sizeof(name), "agenttask-%s", c->name);
	synopsis(usage, sizeof(usage), c);
	roff_title(f, name, c->summary);
	roff_synopsis(f, usage);
	fputs(".SH DESCRIPTION\n", f);
	roff_line(f, c->summary, strlen(c->summary));
	roff_block(f, help, false);
	fputs(".SH OPTIONS\n", f);
	roff_block(f, help, true);
	roff_block(f, "  -h, --help     print this help\n", true);
	fputs(".SH SEE ALSO\n\\fBagenttask\\fR(1)\n", f);
	free(help);
	return 0;
}

static void man_overview(FILE *f)
{
	const struct at_command *c;

	roff_title(f, "agenttask",
		   "an AI agent's work in a sandboxed git worktree, reviewed, then merged or discarded");
	roff_synopsis(f, usage_line);
	fputs(".SH DESCRIPTION\n", f);
	roff_block(f, at_overview, false);
	fputs(".SH OPTIONS\n", f);
	roff_block(f, at_global_options, true);
	fputs(".SH COMMANDS\n", f);
	for (c = at_commands; c->name; c++)
		fprintf(f, ".TP\n\\fBagenttask\\-%s\\fR(1)\n%s\n", c->name, c->summary);
	fputs(".SH EXIT STATUS\n", f);
	roff_block(f, at_exit_status, true);
	fputs(".SH SEE ALSO\n\\fBgit\\fR(1), \\fBgit\\-worktree\\fR(1)\n", f);
}

int at_cli_command_help(const struct at_command *c)
{
	char usage[1024], *body = help_text(c);

	synopsis(usage, sizeof(usage), c);
	printf("usage: %s\n\n%s\n", usage, c->summary);
	if (body && body[0])
		printf("\n%s", body);
	free(body);
	return body ? AT_EXIT_OK : AT_EXIT_FAIL;
}

/*
 * For the completions: "NAME|OPERAND|SUMMARY" a command (OPERAND: what its
 * operand is, empty for none), or the options of c (at_cli_opts_complete).
 */
static void complete(FILE *f, const struct at_command *c)
{
	if (c) {
		at_cli_opts_complete(f, opts_of(c));
		return;
	}
	for (c = at_commands; c->name; c++)
		fprintf(f, "%s|%s|%s\n", c->name, c->operand ? c->operand : "", c->summary);
}

int cmd_help(const struct at_app *app, int argc, char **argv)
{
	struct help_args a = { false, false };
	const struct at_command *c = NULL;
	int rc;

	(void)app;
	if ((rc = at_cli_parse("help", help_opts, argc, argv, &a)) >= 0)
		return rc;
	if (optind + 1 < argc)
		return at_cli_usage("help", "too many arguments");
	if (optind < argc && !(c = at_command_find(argv[optind])))
		return at_cli_usage("help", "unknown command '%s'", argv[optind]);
	rc = 0;
	if (a.complete)
		complete(stdout, c);
	else if (a.man && c)
		rc = man_command(stdout, c);
	else if (a.man)
		man_overview(stdout);
	else if (c)
		return at_cli_command_help(c);
	else
		at_cli_overview(stdout);
	return rc == 0 && fflush(stdout) == 0 ? AT_EXIT_OK : AT_EXIT_FAIL;
}
