/*
 * diff_entries.h - the files of a libgit2 diff as git lists them.
 *
 * libgit2's tree-to-tree deltas (added, deleted, modified, type changed) are
 * put in git's order (by new path), and deleted and added files are paired
 * into renames by git's own algorithm (gitfmt/renames.h), their blobs read
 * from the repository.
 */
#ifndef AT_GIT_DIFF_ENTRIES_H
#define AT_GIT_DIFF_ENTRIES_H

#include <stddef.h>

#include <git2.h>

#define AT_DIFF_NO_DELTA ((size_t)-1)

struct at_diff_entry {
	size_t idx;          /* the delta (the added one of a pair) */
	size_t old_idx;      /* the deleted delta paired with it, or AT_DIFF_NO_DELTA */
	git_delta_t status;  /* the delta's; GIT_DELTA_RENAMED for a pair */
	int similarity;      /* of a pair: 0-100, as git prints it */
};

/*
 * The entries of diff (made without git_diff_find_similar) in git's output
 * order, renames paired; blobs read from repo. -1 on a libgit2 error or out
 * of memory.
 */
int at_diff_entries(git_repository *repo, git_diff *diff, struct at_diff_entry **out,
		    size_t *n);

/* The old and the new side of an entry. */
const git_diff_file *at_diff_entry_old(git_diff *diff, const struct at_diff_entry *e);
const git_diff_file *at_diff_entry_new(git_diff *diff, const struct at_diff_entry *e);

#endif
