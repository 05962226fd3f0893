/*
 * publish.h - what the runs of a repository publish now (`agenttask ports`).
 * How a run publishes is app/publish.c (run --publish, app/run.h).
 */
#ifndef AT_APP_PUBLISH_H
#define AT_APP_PUBLISH_H

#include <stddef.h>

#include "app/app.h"
#include "core/json.h"
#include "core/ports.h"

/*
 * The live runs' published ports: of task name (which must exist: AT_EUSAGE
 * otherwise) or, with name NULL, of every task; *out malloc'd (free it).
 */
int at_app_ports(const struct at_app *app, const char *name, struct at_ports_live **out,
		 size_t *nout, struct at_error *err);

/* {"ports": [{task, pid, port, host_port, url}]}, one element per published port. */
at_json *at_app_ports_json(const struct at_ports_live *v, size_t n);

/* [{port, host_port, url}] of one run's published ports (run --json, the log); NULL when none. */
at_json *at_app_published_json(const struct at_port_map *m, size_t n);

#endif
