/*
 * apply_paths.h - bring chosen paths of a user's checkout to a new tree, so
 * that a kill at any moment leaves each of them whole.
 *
 * accept updates the files and index of every worktree where the base
 * branch is checked out, for the paths the merge changes. libgit2's checkout
 * writes a file in place (truncate, then write), so a kill midway could
 * leave one half-written, and it writes the index once at the end, so the
 * files it had written looked like the user's own changes to the next
 * accept, which refused over them. Here:
 *  - every file and symbolic link is written under a temporary name (in a
 *    directory of the worktree's git directory, or beside the path when that
 *    is another file system) and renamed over its path: a path is its old
 *    content or its new one, never a mix;
 *  - deletions go first (a file, then the directories left empty), writes
 *    after, and the index last, in one rename, taking index.lock as git does;
 *    a kill while it is held leaves a lock that accept knows to be its own;
 *  - a kill before the index is written leaves paths at their new state,
 *    unstaged: at_apply_path_is_new() recognises them, so that accept run
 *    again finds them not in the way and lands what an uninterrupted accept
 *    lands.
 * Directories on the way are opened one component at a time, never through
 * a symbolic link: a link in the user's checkout where the task put a
 * directory is in the way, never written through.
 *
 * Not fsync'd, like git's checkout: a process killed at any moment is
 * covered, a power loss is not. The caller holds the repository lock and has
 * checked that the user has no changes of their own in those paths.
 */
#ifndef AT_GIT_APPLY_PATHS_H
#define AT_GIT_APPLY_PATHS_H

#include <stdbool.h>
#include <stddef.h>

#include <git2.h>

#include "core/error.h"

/*
 * Make each of paths (sorted, relative to the worktree of repo) what it is
 * in tree `to`: its blob, link or submodule directory, or nothing. Files go
 * through the filters git applies on checkout. AT_EDIRTY when something is
 * in the way, before anything is written; other failures may be midway
 * (each path still whole).
 */
int at_apply_paths(git_repository *repo, git_tree *to, char *const *paths, size_t n,
		   struct at_error *err);

/*
 * The same in a task's worktree, which the agent writes: repo is the task's
 * repository opened without its worktree (git/internal.h's
 * at_git_open_task_repo; its index and config are the task's), worktree
 * its directory (opened without following a link, as every directory on
 * the way is). Files go through the filters with the attributes of commit
 * base's tree only (git/attrs.c), never the task's .gitattributes; nothing
 * is checked for being in the way but directories (the caller has saved
 * the task's full state). The task's index is written last, as above: used
 * by `drop -- PATHSPEC` (app/drop.c), through at_apply_paths_ext below.
 */
int at_apply_task_paths(git_repository *repo, const char *worktree, const git_oid *base,
			git_tree *to, char *const *paths, size_t n, struct at_error *err);

/*
 * The same for a task's worktree (rewind, git/checkpoint.h), which is the
 * agent's: the index may take its entries from another tree than the files
 * (the files a checkpoint's full state, the index its HEAD's), and the
 * filters' attributes come from one commit alone, never from the worktree.
 */
struct at_apply_opts {
	git_tree *index_to;          /* the paths' index entries from this tree; NULL: `to` */
	const git_oid *attr_commit;  /* attributes from this commit only; NULL: the worktree's */
	const char *workdir;         /* the worktree, repo opened bare (libgit2 then reads no
					worktree file: attributes from the index and attr_commit) */
	/*
	 * With own_index: the index entries to change are index_paths (sorted,
	 * each once, from index_to; none: the index is not written), not
	 * `paths`'; the index is then read from its file, never from repo
	 * (whose index may be at_git_attrs_from_base's), and written as
	 * git/index_update.h does (only those entries made anew, the others
	 * copied; libgit2 where it declines), in the same one rename. A
	 * rewind's, where files and index differ in other paths.
	 */
	bool own_index;
	char *const *index_paths;
	size_t nindex_paths;
};

int at_apply_paths_ext(git_repository *repo, git_tree *to, const struct at_apply_opts *o,
		       char *const *paths, size_t n, struct at_error *err);

/*
 * Is path in repo's worktree exactly what it is in `to` (nothing, or a
 * directory, when `to` has no file there)? What an apply killed before its
 * index was written leaves.
 */
bool at_apply_path_is_new(git_repository *repo, git_tree *to, const char *path);

/*
 * The index.lock of repo's worktree, if an apply made it and was killed
 * before it renamed it over the index (it recorded itself, and that file by
 * inode and birth time, first): removed, and true. Else false: the lock is
 * another git command's, or none.
 */
bool at_apply_clear_stale_lock(git_repository *repo);

#endif
