/*
 * main.c - agenttask [-C DIR] [-P | --no-pager] [--version] [--help] COMMAND [ARGS...]
 *
 * Global options come before the command, as with git. Everything after the
 * command name belongs to the command.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "app/doctor.h"
#include "cmd/commands.h"
#include "cmd/pager.h"

extern char **environ;

/* The version, and those of the libraries that decide what it can do. */
static int print_version(void)
{
	struct at_app_versions v;

	at_app_versions(&v);
	printf("agenttask %s\nlibgit2 %s\nlibseccomp %s\n", AT_VERSION, v.libgit2, v.libseccomp);
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
		} else if (strcmp(argv[i], "--no-pager") == 0 || strcmp(argv[i], "-P") == 0) {
			at_cli_pager_disable();
		} else if (strcmp(argv[i], "--version") == 0) {
			return print_version();
		} else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			at_cli_overview(stdout);
			return AT_EXIT_OK;
		} else {
			return at_cli_usage(NULL, "unknown option '%s'", argv[i]);
		}
	}
	if (i >= argc) {
		at_cli_overview(stderr);
		return AT_EXIT_USAGE;
	}
	c = at_command_find(argv[i]);
	if (!c)
		return at_cli_usage(NULL, "unknown command '%s' (see 'agenttask --help')", argv[i]);
	/* getopt starts over for the command: argv[0] is the command's name. */
	optind = 0;
	app.environ = environ;
	at_cli_json_errors(wants_json(argc - i, argv + i));
	rc = (c->fn ? c->fn : cmd_help)(&app, argc - i, argv + i);
	return rc == AT_EXIT_HELP ? at_cli_command_help(c) : rc;
}
