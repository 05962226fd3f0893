/*
 * scan.h - what changed in a task's worktree since its index.
 *
 * The first half of `git add -A`: libgit2's index-to-workdir diff stats
 * every file by its absolute path and reads each directory with checks of
 * its own, and on 20,000 files it was most of `agenttask diff`. Here the
 * worktree is walked one directory descriptor at a time (fstatat() of one
 * path component, never through a symbolic link; openat2() with
 * RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS for each directory), by three
 * threads a CPU taking directories from a shared stack, against the
 * index's entries (a hash of its directories; a file by binary search in
 * its directory's range of the sorted entries). It reports:
 *
 *   AT_SCAN_CHANGED    a tracked file or link whose stat data (mtime, ctime,
 *                      inode, size, uid, gid, type, executable bit) differs
 *                      from its index entry, or is racily clean (modified
 *                      no earlier than the index was written): its bytes may
 *                      have changed, the caller hashes it;
 *   AT_SCAN_DELETED    a tracked path that is gone;
 *   AT_SCAN_UNTRACKED  a file or link in no index entry and not ignored
 *                      (libgit2's rules: git_ignore_path_is_ignored), found
 *                      in untracked directories too; an untracked directory
 *                      holding a ".git" is one entry, "dir/", as libgit2's
 *                      diff reports it.
 *
 * Ignored directories are not entered. It declines, reporting nothing, where
 * libgit2's diff is the one to decide: an index with conflicts,
 * intent-to-add, skip-worktree or assume-unchanged entries or gitlinks,
 * core.ignorecase, a tracked path whose type changed between file and
 * directory, a tracked directory holding a ".git", a special file (fifo,
 * socket, device).
 */
#ifndef AT_GIT_SCAN_H
#define AT_GIT_SCAN_H

#include <stddef.h>
#include <time.h>

#include <git2.h>

#include "core/error.h"

#define AT_SCAN_DECLINED 1

enum at_scan_kind { AT_SCAN_CHANGED, AT_SCAN_DELETED, AT_SCAN_UNTRACKED };

struct at_scan_change {
	enum at_scan_kind kind;
	char *path;             /* relative to the worktree; "dir/" for a repository */
};

struct at_scan {
	struct at_scan_change *v;   /* sorted by path */
	size_t n, cap;
	size_t dirs_listed;         /* tracked directories read with getdents */
	size_t dirs_known;          /* ... taken from the directory cache instead */
};

#define AT_SCAN_INIT { NULL, 0, 0, 0, 0 }

/*
 * Compare WT's worktree with IDX (WT's index, as read; not changed). Returns
 * 0 with the changes in *out, AT_SCAN_DECLINED (out empty), or a negative
 * code with err set.
 */
int at_scan_worktree(git_repository *wt, git_index *idx, struct at_scan *out,
		     struct at_error *err);

/*
 * The same for entries read otherwise (git/index_file.h): count entries in
 * the index's order, the index file's mtime for the racily clean check.
 * With cache_path, directories the cache there vouches for are not listed
 * again (git/dircache.h), and the cache is brought up to date.
 */
int at_scan_entries(git_repository *wt, const git_index_entry *entries, size_t count,
		    const struct timespec *index_mtime, const char *cache_path,
		    struct at_scan *out, struct at_error *err);

void at_scan_free(struct at_scan *s);

#endif
