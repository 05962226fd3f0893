/*
 * repair.h - a task whose git inside the sandbox is stuck, set back to the
 * host's view of it (`agenttask repair NAME`).
 *
 * The task's git inside is an overlay whose upper layer the agent writes
 * (app/gitview.c). When what it did there cannot be imported (a gitlink, a
 * tree too deep, a delta bomb, an object over the size bound, a corrupt ref,
 * HEAD naming nothing), every later run and status says so again, and no
 * later commit inside can come in: its history holds the refused one. The
 * repair, under the repository lock, with no run of the task (refused,
 * AT_EBUSY, unless force, which stops them as discard does) and under the
 * view's lock, first imports what can be imported, then sets the whole
 * upper aside in one rename: the next run sees the task's branch as the
 * host has it, HEAD on it, the worktree's index on the host, none of the
 * branches, tags, stash, config or hooks made inside. The worktree's files
 * are not touched: what the refused commits changed is still there,
 * uncommitted.
 *
 * Nothing is lost silently: the old layer is kept whole, as it was, under
 * <state>/git/NAME/dropped/ (hidden from the sandbox, removed with the task),
 * and the commit HEAD named there is reported and logged (`repair`). It is
 * not brought into the repository under a hidden ref: its objects are what
 * the import refused, and a ref would bring exactly them in.
 */
#ifndef AT_APP_REPAIR_H
#define AT_APP_REPAIR_H

#include <limits.h>
#include <stdbool.h>

#include "app/app.h"
#include "core/oid.h"

struct at_app_repair_opts {
	const char *name;                /* NULL: the task holding app->dir */
	bool force;                      /* stop the task's running commands first */
};

struct at_app_repair_result {
	struct at_task task;
	bool repaired;                   /* the task had a git view: it is set aside */
	struct at_oid tip;               /* the task's branch on the host: HEAD inside now */
	bool imported;                   /* the import went through first (the branch moved) */
	bool dropped;                    /* HEAD inside named dropped_head, not the tip */
	struct at_oid dropped_head;
	char reason[AT_ERROR_MSG_MAX];   /* why it was not imported ("" when it was) */
	char kept[PATH_MAX];             /* where the old layer is kept */
	struct at_strlist warnings;
};

/*
 * 0 (also when the task never had a git view: repaired false); AT_EBUSY
 * while a run of the task holds it (or an import, for longer than a few
 * seconds); AT_ENOTFOUND for no such task. A failure before the rename
 * leaves the view as it was.
 */
int at_app_repair(const struct at_app *app, const struct at_app_repair_opts *o,
		  struct at_app_repair_result *out, struct at_error *err);
void at_app_repair_result_release(struct at_app_repair_result *res);

#endif
