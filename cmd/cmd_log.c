/* Placeholder until the 'log' command lands in this session's work. */
#include <stdio.h>

#include "cmd/commands.h"

int cmd_log(struct at_cli *cli, int argc, char **argv)
{
	(void)cli;
	(void)argc;
	(void)argv;
	fputs("agenttask: 'log' is not available in this build\n", stderr);
	return AT_EXIT_FAIL;
}
