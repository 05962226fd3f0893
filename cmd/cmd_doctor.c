/*
 * cmd_doctor.c - agenttask doctor [--json]: can agenttask sandbox here?
 *
 * The checks are app/doctor.h's; this prints them. Exit 0 when the sandbox
 * works on this machine (fallbacks included), 1 when it cannot.
 */
#include <stdio.h>

#include "app/doctor.h"
#include "app/json.h"
#include "cmd/commands.h"

static void print_text(const struct at_doctor *d)
{
	size_t i, fallbacks = 0;

	for (i = 0; i < d->n; i++)
		fallbacks += d->checks[i].state == AT_DOCTOR_FALLBACK;
	if (d->can_sandbox)
		printf("agenttask can sandbox on this machine (%zu fallback%s)\n", fallbacks,
		       fallbacks == 1 ? "" : "s");
	else
		printf("agenttask cannot sandbox on this machine\n");
	for (i = 0; i < d->n; i++) {
		const struct at_doctor_check *c = &d->checks[i];

		printf("  %-9s %s: %s\n", at_doctor_state_name(c->state), c->title, c->detail);
		if (c->fix[0])
			printf("  %-9s fix: %s\n", "", c->fix);
	}
}

struct doctor_args {
	bool json;
};

const struct at_cli_opt cmd_doctor_opts[] = {
	AT_CLI_OPT_FLAG(0, "json", struct doctor_args, json,
			"print {can_sandbox, checks: [{check, title, state, detail, fix}]}"),
	AT_CLI_OPT_END,
};

int cmd_doctor(const struct at_app *app, int argc, char **argv)
{
	struct doctor_args a = { false };
	struct at_doctor d;
	int rc;

	(void)app;
	if ((rc = at_cli_parse("doctor", cmd_doctor_opts, argc, argv, &a)) >= 0)
		return rc;
	if (optind < argc)
		return at_cli_usage("doctor", "too many arguments");
	fflush(NULL);
	at_app_doctor(&d);
	if (a.json && at_cli_print_json(at_app_doctor_json(&d)) != AT_EXIT_OK)
		return AT_EXIT_FAIL;
	if (!a.json)
		print_text(&d);
	return d.can_sandbox ? AT_EXIT_OK : AT_EXIT_FAIL;
}
