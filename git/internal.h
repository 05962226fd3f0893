/*
 * internal.h - what the files of git/ share; never included outside git/.
 */
#ifndef AT_GIT_INTERNAL_H
#define AT_GIT_INTERNAL_H

#include <git2.h>

#include "core/task.h"
#include "git/repo.h"

struct at_repo {
	git_repository *repo;     /* the main worktree's repository */
	git_repository *here;     /* the user's linked worktree the command runs in, or NULL
				     (main worktree, or a task's): HEAD and the base come from it */
	struct at_paths paths;
};

/*
 * Translate libgit2's last error, once, at the boundary: the message is
 * "<what>: <libgit2 message>". git_error_last() can be NULL on libgit2 1.5.
 */
int at_git_error(struct at_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Open the task's worktree as a repository of its own. */
int at_git_open_worktree(git_repository **out, const struct at_task *t, struct at_error *err);

/* at_snapshot_tree() in the task's worktree repository wt, already open. */
int at_git_snapshot_tree(git_repository *wt, const struct at_task *t, git_oid *tree,
			 struct at_error *err);

/* Commits reachable from tip but not from since (0 when they cannot be walked). */
size_t at_git_count_between(git_repository *repo, const git_oid *tip, const git_oid *since);

/* Commit id -> hex (buf of AT_OID_HEXSZ + 1). */
void at_git_oid_hex(char *buf, const git_oid *id);

/* Author/committer from the repository's configuration, else agenttask <agenttask@localhost>. */
int at_git_signature(git_signature **out, git_repository *repo, struct at_error *err);

#endif
