/*
 * ports.h - a task's published ports (`run --publish`), in agenttask's state.
 *
 * Two kinds of file in <state>/ports (at_paths_ports_dir), which no sandbox
 * can reach:
 *   NAME.assigned      the host port each sandbox port was given without a
 *                      HOSTPORT ("PORT HOSTPORT" a line), so that the next
 *                      run gets the same one while it is free; lasting.
 *   NAME.PID.live      what a run publishes now: its pid and start time,
 *                      then "PORT HOSTPORT" a line; written when the host
 *                      ports are bound, removed when the run ends. A run
 *                      killed with SIGKILL leaves it: a reader takes only
 *                      those whose process lives (core/proc.h).
 */
#ifndef AT_CORE_PORTS_H
#define AT_CORE_PORTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/name.h"
#include "core/paths.h"

#define AT_PORTS_MAX 32

/* One published port: the sandbox's port and the host's. */
struct at_port_map {
	uint16_t port, host_port;
};

/* One live run's published ports. */
struct at_ports_live {
	char task[AT_NAME_MAX + 1];
	int pid;
	size_t n;
	struct at_port_map map[AT_PORTS_MAX];
};

/* The host port last assigned to task's sandbox port, or 0 for none. */
uint16_t at_ports_assigned(const struct at_paths *p, const char *task, uint16_t port);

/* Record host_port as assigned to task's port (best effort: 0 or -1). */
int at_ports_assign(const struct at_paths *p, const char *task, uint16_t port,
		    uint16_t host_port);

/* Record this process's published ports (AT_ESYS when it cannot); the path into live_path. */
int at_ports_live_write(const struct at_paths *p, const char *task, const struct at_port_map *m,
			size_t n, char *live_path, size_t size, struct at_error *err);

/*
 * The live runs' published ports, of task or of every task (task NULL),
 * sorted by task then pid; *out malloc'd (free it), *nout entries.
 */
int at_ports_live_list(const struct at_paths *p, const char *task, struct at_ports_live **out,
		       size_t *nout, struct at_error *err);

/*
 * The records `agenttask gc` removes: a live record whose run is gone (a
 * run killed with SIGKILL leaves its own), and the assignments of a task
 * has_task says is no longer there. Each one's path goes to fn, which
 * removes it; the walk stops at fn's first nonzero return, which it
 * returns. 0 when there is no ports directory.
 */
int at_ports_stale(const struct at_paths *p, bool (*has_task)(const char *task, void *arg),
		   int (*fn)(const char *path, void *arg), void *arg);

#endif
