/*
 * scan.h - what changed in a task's worktree since its index.
 *
 * The first half of `git add -A`, and the only code that looks at what a
 * worktree holds (libgit2 never sees the worktree: git/wtread.h). The
 * worktree is walked one directory descriptor at a time (fstatat() of one
 * path component, never through a symbolic link; openat2() with
 * RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS for each directory), by three
 * threads a CPU taking directories from a shared stack, against the
 * index's entries (a hash of its directories; a file by binary search in
 * its directory's range of the sorted entries). It reports:
 *
 *   AT_SCAN_CHANGED    a tracked path whose stat data (mtime, ctime, inode,
 *                      size, uid, gid, type, executable bit) differs from
 *                      its index entry, or is racily clean (modified no
 *                      earlier than the index was written), or is
 *                      intent-to-add, or a submodule (gitlink) replaced by
 *                      a file or link: its bytes may have changed, the
 *                      caller hashes it;
 *   AT_SCAN_DELETED    a tracked path that is gone, or is now a directory
 *                      (what is in it is then untracked);
 *   AT_SCAN_UNTRACKED  a file or link in no index entry and not ignored
 *                      (git's rules, core/ignore.h, the .gitignore files
 *                      read by git/wtignore.h), found in untracked
 *                      directories too.
 *
 * Ignored directories are not entered, nor are a submodule's, whose
 * recorded commit stays the index's (never read from the repository in
 * it). Entries marked assume-unchanged or skip-worktree are not looked at,
 * as git add -A does not. A fifo, socket or device nobody tracks is not
 * seen, as git does not see one. It refuses, with one line naming the
 * path(s) and nothing reported:
 *
 *   - an embedded repository: a directory other than a submodule's holding
 *     a ".git" of any kind (git would record it as a gitlink to its HEAD,
 *     and a later `git status` would run that repository's hooks and
 *     core.fsmonitor); in a submodule's directory only a .git file pointing
 *     into the repository's own modules directory is left alone;
 *   - a tracked file that became a fifo, socket or device (git add fails);
 *   - a path longer than PATH_MAX; an ignore file over its bound;
 *   - an index with unresolved conflicts; core.ignorecase (case-insensitive
 *     worktrees are not supported).
 */
#ifndef AT_GIT_SCAN_H
#define AT_GIT_SCAN_H

#include <stddef.h>
#include <time.h>

#include <git2.h>

#include "core/error.h"

enum at_scan_kind { AT_SCAN_CHANGED, AT_SCAN_DELETED, AT_SCAN_UNTRACKED };

struct at_scan_change {
	enum at_scan_kind kind;
	char *path;             /* relative to the worktree */
};

struct at_scan {
	struct at_scan_change *v;   /* sorted by path */
	size_t n, cap;
	size_t dirs_listed;         /* tracked directories read with getdents */
	size_t dirs_known;          /* ... taken from the directory cache instead */
};

#define AT_SCAN_INIT { NULL, 0, 0, 0, 0 }

/*
 * Compare the worktree at workdir with IDX (the index of repo, the task's
 * repository, whose configuration and common directory give the global
 * ignore files; not changed). 0 with the changes in *out, or a negative
 * code with err set (AT_EUNSAFE for a refusal).
 */
int at_scan_worktree(git_repository *repo, const char *workdir, git_index *idx,
		     struct at_scan *out, struct at_error *err);

/*
 * The same for entries read otherwise (gitfmt/index_file.h): count entries in
 * the index's order, the index file's mtime for the racily clean check.
 * With cache_path, directories the cache there vouches for are not listed
 * again (gitfmt/dircache.h), and the cache is brought up to date.
 */
int at_scan_entries(git_repository *repo, const char *workdir, const git_index_entry *entries,
		    size_t count, const struct timespec *index_mtime, const char *cache_path,
		    struct at_scan *out, struct at_error *err);

void at_scan_free(struct at_scan *s);

#endif
