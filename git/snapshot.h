/*
 * snapshot.h - a task's worktree opened once, its full state, and committing it.
 *
 * "Full state" is what accept would integrate: the commits on the task
 * branch plus every uncommitted change in the worktree (modified, deleted,
 * new untracked files that are not ignored, mode changes, symlinks). It is
 * a pair of ids (struct at_task_state): the branch tip it was taken on and
 * the tree. Working it out scans the whole worktree, the most expensive
 * thing agenttask does on the host, so a command works it out once and
 * passes the state on (to the diff, the gate, the merge) instead of each of
 * them scanning again; and a worktree is opened as a repository once
 * (struct at_worktree) for all of them.
 *
 * The worktree is the agent's (git/wtread.h): struct at_worktree is the
 * task's repository opened without its worktree, plus the worktree's path.
 * libgit2 never reads a worktree file; the scan (git/scan.h) walks it and
 * git/wtread.c hashes its files, with the base commit's attributes, no
 * link followed, no fifo opened, no file over the size limit read
 * (git/repo.h). What they refuse is AT_EUNSAFE, naming the path.
 */
#ifndef AT_GIT_SNAPSHOT_H
#define AT_GIT_SNAPSHOT_H

#include <stdbool.h>

#include "core/oid.h"
#include "core/task.h"
#include "git/repo.h"

/* A task's (or a scratch) worktree: its repository, opened without the worktree, and its path. */
struct at_worktree;

/* Open t's repository (AT_EGIT when it cannot be: missing, say). r must outlive *out. */
int at_worktree_open(struct at_worktree **out, struct at_repo *r, const struct at_task *t,
		     struct at_error *err);
void at_worktree_free(struct at_worktree *w);

/* Is there a worktree at t's path to open (a directory holding a .git)? */
bool at_worktree_present(const struct at_task *t);

struct at_task_state {
	struct at_oid tip;     /* the task branch's tip when the state was taken */
	struct at_oid tree;    /* the tree of the full state */
	struct at_oid index;   /* the tree of the worktree's index then (what is staged on
				  tip's tree); zero: not known (a layered task, the general
				  path of the scan) */
	bool worktree;         /* the worktree was read; false: it is missing, tree is tip's */
};

/*
 * t's full state. With w (t's worktree, open), one scan of the worktree:
 * blobs of changed files are written to the object database; the
 * worktree's index and files on disk are left exactly as they were. With w
 * NULL (the worktree is missing), the branch tip's tree. AT_EUNSAFE for a
 * worktree holding what agenttask will not record (git/wtread.h).
 */
int at_task_state(struct at_repo *r, const struct at_task *t, struct at_worktree *w,
		  struct at_task_state *out, struct at_error *err);

/*
 * The same state, through w's index: the index is brought up to the
 * worktree in memory (git add -A) and kept in w, so that
 * at_worktree_commit() records exactly this state without a second scan.
 */
int at_worktree_stage(struct at_worktree *w, struct at_task_state *out, struct at_error *err);

struct at_commit_opts {
	const char *message;   /* NULL: "agenttask: changes of task 'NAME'" */
	const char *trailer;   /* appended after a blank line, or NULL */
};
#define AT_COMMIT_OPTS_INIT { NULL, NULL }

/*
 * Record what at_worktree_stage() staged as one commit on the task branch
 * and write the worktree's index to match (the index first: a crash
 * between the two leaves the changes staged, not lost). *made says whether
 * there was anything to commit; *commit is the branch tip either way.
 */
int at_worktree_commit(struct at_worktree *w, const struct at_commit_opts *opts,
		       struct at_oid *commit, bool *made, struct at_error *err);

#endif
