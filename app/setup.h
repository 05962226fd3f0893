/*
 * setup.h - the run configuration's setup, run by `new` in the new task's
 * sandbox (app/setup.c), and its record, which `status` shows.
 */
#ifndef AT_APP_SETUP_H
#define AT_APP_SETUP_H

#include <stdbool.h>
#include <stddef.h>

#include "app/app.h"
#include "core/json.h"

struct at_app_setup_opts {
	const char *name;                /* the task */
	bool capture;                    /* keep the commands' output (new --json): nothing printed */
	int cancel_fd;                   /* -1: none */
	/* Told before each command (i from 0 of n); NULL: none. */
	void (*step)(size_t i, size_t n, char *const *argv, void *arg);
	void *step_arg;
};

#define AT_APP_SETUP_OPTS_INIT { .cancel_fd = -1 }

struct at_app_setup_result {
	size_t n;                        /* commands in the setup; 0: none */
	size_t done;                     /* of them, ended with status 0 */
	bool failed;                     /* one failed (or the sandbox refused it): the rest did not run */
	bool timed_out;                  /* that one took longer than its timeout, and was killed */
	int exit_code;                   /* that one's exit status (run's: 124, 125, ...) */
	char command[512];               /* that one's argv, spaces between, for messages */
	char reason[256];                /* why it could not be run at all; "" when it ran */
};

/*
 * Run the setup of task name (both run configuration files', the user's
 * first): each command as `run` would (its sandbox, the configuration's
 * binds and environment), offline unless its entry names allow_hosts, and
 * then through the proxy to those hosts alone, never the configuration's
 * run.allow_hosts; killed after its timeout (the entry's, else the user's
 * setup_timeout, else 600 s). It stops at the first failure. 0 whether or not
 * the setup failed (res says; the task stays either way, and the record
 * says so: at_app_setup_json); < 0 when it could not be started (a bad
 * configuration: nothing ran).
 */
int at_app_setup(const struct at_app *app, const struct at_app_setup_opts *o,
		 struct at_app_setup_result *res, struct at_error *err);

#endif
