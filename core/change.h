/*
 * change.h - a change set: what a task (or a branch, in CI) changes against
 * its merge base, as plain data.
 *
 * git/diff.c fills it from libgit2; the policy rules (core/policy.h) and the
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
	char base[AT_OID_HEXSZ + 1];   /* the merge base commit compared against */
	char tree[AT_OID_HEXSZ + 1];   /* the tree of the full new state */
	struct at_change_file *files;  /* sorted by path */
	size_t nfiles;
	size_t additions;
	size_t deletions;
};

/* Free everything a change set owns (accepts NULL and a half-filled set). */
void at_change_set_release(struct at_change_set *cs);

/* "added", "modified", ... for JSON and messages. */
const char *at_change_status_name(enum at_change_status s);

#endif
