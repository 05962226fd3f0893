/*
 * diff.h - what a task (or, in CI, a branch) changes against its merge base.
 *
 * A struct at_diff is one comparison, computed once: the tree of the merge
 * base against a new tree. For a task the new tree is its full state
 * (git/snapshot.h, taken by the caller: commits on the task branch plus
 * everything uncommitted or untracked and not ignored) and the merge base is
 * that of the state's tip and the task's base branch (the task's base_commit
 * when the base branch is unset or gone). For two commits (CI) it is the
 * head's tree against merge-base(base, head).
 *
 * From one struct at_diff come the change set (core/change.h: plain data for
 * the policy rules and `diff --json`), the patch and the --stat and
 * --name-only texts, so a command never takes the snapshot twice.
 *
 * The text is git's: `git diff` headers and hunks, files in git's order (by
 * path), renames found as git finds them by default (always on here,
 * whatever diff.renames says, so that the policy sees the same change set on
 * every machine; exact renames of symlinks and gitlinks too: gitfmt/renames.h),
 * a type change (file <-> symlink <-> gitlink) as a deletion and an
 * addition, a gitlink's side as the line "Subproject commit <id>", and a
 * directory that became a file (or the other way) as every path on both
 * sides. Paths are quoted as git quotes them: non-ASCII bytes as octal
 * escapes unless core.quotepath is false. The index line abbreviates object
 * ids as git does (core.abbrev, else a length that grows with the number of
 * packed objects, extended until unique). Rename similarity is git's measure.
 * Not reproduced: textconv drivers, copy detection (-C).
 * tests/integration/diff_differential.sh holds all of this against git
 * over generated pairs of trees.
 *
 * Attributes (binary, diff drivers) are the merge base's only: the diff is
 * made in a repository without a worktree whose index holds the base's
 * .gitattributes (git/attrs.c), never the task's or the CI checkout's. The
 * new side is checked before it is read: no blob over the size limit, no
 * symlinked .gitattributes, .gitignore or .gitmodules (git/wtread.h).
 *
 * git/ makes the text, cmd/ prints it.
 */
#ifndef AT_GIT_DIFF_H
#define AT_GIT_DIFF_H

#include <stddef.h>

#include "core/change.h"
#include "core/task.h"
#include "git/repo.h"
#include "git/snapshot.h"

struct at_diff;

/*
 * Compare the task's full state st, taken in its worktree w (at_task_state),
 * with its merge base: no scan of the worktree. r and w must outlive *out;
 * w's repository holds the diff's attributes, so w takes no state (nor
 * stage) while the diff is open (AT_EUSAGE).
 */
int at_diff_open_state(struct at_diff **out, struct at_repo *r, struct at_worktree *w,
		       const struct at_task_state *st, struct at_error *err);

/*
 * The same state st compared with from, a tree (the state the person last
 * reviewed: `diff --since-review`) instead of the merge base, whose
 * attributes still apply and which stays the change set's base.
 */
int at_diff_open_since(struct at_diff **out, struct at_repo *r, struct at_worktree *w,
		       const struct at_task_state *st, const struct at_oid *from,
		       struct at_error *err);

/*
 * Two attempts compared: the full state st of w's task (its tree) against
 * other (another task's full state tree, in the same repository), with the
 * attributes of w's task's merge base (never a task's); the change set's
 * base is that merge base, its tree other.
 */
int at_diff_open_against(struct at_diff **out, struct at_repo *r, struct at_worktree *w,
			 const struct at_task_state *st, const struct at_oid *other,
			 struct at_error *err);

/*
 * Compare two states of the task of w (git/checkpoint.h): from, a commit
 * (a checkpoint's, whose tree is the state then), with tree: what the runs
 * between them changed. The attributes are still the task's merge base's,
 * never those of either state. As at_diff_open_state for r and w.
 */
int at_diff_open_between(struct at_diff **out, struct at_repo *r, struct at_worktree *w,
			 const struct at_oid *from, const struct at_oid *tree, struct at_error *err);

/* Compare head's tree with merge-base(base, head); AT_ENOTFOUND: they are unrelated. */
int at_diff_open_commits(struct at_diff **out, struct at_repo *r, const struct at_oid *base,
			 const struct at_oid *head, struct at_error *err);

/* Accepts NULL. */
void at_diff_free(struct at_diff *d);

/*
 * The change set, worked out on first use and owned by d (valid until
 * at_diff_free). Files in path order (the new path); a type change is one
 * file, status T; old_path is always set (equal to path unless renamed);
 * binary files count no lines.
 */
int at_diff_changes(struct at_diff *d, const struct at_change_set **out, struct at_error *err);

/* The change set moved into *out (the caller's to release): d is then only to be freed. */
int at_diff_take_changes(struct at_diff *d, struct at_change_set *out, struct at_error *err);

/*
 * Keep only the files that match a pathspec of paths[0..n) (git's: a path,
 * a directory for everything below it, or a glob, relative to the top of
 * the tree): for `diff -- PATH...`. A rename stays whole when either of its
 * paths matches. Before at_diff_changes, at_diff_patch and the texts, which
 * then show only those files; n == 0 keeps everything.
 */
int at_diff_limit(struct at_diff *d, char *const *paths, size_t n, struct at_error *err);

/* The patch, like `git diff BASE` after `git add -A`. A stop by cb gives AT_ESYS. */
int at_diff_patch(struct at_diff *d, at_diff_line_cb cb, void *payload, struct at_error *err);

/* The text of `git diff --stat` (malloc'd into *out, "" when nothing changed). */
int at_diff_stat(struct at_diff *d, const struct at_diff_stat_opts *opts, char **out,
		 struct at_error *err);

/* The text of `git diff --name-only`: one (quoted as git does) path a line. */
int at_diff_names(struct at_diff *d, char **out, struct at_error *err);

#endif
