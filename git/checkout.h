/*
 * checkout.h - a new task's files and index, written the fast way.
 *
 * `agenttask new` checks out a whole tree into a directory that is empty.
 * libgit2's checkout is general (it compares with what is there, updates an
 * index entry by entry, looks attributes up file by file) and on 20,000
 * files cost more than `git worktree add`. at_checkout_fresh() does only
 * what an empty directory needs, as git's parallel checkout does: it plans
 * every directory and file from the tree, creates the directories, writes
 * the files with one worker thread per CPU (each with its own object
 * database handle: libgit2 objects are not shared between threads), and
 * writes the index in one pass with the stat data of the files it wrote.
 *
 * It is only for trees whose checkout cannot be changed by a filter: the
 * caller has checked that no attributes and no core.autocrlf/core.eol
 * apply. It declines, before anything is written, whatever it does not
 * handle exactly as git would: core.symlinks false, a file mode other than
 * the four of git, a name that git refuses to check out (".git" in any
 * case or NTFS/HFS spelling, ".", "..", a backslash or a colon) and any
 * unusual name (control characters), a path longer than PATH_MAX. The
 * caller then runs libgit2's checkout, which refuses or handles it.
 */
#ifndef AT_GIT_CHECKOUT_H
#define AT_GIT_CHECKOUT_H

#include <git2.h>

#include "core/error.h"
#include "core/progress.h"

#define AT_CHECKOUT_DECLINED 1

/*
 * Write TREE into the empty worktree of WT (a repository opened on the
 * task's worktree) and write WT's index. Returns 0 when done,
 * AT_CHECKOUT_DECLINED when the tree needs libgit2's checkout (nothing was
 * written), or a negative code with err set (what was written is left for
 * the caller's rollback).
 */
int at_checkout_fresh(git_repository *wt, git_tree *tree, const struct at_progress_hook *progress,
		      struct at_error *err);

/*
 * The same into dir (an empty directory) and index_path, with repo's
 * objects and configuration only (a repository without a worktree will do):
 * a base of layered tasks (git/layer.h).
 */
int at_checkout_into(git_repository *repo, git_tree *tree, const char *dir,
		     const char *index_path, const struct at_progress_hook *progress,
		     struct at_error *err);

#endif
