/*
 * cmd_doctor.c - agenttask doctor [--json]: can agenttask sandbox here?
 *
 * The checks are sandbox/doctor.c's; this prints them. Exit 0 when the
 * sandbox works on this machine (fallbacks included), 1 when it cannot.
 */
#include <stdio.h>

#include "cmd/commands.h"
#include "core/json.h"
#include "sandbox/doctor.h"

static int print_json(const struct at_doctor *d)
{
	at_json *o = at_json_object(), *arr = at_json_array();
	size_t i;
	int bad = 0;

	for (i = 0; arr && i < d->n; i++) {
		const struct at_doctor_check *c = &d->checks[i];
		at_json *j = at_json_object();

		bad |= at_json_add_string(j, "check", c->id);
		bad |= at_json_add_string(j, "title", c->title);
		bad |= at_json_add_string(j, "state", at_doctor_state_name(c->state));
		bad |= at_json_add_string(j, "detail", c->detail);
		bad |= c->fix[0] ? at_json_add_string(j, "fix", c->fix) : at_json_add_null(j, "fix");
		bad |= at_json_append(arr, j);
	}
	bad |= at_json_add_bool(o, "can_sandbox", d->can_sandbox);
	bad |= at_json_add(o, "checks", arr);
	if (bad) {
		at_json_free(o);
		fputs("agenttask: out of memory\n", stderr);
		return AT_EXIT_FAIL;
	}
	at_cli_print_json(o);
	return d->can_sandbox ? AT_EXIT_OK : AT_EXIT_FAIL;
}

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

int cmd_doctor(struct at_cli *cli, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct at_doctor d;
	bool json = false;
	int c;

	(void)cli;
	while ((c = at_cli_getopt(argc, argv, "h", longopts)) != -1) {
		if (c == 'h')
			return at_cli_help("doctor");
		if (c != 'j')
			return at_cli_bad_option("doctor");
		json = true;
	}
	if (optind < argc)
		return at_cli_usage("doctor", "too many arguments");
	fflush(NULL);
	at_doctor_run(&d);
	if (json)
		return print_json(&d);
	print_text(&d);
	return d.can_sandbox ? AT_EXIT_OK : AT_EXIT_FAIL;
}
