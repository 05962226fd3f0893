/*
 * renames.h - deleted and added files paired into renames as git pairs them.
 *
 * git's own algorithm (diffcore-rename, as `git diff -M` runs it), not
 * libgit2's, which differs: libgit2 takes a type change as a rename source
 * and target, never pairs symlinks or gitlinks, and breaks ties otherwise.
 * The review must list what git lists (git/diff_entries.h gives it the
 * files of a libgit2 diff).
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
 * Similarity is git's estimate (gitfmt/diff_format.h).
 */
#ifndef AT_GITFMT_RENAMES_H
#define AT_GITFMT_RENAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <git2.h>

#include "gitfmt/diff_format.h"

#define AT_RENAME_NONE ((size_t)-1)

/* A deleted file (a rename source) or an added one (a destination). */
struct at_rename_file {
	const char *path;    /* a source's old path, a destination's new one */
	git_oid id;
	uint16_t mode;       /* git's file mode (GIT_FILEMODE_*) */
	/* Written by at_renames_find(): */
	bool used;           /* a source: a rename took it */
	size_t src;          /* a destination: its source's index, or AT_RENAME_NONE */
	int score;           /* a destination paired: 0..AT_DIFF_MAX_SCORE */
};

/*
 * The similarity signature of the blob id, for at_diff_sig_estimate()
 * (at_diff_sig_new() of its content): NULL when it cannot be read (never
 * alike) or out of memory. Asked at most once a file, only when needed.
 */
typedef struct at_diff_sig *(*at_rename_sig_fn)(void *arg, const git_oid *id);

/*
 * Pair destinations with sources, both given in path order, by the steps
 * above; the results go to the out fields. 0, or -1 out of memory.
 */
int at_renames_find(struct at_rename_file *src, size_t nsrc, struct at_rename_file *dst,
		    size_t ndst, at_rename_sig_fn sig, void *arg);

#endif
