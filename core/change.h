/*
 * change.h - a change set: what a task (or a branch, in CI) changes against
 * its merge base, as plain data.
 *
 * git/diff_changes.c fills it from libgit2; the policy rules (core/policy.h) and the
 * JSON of `diff --json` read it. It lives in core/ so that neither of those
 * needs libgit2.
 */
#ifndef AT_CORE_CHANGE_H
#define AT_CORE_CHANGE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/task.h"

enum at_change_status {
	AT_CHANGE_ADDED = 'A',
	AT_CHANGE_MODIFIED = 'M',
	AT_CHANGE_DELETED = 'D',
	AT_CHANGE_RENAMED = 'R',
	AT_CHANGE_COPIED = 'C',
	AT_CHANGE_TYPECHANGE = 'T',
};

struct at_change_file {
	char *path;           /* new path (old path for a deletion) */
	char *old_path;       /* differs from path for renames and copies */
	enum at_change_status status;
	unsigned int old_mode;    /* git file modes: 0100644, 0100755, 0120000, 0 when absent */
	unsigned int new_mode;
	size_t additions;
	size_t deletions;
	bool binary;          /* git's test: a NUL in the first 8000 bytes (diff output) */
	bool has_nul;         /* binary, or a NUL anywhere in the new content (the gate's test) */
	char *link_target;    /* for a symlink on the new side: its target, else NULL */
};

struct at_change_set {
	struct at_oid base;            /* the merge base commit compared against */
	struct at_oid tree;            /* the tree of the full new state */
	struct at_change_file *files;  /* sorted by path */
	size_t nfiles;
	size_t additions;
	size_t deletions;
};

/* Free everything a change set owns (accepts NULL and a half-filled set). */
void at_change_set_release(struct at_change_set *cs);

/* "added", "modified", ... for JSON and messages. */
const char *at_change_status_name(enum at_change_status s);

/*
 * The patch of a change, line by line, as git/diff.h makes it and a front
 * end prints it: what a line is (libgit2's GIT_DIFF_LINE_* characters).
 */
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

struct at_diff_stat_opts {
	size_t width;           /* total columns, like git's terminal width; 0: 80 */
	const char *add_color;  /* wrapped around the '+' run of the graph; NULL: none */
	const char *del_color;  /* around the '-' run */
	const char *reset;      /* ends a colour */
};
#define AT_DIFF_STAT_OPTS_INIT { 0, NULL, NULL, NULL }

#endif
