/* cmd_ports.c - agenttask ports [NAME] [--json] */
#include <stdio.h>
#include <stdlib.h>

#include "app/publish.h"
#include "cmd/commands.h"
#include "cmd/print.h"
#include "core/esc.h"

struct ports_args {
	bool json;
};

const struct at_cli_opt cmd_ports_opts[] = {
	AT_CLI_OPT_FLAG(0, "json", struct ports_args, json, "print JSON"),
	AT_CLI_OPT_END,
};

int cmd_ports(const struct at_app *app, int argc, char **argv)
{
	struct ports_args a = { 0 };
	struct at_error err = AT_ERROR_INIT;
	struct at_ports_live *v = NULL;
	const char *name;
	size_t n = 0;
	int rc;

	if ((rc = at_cli_parse("ports", cmd_ports_opts, argc, argv, &a)) >= 0 ||
	    (rc = at_cli_name_operand("ports", argc, argv, false, &name)) >= 0)
		return rc;
	if (at_app_ports(app, name, &v, &n, &err) < 0)
		return at_cli_fail(&err);
	if (a.json) {
		rc = at_cli_print_json(at_app_ports_json(v, n)) ? AT_EXIT_FAIL : AT_EXIT_OK;
		free(v);
		return rc;
	}
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < v[i].n; k++)
			at_esc_printf(stdout, "%s\t%u\thttp://127.0.0.1:%u/\n", v[i].task,
				      v[i].map[k].port, v[i].map[k].host_port);
	free(v);
	return AT_EXIT_OK;
}
