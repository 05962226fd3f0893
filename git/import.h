/*
 * import.h - bringing the commits a task made inside the sandbox into the
 * repository (issue 10's import), the libgit2 side.
 *
 * The task's git objects are in its overlay's upper directory, written by
 * the attacker. Nothing there is opened by path: each loose object and
 * pack wanted is read through a descriptor of that directory (openat2, no
 * link followed, regular files only, size bounded) into a quarantine
 * directory of agenttask's own (state, invisible to the sandbox), where a
 * separate object database reads it: loose objects inflated and their hash
 * checked here (not trusting the process-wide setting), packs run through
 * libgit2's indexer, which hashes every object and ignores the task's .idx.
 *
 * From the new tip, every object the repository lacks is validated before
 * any is written: its size against the limit (agenttask.maxFileSize, read
 * from the header, before it is inflated), its hash, a strict parse (a
 * commit's tree and parents, a tree's modes, names and order, as fsck
 * would; no tree nested deeper than git's limit, 2048), and everything it
 * points to present or imported too. Objects are
 * written children first, so an object in the repository always has its
 * closure there, even after a kill midway. Time is proportional to the
 * objects walked that the repository lacks.
 */
#ifndef AT_GIT_IMPORT_H
#define AT_GIT_IMPORT_H

#include <stddef.h>

#include "core/error.h"
#include "core/oid.h"
#include "core/task.h"
#include "git/repo.h"

struct at_import_stats {
	size_t objects;      /* objects written to the repository */
	size_t packs;        /* the task's packs indexed */
};

/*
 * Validate and copy into r's object database everything reachable from tip
 * that it lacks, read from objects_fd (the task's upper's objects/, an
 * O_RDONLY | O_DIRECTORY descriptor) through quarantine (an empty directory
 * agenttask owns, removed by the caller). 0, or AT_ECORRUPT (an invalid,
 * missing or too large object, named) / AT_ESYS; nothing refers to what
 * was written until the caller moves a ref.
 */
int at_git_import_objects(struct at_repo *r, int objects_fd, const char *quarantine,
			  const struct at_oid *tip, struct at_import_stats *stats,
			  struct at_error *err);

/*
 * Move t's branch from old to tip (compare-and-swap: AT_ECONFLICT when it
 * is no longer at old, nothing changed), after making the worktree's index
 * on the host agree: the entries of the paths that differ between old's
 * tree and tip's set to tip's, with no stat data (git and agenttask hash
 * those files again), the others untouched. The index is written first: a
 * kill between the two leaves the branch where it was, and the next import
 * does the same again. The reflog says "agenttask import". A commit that
 * adds a gitlink, or moves one, that old's tree lacks is refused
 * (AT_EUNSAFE, the path named), the index untouched: the embedded-repository
 * rule of git/scan.h.
 */
int at_git_import_move(struct at_repo *r, const struct at_task *t, const struct at_oid *old,
		       const struct at_oid *tip, struct at_error *err);

/* The tip of t's branch on the host: 0, or AT_ENOTFOUND. */
int at_git_branch_tip(struct at_repo *r, const struct at_task *t, struct at_oid *out,
		      struct at_error *err);

#endif
