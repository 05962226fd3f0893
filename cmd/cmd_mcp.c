/*
 * cmd_mcp.c - agenttask mcp [--allow-accept] [--task NAME] [--allow-host HOST]...:
 * start the MCP server (mcp/mcp.h) on stdin and stdout. Nothing else here:
 * the server is its own front end over app/.
 */
#include <unistd.h>

#include "cmd/commands.h"
#include "core/strlist.h"
#include "mcp/mcp.h"

int cmd_mcp(const struct at_app *app, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "allow-accept", no_argument, NULL, 'a' },
		{ "task", required_argument, NULL, 't' },
		{ "allow-host", required_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct at_mcp_opts o = { app, STDIN_FILENO, STDOUT_FILENO, false, AT_VERSION, NULL, NULL,
				 0 };
	struct at_strlist hosts = AT_STRLIST_INIT;
	struct at_error err = AT_ERROR_INIT;
	int c, rc;

	while ((c = at_cli_getopt(argc, argv, "h", longopts)) != -1) {
		if (c == 'a') {
			o.allow_accept = true;
		} else if (c == 't') {
			o.task = optarg;
		} else if (c == 'H') {
			if (at_strlist_push(&hosts, optarg) < 0) {
				at_strlist_release(&hosts);
				at_error_set(&err, AT_ESYS, "out of memory");
				return at_cli_fail(&err);
			}
		} else {
			at_strlist_release(&hosts);
			return c == 'h' ? AT_EXIT_HELP : at_cli_bad_option("mcp");
		}
	}
	if (optind < argc) {
		at_strlist_release(&hosts);
		return at_cli_usage("mcp", "too many arguments");
	}
	o.allow_hosts = hosts.v;
	o.nallow_hosts = hosts.n;
	rc = at_mcp_serve(&o, &err) < 0 ? at_cli_fail(&err) : AT_EXIT_OK;
	at_strlist_release(&hosts);
	return rc;
}
