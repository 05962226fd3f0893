/*
 * scratch.h - short-lived detached worktrees in which the review gate runs
 * its checks.
 *
 * A scratch worktree holds exactly the tree under review, and nothing else
 * (no ignored files, no build products of earlier runs); checks cannot
 * change the task they judge. It is a real linked worktree - HEAD detached
 * at a commit, an index, a .git pointer - so that checks may run git, and
 * so that the sandbox sees it the way it sees a task's worktree.
 *
 *   worktree   <state>/scratch/gate-XXXXXX
 *   admin dir  <common>/worktrees/agenttask.gate-XXXXXX
 *
 * The owner holds an flock(2) on the worktree directory for as long as it
 * lives. A scratch worktree whose lock is free (its owner was killed) is
 * removed by at_scratch_sweep(), which each gate runs first and gc may run.
 */
#ifndef AT_GIT_SCRATCH_H
#define AT_GIT_SCRATCH_H

#include <limits.h>

#include "core/report.h"
#include "core/task.h"
#include "git/repo.h"

struct at_scratch {
	char path[PATH_MAX];       /* the worktree directory */
	char admin_dir[PATH_MAX];  /* <common>/worktrees/<name> */
	char name[64];             /* the worktree's name */
	int lock_fd;               /* flock held on path; -1 when none */
};

/*
 * Make a scratch worktree, HEAD detached at commit, whose files are tree
 * (NULL: the commit's own tree). Files that differ from the commit show as
 * unstaged changes, as in the task. All or nothing.
 */
int at_scratch_create(struct at_repo *r, const struct at_oid *commit, const struct at_oid *tree,
		      struct at_scratch *out, struct at_error *err);

/* Remove it again (worktree, admin directory, lock); safe on a zeroed or failed one. */
int at_scratch_remove(struct at_scratch *s, struct at_error *err);

/* Fill in a task-like description of it (path, admin_dir, worktree_name) for the sandbox. */
void at_scratch_as_task(const struct at_scratch *s, struct at_task *t);

/* Remove scratch worktrees whose owner is gone, reporting each (rep may be NULL). */
int at_scratch_sweep(struct at_repo *r, struct at_report *rep, struct at_error *err);

#endif
