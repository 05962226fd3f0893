/*
 * diff.h - what a task (or, in CI, a branch) changes against its merge base.
 *
 * A struct at_diff is one comparison, computed once: the tree of the merge
 * base against a new tree. For a task the new tree is its full state
 * (at_snapshot_tree(): commits on the task branch plus everything
 * uncommitted or untracked and not ignored) and the merge base is that of
 * the task branch and its base branch (the task's base_commit when the base
 * branch is unset or gone). For two revisions (CI) it is the head's tree
 * against merge-base(base, head).
 *
 * From one struct at_diff come the change set (core/change.h: plain data for
 * the policy rules and `diff --json`), the patch and the --stat and
 * --name-only texts, so a command never takes the snapshot twice.
 *
 * The text is git's: `git diff` headers and hunks, files in git's order (by
 * path), renames found as git finds them by default (always on here,
 * whatever diff.renames says, so that the policy sees the same change set on
 * every machine; exact renames of symlinks and gitlinks too: git/entries.h),
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

struct at_diff;

/* Compare the task's full state with its merge base. Reads, never changes, the worktree. */
int at_diff_open_task(struct at_diff **out, struct at_repo *r, const struct at_task *t,
		      struct at_error *err);

/* Compare head_rev's tree with merge-base(base_rev, head_rev); AT_ENOTFOUND: unknown, unrelated. */
int at_diff_open_revs(struct at_diff **out, struct at_repo *r, const char *base_rev,
		      const char *head_rev, struct at_error *err);

/* Accepts NULL. */
void at_diff_free(struct at_diff *d);

/*
 * The change set, worked out on first use and owned by d (valid until
 * at_diff_free). Files in path order (the new path); a type change is one
 * file, status T; old_path is always set (equal to path unless renamed);
 * binary files count no lines.
 */
int at_diff_changes(struct at_diff *d, const struct at_change_set **out, struct at_error *err);

/* One shot: open, and move the change set to *out (release with at_change_set_release). */
int at_diff_task(struct at_repo *r, const struct at_task *t, struct at_change_set *out,
		 struct at_error *err);
int at_diff_revs(struct at_repo *r, const char *base_rev, const char *head_rev,
		 struct at_change_set *out, struct at_error *err);

/*
 * Keep only the files that match a pathspec of paths[0..n) (git's: a path,
 * a directory for everything below it, or a glob, relative to the top of
 * the tree): for `diff -- PATH...`. A rename stays whole when either of its
 * paths matches. Before at_diff_changes, at_diff_patch and the texts, which
 * then show only those files; n == 0 keeps everything.
 */
int at_diff_limit(struct at_diff *d, char *const *paths, size_t n, struct at_error *err);

/* What a line of the patch is: libgit2's GIT_DIFF_LINE_* characters. */
enum at_diff_origin {
	AT_DIFF_FILE_HDR = 'F',      /* "diff --git ...", "index ...", "--- a/x", ... */
	AT_DIFF_HUNK_HDR = 'H',      /* "@@ -1,2 +1,3 @@ function context" */
	AT_DIFF_CONTEXT = ' ',
	AT_DIFF_ADDITION = '+',
	AT_DIFF_DELETION = '-',
	AT_DIFF_CONTEXT_EOFNL = '=', /* "\ No newline at end of file" after a context line */
	AT_DIFF_ADD_EOFNL = '>',     /* ... after an added line */
	AT_DIFF_DEL_EOFNL = '<',     /* ... after a deleted line */
	AT_DIFF_BINARY = 'B',        /* "Binary files a/x and b/x differ" */
};

/*
 * Called once per line of output, in order. content is the line without its
 * final newline (a '\r' before it stays) and, for ' ', '+' and '-', without
 * the origin character: git's output line is that character, then content,
 * then '\n'; for every other origin it is content then '\n'. A file header
 * line "--- a/my file" ends in a '\t' when the name holds a space, as git's
 * does. Return 0 to go on, -1 (errno set) to stop.
 */
typedef int (*at_diff_line_cb)(char origin, const char *content, size_t len, void *payload);

/* The patch, like `git diff BASE` after `git add -A`. A stop by cb gives AT_ESYS. */
int at_diff_patch(struct at_diff *d, at_diff_line_cb cb, void *payload, struct at_error *err);

struct at_diff_stat_opts {
	size_t width;           /* total columns, like git's terminal width; 0: 80 */
	const char *add_color;  /* wrapped around the '+' run of the graph; NULL: none */
	const char *del_color;  /* around the '-' run */
	const char *reset;      /* ends a colour */
};
#define AT_DIFF_STAT_OPTS_INIT { 0, NULL, NULL, NULL }

/* The text of `git diff --stat` (malloc'd into *out, "" when nothing changed). */
int at_diff_stat(struct at_diff *d, const struct at_diff_stat_opts *opts, char **out,
		 struct at_error *err);

/* The text of `git diff --name-only`: one (quoted as git does) path a line. */
int at_diff_names(struct at_diff *d, char **out, struct at_error *err);

#endif
