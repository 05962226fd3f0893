/* Placeholder until the 'diff' command lands in this session's work. */
#include <stdio.h>

#include "cmd/commands.h"

int cmd_diff(struct at_cli *cli, int argc, char **argv)
{
	(void)cli;
	(void)argc;
	(void)argv;
	fputs("agenttask: 'diff' is not available in this build\n", stderr);
	return AT_EXIT_FAIL;
}
