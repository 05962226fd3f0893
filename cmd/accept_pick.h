/*
 * accept_pick.h - `accept -p` and `drop -p`: the person walks the task's
 * hunks with git's keys on the terminal (app/pick.h holds them), sees the
 * --stat of the part the picks make, and says yes to accept exactly that
 * tree, or (drop) to drop exactly those changes (`e` is accept's alone).
 */
#ifndef AT_CMD_ACCEPT_PICK_H
#define AT_CMD_ACCEPT_PICK_H

#include <stdbool.h>

#include "app/app.h"
#include "core/oid.h"

/*
 * Walk task name's hunks. 0 with *tree (drop: what is left when the picks
 * go) and *state set when the person says yes; -1 when nothing is to be accepted (nothing picked, or
 * the person said no: said on stdout); else an exit status (a failure
 * printed). Refuses (2) when stdin or stdout is no terminal.
 */
int at_cli_pick(const struct at_app *app, const char *name, bool drop, struct at_oid *tree,
		struct at_oid *state);

#endif
