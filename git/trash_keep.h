/*
 * trash_keep.h - what a trash entry keeps beside the task's state: its
 * checkpoints and its review (issue 26: "removed with the task, kept in the
 * trash with it").
 *
 * An entry (refs/agenttask/trash/NAME/STAMP, git/trash.h) of a discarded
 * task keeps, under refs/agenttask/trash-kept/NAME/STAMP/ (core/paths.h):
 *   checkpoints/N  the task's checkpoint N (git/checkpoint.h), the same commit
 *   review         a commit whose tree holds comments.json, the person's
 *                  comments file (core/comments.h) as it was, and whose
 *                  parent is the tip of the task's reviews ref (so the states
 *                  the comments are on stay reachable); absent when the task
 *                  had neither
 * They are written before the entry and deleted after it (at_trash_drop,
 * at_trash_prune): a kill leaves at worst kept refs with no entry, which
 * at_trash_keep_prune (gc) deletes. A drop's entry keeps none: the task stays.
 *
 * Every function takes the entry's ref name, refs/agenttask/trash/NAME/STAMP.
 */
#ifndef AT_GIT_TRASH_KEEP_H
#define AT_GIT_TRASH_KEEP_H

#include "core/report.h"
#include "git/repo.h"

/*
 * Copy task NAME's checkpoint refs and its review under entry's kept refs.
 * A comments file that cannot be read (corrupt) is not kept: `comments`
 * refused it already, and a discard must not fail on it.
 */
int at_trash_keep(struct at_repo *r, const char *entry, struct at_error *err);

/*
 * Give task NAME back what entry keeps: its checkpoint refs, its reviews ref
 * and its comments file (checked as it enters: core/comments.h), over
 * whatever of them the task has (a fresh task: none). The kept refs stay.
 */
int at_trash_keep_restore(struct at_repo *r, const char *entry, struct at_error *err);

/* Delete what entry keeps (nothing kept: nothing done). */
int at_trash_keep_drop(struct at_repo *r, const char *entry, struct at_error *err);

/* How many checkpoints entry keeps. */
unsigned at_trash_keep_count(struct at_repo *r, const char *entry);

/* Delete the kept refs whose entry is gone, reporting each (gc). */
int at_trash_keep_prune(struct at_repo *r, struct at_report *rep, struct at_error *err);

#endif
