/*
 * cmd_mcp.c - agenttask mcp (its options: the table below):
 * start the MCP server (mcp/mcp.h) on stdin and stdout. Nothing else here:
 * the server is its own front end over app/.
 */
#include <unistd.h>

#include "cmd/commands.h"
#include "core/strlist.h"
#include "mcp/mcp.h"

struct mcp_args {
	struct at_mcp_opts o;
	struct at_strlist hosts;         /* --allow-host HOST */
};

const struct at_cli_opt cmd_mcp_opts[] = {
	AT_CLI_OPT_FLAG(0, "allow-accept", struct mcp_args, o.allow_accept,
			"also offer the accept and discard tools (by default a person\n"
			"reviews and merges with the command line); accept still\n"
			"refuses a change to a file the host runs, whatever the policy"),
	AT_CLI_OPT_STRING(0, "task", "NAME", struct mcp_args, o.task,
			  "reach that task only (no task_new); by default the server\n"
			  "reaches only the tasks its own session makes"),
	AT_CLI_OPT_LIST(0, "allow-host", "HOST", struct mcp_args, hosts,
			"a host the run tool's allow_hosts may name (repeatable),\n"
			"beside config.json's run.allow_hosts; any other is refused"),
	AT_CLI_OPT_END,
};

int cmd_mcp(const struct at_app *app, int argc, char **argv)
{
	struct mcp_args a = { { app, STDIN_FILENO, STDOUT_FILENO, false, AT_VERSION, NULL, NULL, 0 },
			      AT_STRLIST_INIT };
	struct at_error err = AT_ERROR_INIT;
	int rc;

	if ((rc = at_cli_parse("mcp", cmd_mcp_opts, argc, argv, &a)) >= 0) {
		at_strlist_release(&a.hosts);
		return rc;
	}
	if (optind < argc) {
		at_strlist_release(&a.hosts);
		return at_cli_usage("mcp", "too many arguments");
	}
	a.o.allow_hosts = a.hosts.v;
	a.o.nallow_hosts = a.hosts.n;
	rc = at_mcp_serve(&a.o, &err) < 0 ? at_cli_fail(&err) : AT_EXIT_OK;
	at_strlist_release(&a.hosts);
	return rc;
}
