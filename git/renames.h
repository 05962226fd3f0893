/*
 * renames.h - the files of a diff as git lists them, renames found as git
 * finds them.
 *
 * libgit2's tree-to-tree deltas (added, deleted, modified, type changed) are
 * put in git's order (by new path) and deleted and added files are paired
 * into renames by git's own algorithm (diffcore-rename, as `git diff -M`
 * runs it), not by libgit2's, which differs: libgit2 takes a type change as
 * a rename source and target, never pairs symlinks or gitlinks, and breaks
 * ties otherwise. The review must list what git lists.
 *
 * git's algorithm, in order:
 *   1. exact renames: for each added file (path order), among the unused
 *      deleted ones with the same object id (a regular file with a regular
 *      file, else the same mode; path order, at most 100 looked at), the
 *      first with the same base name, else the first;
 *   2. the rest, regular files only: pairs whose base name is unique among
 *      both the remaining sources and destinations, when at least 75%
 *      alike;
 *   3. the rest: every source against every destination (unless there are
 *      more than 1000 x 1000), the best four per destination kept, all
 *      pairs taken best first (ties: same base name first, then
 *      destination order), from 50% up.
 * Each source is used once: without copy detection (-C) git finds no copies.
 * Similarity is git's estimate (git/diff_format.h).
 */
#ifndef AT_GIT_RENAMES_H
#define AT_GIT_RENAMES_H

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
