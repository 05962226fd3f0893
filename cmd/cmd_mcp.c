/*
 * cmd_mcp.c - agenttask mcp [--allow-accept]: start the MCP server
 * (mcp/mcp.h) on stdin and stdout. Nothing else here: the server is its own
 * front end over app/.
 */
#include <unistd.h>

#include "cmd/commands.h"
#include "mcp/mcp.h"

int cmd_mcp(const struct at_app *app, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "allow-accept", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct at_mcp_opts o = { app, STDIN_FILENO, STDOUT_FILENO, false, AT_VERSION };
	struct at_error err = AT_ERROR_INIT;
	int c;

	while ((c = at_cli_getopt(argc, argv, "h", longopts)) != -1) {
		if (c == 'a')
			o.allow_accept = true;
		else
			return c == 'h' ? AT_EXIT_HELP : at_cli_bad_option("mcp");
	}
	if (optind < argc)
		return at_cli_usage("mcp", "too many arguments");
	return at_mcp_serve(&o, &err) < 0 ? at_cli_fail(&err) : AT_EXIT_OK;
}
