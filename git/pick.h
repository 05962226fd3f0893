/*
 * pick.h - the hunks of a task's change, for `accept -p` to pick from, and
 * the tree the picks make.
 *
 * Each file of the change (git/diff.h's change set: renames paired) comes
 * with its patch's header lines and its hunks (gitfmt/hunks.h). A text file
 * changed in place or renamed is picked hunk by hunk; everything else (an
 * added, deleted or binary file, a type change, a link, a submodule, a mode
 * change alone) is one unit, taken or left whole. The tree the picks make
 * is the merge base's with, for each file, its selected hunks applied to the
 * base's blob (git/partial.h then accepts it as the part).
 */
#ifndef AT_GIT_PICK_H
#define AT_GIT_PICK_H

#include <stdbool.h>
#include <stddef.h>

#include "core/strlist.h"
#include "git/repo.h"
#include "git/snapshot.h"
#include "gitfmt/hunks.h"

struct at_pick_file {
	char *path, *old_path;
	char status;                  /* core/change.h's */
	char *header;                 /* the patch's lines before the first hunk */
	bool whole;                   /* one unit: no hunk to pick */
	bool take_whole;
	struct at_hunk *hunks;        /* in order (split ones replaced by their parts) */
	bool *take;
	size_t n;
};

struct at_pick {
	struct at_pick_file *f;
	size_t n;
	struct at_oid merge_base;
	struct at_oid state_tree;     /* the full state the hunks are of */
};

/* The files and hunks of the task's change (w, st as at_partial_split takes them). */
int at_pick_load(struct at_repo *r, struct at_worktree *w, const struct at_task_state *st,
		 struct at_pick *out, struct at_error *err);

/* Split hunk i of file f (git's `s`): its parts take its place, unpicked; how many. */
int at_pick_split(struct at_pick_file *f, size_t i, size_t *parts, struct at_error *err);

/*
 * Replace hunk i of f with the edited text (git's `e`). AT_EUSAGE, naming the
 * file, when it is no hunk or no longer applies to the base's blob (nothing
 * changed then).
 */
int at_pick_edit(struct at_repo *r, const struct at_pick *p, struct at_pick_file *f, size_t i,
		 const char *text, size_t len, struct at_error *err);

/* The tree of the merge base with the picks applied into *tree; its changed paths into paths. */
int at_pick_tree(struct at_repo *r, const struct at_pick *p, struct at_oid *tree,
		 struct at_error *err);

/* The same with every pick turned over (`drop -p`: what is left when the picks go). */
int at_pick_tree_rest(struct at_repo *r, const struct at_pick *p, struct at_oid *tree,
		      struct at_error *err);

/* The text of `git diff --stat` of the merge base against tree (malloc'd into *out; "": none). */
int at_pick_stat(struct at_repo *r, const struct at_pick *p, const struct at_oid *tree, char **out,
		 struct at_error *err);

void at_pick_release(struct at_pick *p);

#endif
