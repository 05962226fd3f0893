/*
 * blob.h - reading one file as it is at a revision, without a checkout.
 *
 * The review gate reads its policy this way, from the base revision, so a
 * task's own edit of the policy file is never what judges it.
 */
#ifndef AT_GIT_BLOB_H
#define AT_GIT_BLOB_H

#include <stddef.h>

#include "core/task.h"
#include "git/repo.h"

/*
 * The content of path (repository-relative) in the tree of commit,
 * NUL-terminated, in *text (the caller frees it) with its length in *len
 * (NUL bytes inside are kept and counted).
 *
 *   AT_ENOTFOUND  the commit has no entry at path: the only "absent" answer
 *   AT_EUSAGE     path is there but not a regular file (a directory, a
 *                 symlink, a submodule), or it is larger than max bytes
 */
int at_git_read_file_at(struct at_repo *r, const struct at_oid *commit, const char *path,
			size_t max, char **text, size_t *len, struct at_error *err);

/* The same in a tree (the state a task's diff judged) rather than a commit's. */
int at_git_read_file_in_tree(struct at_repo *r, const struct at_oid *tree, const char *path,
			     size_t max, char **text, size_t *len, struct at_error *err);

/*
 * The commit rev names (a branch, tag, full ref or id): where a revision a
 * person typed enters, resolved once. AT_ENOTFOUND: no such revision, or
 * not a commit (the one code of an unknown revision everywhere).
 */
int at_git_resolve_commit(struct at_repo *r, const char *rev, struct at_oid *out,
			  struct at_error *err);

#endif
