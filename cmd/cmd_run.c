/*
 * cmd_run.c - agenttask run [NAME] [OPTIONS] -- CMD [ARG...]
 * (app/run.h runs it and logs it; sandbox/sandbox.h has what the command sees.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/json.h"
#include "app/run.h"
#include "cmd/commands.h"
#include "cmd/print.h"
#include "cmd/run_args.h"
#include "core/esc.h"

static int report(const struct run_args *a, const struct at_app_run_result *res, int rc,
		  const struct at_error *err)
{
	int code = res->exit_code;

	/* The run's own JSON carries its error: one JSON document, never two. */
	if (a->json)
		at_cli_json_errors(false);
	if (rc < 0)
		at_cli_fail(err);
	else if (res->run.exec_failed)
		at_esc_printf(stderr, "agenttask: %s\n", res->run.exec_error);   /* names argv[0] */
	else
		at_cli_print_run_stop(&a->o, res);
	if (a->verbose)
		at_cli_print_run_verbose(&a->o, res);
	at_cli_warnings(&res->warnings);
	if (a->json && at_cli_print_json(at_app_run_json(&a->o, res, rc < 0 ? err : NULL)) != 0)
		code = AT_EXIT_FAIL;
	return code;
}

/* Before the command runs: where each published port is (stderr, the command's stdout is its own). */
static void say_published(const struct at_port_map *m, size_t n, void *arg)
{
	(void)arg;
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, "agenttask: published http://127.0.0.1:%u/ -> the sandbox's port %u\n",
			m[i].host_port, m[i].port);
	fflush(stderr);
}

/*
 * --notify: the bell, then a desktop notification as terminals take it
 * (OSC 9: iTerm2, Windows Terminal, kitty; OSC 777: VTE, urxvt, foot), on
 * stderr when it is a terminal. One write(), from any thread: the pty relay
 * may be writing the command's output meanwhile. The task's name is a
 * checked name (core/name.h): no control bytes.
 */
static void tell_person(const char *task, const char *state, int status, void *arg)
{
	char text[160], buf[512];
	int n;

	(void)arg;
	if (!isatty(2))
		return;
	if (status >= 0)
		snprintf(text, sizeof(text), "%s %s (%d)", task, state, status);
	else
		snprintf(text, sizeof(text), "%s %s for input", task, state);
	n = snprintf(buf, sizeof(buf),
		     "\a\033]9;agenttask: %s\033\\" "\033]777;notify;agenttask;%s\033\\", text, text);
	if (n > 0 && (size_t)n < sizeof(buf))
		(void)!write(2, buf, (size_t)n);
}

int cmd_run(const struct at_app *app, int argc, char **argv)
{
	struct run_args a = { .o = AT_APP_RUN_OPTS_INIT };
	struct at_error err = AT_ERROR_INIT;
	struct at_app_run_result res;
	int rc;

	if (at_app_net_new(&a.net, &err) < 0)
		return at_cli_fail(&err);
	rc = at_cli_run_args(argc, argv, &a);
	if (rc < 0) {
		a.o.proxy = a.net;
		a.o.binds = a.binds;
		a.o.pass_env = a.pass.v;
		a.o.npass = a.pass.n;
		a.o.set_env = a.set.v;
		a.o.nset = a.set.n;
		a.o.caches = a.caches.v;
		a.o.ncaches = a.caches.n;
		a.o.secrets = a.secrets.v;
		a.o.nsecrets = a.secrets.n;
		a.o.publish = a.publish.v;
		a.o.npublish = a.publish.n;
		a.o.published = say_published;
		a.o.notify_tell = tell_person;
		fflush(NULL);
		rc = at_app_run(app, &a.o, &res, &err);
		rc = res.attempted ? report(&a, &res, rc, &err)
			: rc < 0 ? at_cli_fail_usage("run", &err) : AT_EXIT_OK;
		at_app_run_result_release(&res);
	}
	free(a.binds);
	at_strlist_release(&a.pass);
	at_strlist_release(&a.secrets);
	at_strlist_release(&a.publish);
	at_strlist_release(&a.set);
	at_strlist_release(&a.caches);
	at_app_net_free(a.net);
	return rc;
}
