/*
 * main.c - agenttask [-C DIR] COMMAND [ARGS...]
 *
 * Global options come before the command, as with git. Everything after the
 * command name belongs to the command.
 */
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"

extern char **environ;

static void print_help(FILE *f)
{
	const struct at_command *c;

	fputs("usage: agenttask [-C DIR] [--version] [--help] COMMAND [ARGS...]\n\n"
	      "Run an AI agent's work in a task of its own: an ephemeral git worktree and\n"
	      "branch, a sandbox bound to it, a review, then accept or discard.\n\n"
	      "commands:\n", f);
	for (c = at_commands; c->name; c++)
		fprintf(f, "  %-9s %s\n", c->name, c->summary);
	fputs("\nRun 'agenttask COMMAND --help' for a command's options.\n", f);
}

/* A command's full help on stdout, from the table. */
static int print_command_help(const struct at_command *c)
{
	printf("usage: %s\n\n%s\n", c->usage, c->summary);
	if (c->help && c->help[0])
		printf("\n%s", c->help);
	return AT_EXIT_OK;
}

/* --json among the command's options (before any "--"): its errors are JSON too. */
static bool wants_json(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--json") == 0)
			return true;
	return false;
}

int main(int argc, char **argv)
{
	struct at_app app = AT_APP_INIT;
	const struct at_command *c;
	int i, rc;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "-C") == 0) {
			if (++i >= argc)
				return at_cli_usage(NULL, "option '-C' needs a directory");
			app.dir = argv[i];
		} else if (strncmp(argv[i], "-C", 2) == 0) {
			app.dir = argv[i] + 2;
		} else if (strcmp(argv[i], "--version") == 0) {
			printf("agenttask %s\n", AT_VERSION);
			return AT_EXIT_OK;
		} else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			print_help(stdout);
			return AT_EXIT_OK;
		} else {
			return at_cli_usage(NULL, "unknown option '%s'", argv[i]);
		}
	}
	if (i >= argc) {
		print_help(stderr);
		return AT_EXIT_USAGE;
	}
	c = at_command_find(argv[i]);
	if (!c)
		return at_cli_usage(NULL, "unknown command '%s' (see 'agenttask --help')", argv[i]);
	/* getopt starts over for the command: argv[0] is the command's name. */
	optind = 0;
	app.environ = environ;
	at_cli_json_errors(wants_json(argc - i, argv + i));
	rc = c->fn(&app, argc - i, argv + i);
	return rc == AT_EXIT_HELP ? print_command_help(c) : rc;
}
