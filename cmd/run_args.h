/*
 * run_args.h - the options of `agenttask run` (cmd/run_args.c), parsed into
 * the use case's options (app/run.h) and what the CLI keeps beside them.
 */
#ifndef AT_CMD_RUN_ARGS_H
#define AT_CMD_RUN_ARGS_H

#include <stdbool.h>
#include <stddef.h>

#include "app/net.h"
#include "app/run.h"
#include "core/strlist.h"

struct run_args {
	struct at_app_run_opts o;
	struct at_run_bind *binds;
	size_t cap;
	struct at_strlist pass, set;     /* --pass-env K, --env K=V */
	struct at_strlist caches;        /* --cache DIR */
	struct at_strlist secrets;       /* --secret NAME[:HOST,...] */
	struct at_strlist publish;       /* --publish [HOSTPORT:]PORT */
	bool json, verbose;
	struct at_app_net *net;          /* --allow-host, --forward, --deny-private */
};

/*
 * Options come before "--"; the command after it. -1 to go on, with a->o
 * filled but for the lists (binds, pass, set, caches), which the caller
 * hands over; else what to return (AT_EXIT_HELP, or a usage error's status).
 * a->net must be made first (at_app_net_new).
 */
int at_cli_run_args(int argc, char **argv, struct run_args *a);

#endif
