/*
 * du.h - the disk a task takes: its worktree (a layered task's: its layer,
 * app/layer.h, not the base it shares), HOME, caches and git view,
 * counted as du(1) counts them (core/fs.h at_du_tree: allocated blocks, a
 * file with several links once, where first met in this order, task by task;
 * no link followed, no other mount entered), and its trash entries. Nothing
 * is changed and no lock is taken.
 */
#ifndef AT_APP_DU_H
#define AT_APP_DU_H

#include <stddef.h>
#include <stdint.h>

#include "app/app.h"
#include "core/paths.h"

/* The parts of a task measured, in the order they are counted. */
enum at_du_part { AT_DU_WORKTREE, AT_DU_HOME, AT_DU_CACHES, AT_DU_VIEW, AT_DU_NPARTS };

/* Their names, as du prints them and --json keys them. */
extern const char *const at_du_part_names[AT_DU_NPARTS];

struct at_app_du_task {
	char name[AT_NAME_MAX + 1];
	char paths[AT_DU_NPARTS][PATH_MAX];   /* where each part is (it may be missing: 0) */
	uint64_t bytes[AT_DU_NPARTS];
	uint64_t total;
	/*
	 * Its trash entries: commits under refs/agenttask/trash/NAME/ whose
	 * objects live in the repository's object store with everything else's,
	 * so their bytes cannot be told apart (git count-objects measures the store).
	 */
	size_t trash_entries;
	struct at_error err;                  /* set: this task could not be measured */
};

struct at_app_du {
	struct at_app_du_task *v;             /* sorted by name */
	size_t n, cap;
	uint64_t total;                       /* of the tasks measured */
};

/* Every task's (name NULL) or task name's. */
int at_app_du(const struct at_app *app, const char *name, struct at_app_du *out,
	      struct at_error *err);
void at_app_du_release(struct at_app_du *d);

#endif
