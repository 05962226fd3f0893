/*
 * diff_internal.h - one comparison (git/diff.h), shared by the files that
 * make its parts: diff.c opens it, diff_changes.c works out the change set,
 * diff_patch.c writes the patch, diff_stat.c the --stat and --name-only
 * texts, diff_limit.c keeps the files of a pathspec; diff_sides.c gives the
 * two sides of a file as text, for a patch made of them. Never included
 * outside these files.
 */
#ifndef AT_GIT_DIFF_INTERNAL_H
#define AT_GIT_DIFF_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "core/change.h"
#include "git/diff.h"
#include "git/diff_entries.h"
#include "git/internal.h"

struct at_diff {
	git_repository *repo;      /* no worktree, the base's attributes in its index: a task's
				      (w's, borrowed) or the common directory's (owned) */
	git_repository *owned;     /* repo, when it is the diff's own */
	struct at_worktree *w;     /* whose repository it borrowed, or NULL */
	git_odb *odb;
	git_diff *diff;
	git_diff_options opts;     /* also for the halves of a type change */
	struct at_diff_entry *ent; /* the files in git's output order (git/diff_entries.h) */
	size_t n;
	bool quote_high;           /* core.quotepath */
	int abbrev;                /* fewest hex digits on an index line */
	bool have_files;           /* cs.files worked out */
	struct at_change_set cs;
};

/* The path of a delta: its new side's, else its old side's. */
const char *at_diff_delta_path(const git_diff_delta *d);

/*
 * The content of one side of a delta as git diffs it: a blob's bytes, or for
 * a gitlink the line "Subproject commit <id>" (git counts and shows that
 * line, so a submodule swapped for a file is not a change of no lines).
 * *blob holds the bytes of a blob until the caller frees it.
 */
struct at_diff_side_text {
	git_blob *blob;
	const char *buf;
	size_t len;
	char line[64];
};

/*
 * One side against the other (a missing side is empty), whatever their file
 * types. The patch points into ta and tb: release them after it.
 */
int at_diff_sides_patch(struct at_diff *d, const git_diff_file *a, const git_diff_file *b,
			struct at_diff_side_text *ta, struct at_diff_side_text *tb,
			git_patch **out);

void at_diff_side_text_release(struct at_diff_side_text *t);

/*
 * A type change or a rename: made from the two sides here (libgit2 counts
 * nothing for the one and has no delta for the other), else libgit2's patch.
 */
bool at_diff_own_patch(const struct at_diff_entry *e);

#endif
