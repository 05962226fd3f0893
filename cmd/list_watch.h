/*
 * list_watch.h - `agenttask list --watch`: every task's activity on the
 * whole terminal, refreshed every second (app/live.h polls it), until q,
 * ^C, SIGTERM or SIGHUP. The terminal is put back as it was (its modes, the
 * main screen, the cursor) on every way out; a window-size change redraws
 * at once; every byte a task chose (its command) is shown escaped
 * (core/esc.h). Needs a terminal on stdin and stdout (usage error, 2).
 */
#ifndef AT_CMD_LIST_WATCH_H
#define AT_CMD_LIST_WATCH_H

#include <stdbool.h>

#include "app/app.h"

int at_cli_list_watch(const struct at_app *app, bool color);

#endif
