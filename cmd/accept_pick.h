/*
 * accept_pick.h - `accept -p`: the person walks the task's hunks with git's
 * keys on the terminal (app/pick.h holds them), sees the --stat of the part
 * the picks make, and says yes to accept exactly that tree.
 */
#ifndef AT_CMD_ACCEPT_PICK_H
#define AT_CMD_ACCEPT_PICK_H

#include <stdbool.h>

#include "app/app.h"
#include "core/oid.h"

/*
 * Walk task name's hunks. 0 with *tree and *state set when the person
 * accepts the part; -1 when nothing is to be accepted (nothing picked, or
 * the person said no: said on stdout); else an exit status (a failure
 * printed). Refuses (2) when stdin or stdout is no terminal.
 */
int at_cli_accept_pick(const struct at_app *app, const char *name, struct at_oid *tree,
		       struct at_oid *state);

#endif
