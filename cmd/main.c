/*
 * main.c - agenttask [-C DIR] COMMAND [ARGS...]
 *
 * Global options come before the command, as with git. Everything after the
 * command name belongs to the command.
 */
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/pager.h"
#include "git/repo.h"
#include "sandbox/sandbox.h"

/* The version, and those of the libraries that decide what it can do. */
static int print_version(void)
{
	char git[32], seccomp[32];

	at_git_version(git, sizeof(git));
	at_sandbox_seccomp_version(seccomp, sizeof(seccomp));
	printf("agenttask %s\nlibgit2 %s\nlibseccomp %s\n", AT_VERSION, git, seccomp);
	return AT_EXIT_OK;
}

int main(int argc, char **argv)
{
	struct at_cli cli = { ".", 0, { NULL, NULL } };
	const struct at_command *c;
	int i;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "-C") == 0) {
			if (++i >= argc)
				return at_cli_usage(NULL, "option '-C' needs a directory");
			cli.dir = argv[i];
		} else if (strncmp(argv[i], "-C", 2) == 0) {
			cli.dir = argv[i] + 2;
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
	return c->fn(&cli, argc - i, argv + i);
}
