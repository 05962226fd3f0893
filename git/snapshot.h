/*
 * snapshot.h - the task's full state as a tree, and committing it.
 *
 * "Full state" is what accept would integrate: the commits on the task
 * branch plus every uncommitted change in the worktree (modified, deleted,
 * new untracked files that are not ignored, mode changes, symlinks).
 */
#ifndef AT_GIT_SNAPSHOT_H
#define AT_GIT_SNAPSHOT_H

#include <stdbool.h>

#include "core/task.h"
#include "git/repo.h"

/*
 * The id of the tree of the task's full state. Blobs of changed files are
 * written to the object database; the worktree's index and files on disk
 * are left exactly as they were.
 */
int at_snapshot_tree(struct at_repo *r, const struct at_task *t, char tree_hex[AT_OID_HEXSZ + 1],
		     struct at_error *err);

struct at_commit_opts {
	const char *message;   /* NULL: "agenttask: changes of task 'NAME'" */
	const char *trailer;   /* appended after a blank line, or NULL */
};
#define AT_COMMIT_OPTS_INIT { NULL, NULL }

/*
 * Record every change in the worktree as one commit on the task branch and
 * update the worktree's index to match. *made says whether there was
 * anything to commit; commit_hex gets the branch tip either way.
 */
int at_task_commit(struct at_repo *r, const struct at_task *t, const struct at_commit_opts *opts,
		   char commit_hex[AT_OID_HEXSZ + 1], bool *made, struct at_error *err);

#endif
