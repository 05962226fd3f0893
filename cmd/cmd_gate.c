/* Placeholder until the 'gate' command lands in this session's work. */
#include <stdio.h>

#include "cmd/commands.h"

int cmd_gate(struct at_cli *cli, int argc, char **argv)
{
	(void)cli;
	(void)argc;
	(void)argv;
	fputs("agenttask: 'gate' is not available in this build\n", stderr);
	return AT_EXIT_FAIL;
}
