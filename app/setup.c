/*
 * setup.c - the run configuration's setup, run by `new` (setup.h).
 *
 * Each command is an at_app_run of the task: the same sandbox, binds and
 * environment as `run` (the configuration's), its own network: none, or a
 * proxy to its entry's allow_hosts alone (at_app_run_opts.no_config_hosts
 * keeps the configuration's run.allow_hosts, forward and publish out). The
 * record, <cache_dir>/NAME.setup (core/paths.h), is written when the setup
 * ends, done or failed, for `status`.
 */
#include "app/setup.h"
#include "app/internal.h"
#include "app/run.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void describe(char *buf, size_t size, char *const *argv)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; argv[i] && len + 1 < size; i++) {
		int k = snprintf(buf + len, size - len, "%s%s", i ? " " : "", argv[i]);
		if (k < 0)
			break;
		len += (size_t)k < size - len ? (size_t)k : size - len - 1;
	}
}

static void record(struct at_repo *r, const char *name, const struct at_app_setup_result *res)
{
	char path[PATH_MAX];
	at_json *o = at_json_object();
	char *text;
	int bad = 0;

	bad |= at_json_add_string(o, "state", res->failed ? "failed" : "done");
	bad |= at_json_add_number(o, "steps", (double)res->n);
	bad |= at_json_add_number(o, "done", (double)res->done);
	if (res->failed) {
		bad |= at_json_add_string(o, "command", res->command);
		bad |= at_json_add_number(o, "exit_code", res->exit_code);
		bad |= at_json_add_bool(o, "timed_out", res->timed_out);
	}
	text = bad ? NULL : at_json_print(o, false);
	if (text && at_paths_setup(at_repo_paths(r), name, path, sizeof(path), NULL) == 0)
		(void)at_write_atomic(path, text, strlen(text), 0600);
	free(text);
	at_json_free(o);
}

/* One command; 0 when it ran (whatever its status), < 0 when it could not be run. */
static int one(const struct at_app *app, const struct at_app_setup_opts *so,
	       const struct at_runconf_setup *s, uint64_t timeout_ms,
	       struct at_app_setup_result *res, struct at_error *err)
{
	struct at_app_run_opts o = AT_APP_RUN_OPTS_INIT;
	struct at_app_run_result rr;
	struct at_app_net *net = NULL;
	int rc = 0;

	memset(&rr, 0, sizeof(rr));
	o.name = so->name;
	o.argv = s->argv.v;
	o.timeout_ms = s->timeout_ms ? s->timeout_ms : timeout_ms;
	o.capture = so->capture;
	o.tty = AT_TTY_NEVER;
	o.cancel_fd = so->cancel_fd;
	o.no_config_hosts = true;
	if (s->allow_hosts.n)
		rc = at_app_net_new(&net, err);
	for (size_t i = 0; rc == 0 && i < s->allow_hosts.n; i++)
		rc = at_app_net_allow(net, s->allow_hosts.v[i], err);
	o.proxy = net;
	if (rc == 0)
		rc = at_app_run(app, &o, &rr, err);
	if (rc == 0 || rr.attempted) {
		res->exit_code = rr.exit_code;
		res->timed_out = rr.run.timed_out;
		res->failed = rc < 0 || rr.exit_code != 0;
		at_app_run_result_release(&rr);
		rc = 0;
	}
	at_app_net_free(net);
	return rc;
}

int at_app_setup(const struct at_app *app, const struct at_app_setup_opts *o,
		 struct at_app_setup_result *res, struct at_error *err)
{
	struct at_app_runconf conf;
	struct at_repo *r = NULL;
	struct at_task t;
	char path[PATH_MAX];
	uint64_t timeout;
	int rc;

	memset(res, 0, sizeof(*res));
	memset(&conf, 0, sizeof(conf));
	rc = at_app_open(app, &r, err);
	if (rc == 0)
		rc = at_app_resolve(app, r, o->name, &t, err);
	/* A record of an earlier task of that name is not this one's. */
	if (rc == 0 && at_paths_setup(at_repo_paths(r), t.name, path, sizeof(path), NULL) == 0)
		unlink(path);
	if (rc == 0)
		rc = at_app_runconf_load_setup(app, r, &t, &conf, err);
	res->n = rc == 0 ? conf.nsetup : 0;
	timeout = conf.setup_timeout_ms ? conf.setup_timeout_ms : AT_RUNCONF_SETUP_TIMEOUT_MS;
	for (size_t i = 0; rc == 0 && i < conf.nsetup && !res->failed; i++) {
		if (o->step)
			o->step(i, conf.nsetup, conf.setup[i].argv.v, o->step_arg);
		describe(res->command, sizeof(res->command), conf.setup[i].argv.v);
		rc = one(app, o, &conf.setup[i], timeout, res, err);
		if (rc == 0 && !res->failed)
			res->done++;
	}
	if (rc < 0 && res->n) {
		res->failed = true;   /* a command could not be run: recorded as a failure */
		res->exit_code = 125;
		snprintf(res->reason, sizeof(res->reason), "%s", err->msg);
	}
	if (res->n)
		record(r, t.name, res);
	at_app_runconf_release(&conf);
	at_repo_free(r);
	return res->n && res->failed ? 0 : rc;
}
