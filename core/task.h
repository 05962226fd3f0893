/*
 * task.h - the task model (where agenttask keeps its parts: core/paths.h).
 *
 * A task is a branch `agenttask/NAME` checked out in a linked worktree. A new
 * task's worktree is `<worktree_home>/NAME`, outside the git directory (tools
 * such as Jest skip every path with a `/.git/` in it): worktree_home is
 * `<base>/<repo>-<id>`, base the user's `agenttask.worktreeDir` or
 * `${XDG_DATA_HOME:-~/.local/share}/agenttask/worktrees` (git/repo.c sets
 * it). Tasks made before that live at `<git-common-dir>/agenttask/worktrees/
 * NAME` and keep working. Its record lives in
 * `<git-common-dir>/agenttask/tasks/NAME.json` (see state.h); the record's
 * worktree path is trusted only where at_paths_worktree_trusted() says so.
 *
 * A record in phase AT_TASK_CREATING marks a task under construction: if it is
 * found while nobody holds the repository lock, its creator died midway and
 * `agenttask gc` (or a new task of that name) rolls it back.
 */
#ifndef AT_CORE_TASK_H
#define AT_CORE_TASK_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/oid.h"
#include "core/paths.h"

#define AT_REFS_HEADS "refs/heads/"
#define AT_REFS_HEADS_LEN (sizeof(AT_REFS_HEADS) - 1)
#define AT_BRANCH_PREFIX "agenttask/"
#define AT_WORKTREE_PREFIX "agenttask-"
/* Room for a full ref name (refs/heads/..., refs/agenttask/trash/NAME/TIME). */
#define AT_REF_MAX 256
/* Discarded tasks stay in the trash this many days unless gc is told otherwise. */
#define AT_TRASH_DAYS_DEFAULT 14
/* A number macro as a string literal, for help texts: AT_STR(AT_TRASH_DAYS_DEFAULT). */
#define AT_STR_(x) #x
#define AT_STR(x) AT_STR_(x)

enum at_task_phase {
	AT_TASK_CREATING = 0,
	AT_TASK_READY = 1,
};

/*
 * The form of a task's worktree. A full task's files are a checkout at its
 * path. A layered task's path holds nothing on the host (git's worktree is
 * locked, so that `git worktree prune` keeps it): its files are the base
 * tree's checkout, shared by every task of that tree (core/paths.h's base,
 * read-only), and the task's own layer above it (its upper), mounted as an
 * overlay at its path inside the sandbox. `agenttask path` makes it full.
 */
enum at_task_form {
	AT_FORM_FULL = 0,
	AT_FORM_LAYERED = 1,
};

struct at_task {
	char name[AT_NAME_MAX + 1];
	char branch[AT_NAME_MAX + 32];       /* full ref: refs/heads/agenttask/NAME */
	char base_branch[AT_REF_MAX];        /* full ref, or "" when based on a detached HEAD */
	char base_commit[AT_OID_HEXSZ + 1];  /* commit the task started from */
	char worktree_name[AT_NAME_MAX + 32];/* name of <common>/worktrees/<name> */
	char path[PATH_MAX];                 /* the worktree directory */
	char admin_dir[PATH_MAX];            /* <common>/worktrees/<worktree_name> */
	int64_t created;                     /* seconds since the epoch */
	enum at_task_phase phase;
	enum at_task_form form;
	char base_tree[AT_OID_HEXSZ + 1];    /* layered: the tree of its lower (base), else "" */
	char upper[PATH_MAX];                /* where its layer's upper is (core/paths.h), were
						it layered: its own files, while it is */
};

/*
 * Whether the task is layered now: its record says so and its path holds no
 * checkout. A directory at its path with a .git file in it is the full
 * checkout `path` made and renamed into place; a kill before the record
 * was flipped leaves that, and the task is full from then on
 * (app/fullform.c finishes the job). A directory without one (made by
 * someone at the path) changes nothing: the task stays layered.
 */
bool at_task_is_layered(const struct at_task *t);

/*
 * The error for a task whose worktree directory is gone (AT_ECORRUPT), with
 * what to do about it: discard or gc remove the task, keeping its commits.
 * For a layered task, what is gone is its layer's upper (its own files).
 */
int at_task_worktree_gone(const struct at_task *t, struct at_error *err);

/* Fill the derived fields (branch, worktree name, paths) of a task named name. */
int at_task_init(struct at_task *t, const struct at_paths *p, const char *name,
		 struct at_error *err);

/*
 * Whether path may be the worktree of the task t names (t->admin_dir derived
 * from its name): the old place, <any base>/<worktree_leaf>/NAME (the base
 * is configurable and may have changed since; the leaf is this repository's
 * alone), or the directory git registered for that task (its admin dir's
 * gitdir file names path/.git).
 * A task record is the attacker's to edit; this is what keeps `discard`,
 * `gc` and `run` from removing or binding anything else.
 */
bool at_paths_worktree_trusted(const struct at_paths *p, const struct at_task *t,
			       const char *path);

/* The directory git registered as t's worktree (its admin dir's gitdir, without /.git). */
bool at_task_registered(const struct at_task *t, char *buf, size_t size);

/* Short form of a full branch ref ("refs/heads/main" -> "main"). */
const char *at_branch_short(const char *ref);

/* What a task looks like right now (git/worktree.h fills it). */
struct at_task_info {
	char head_commit[AT_OID_HEXSZ + 1];  /* tip of the task branch, "" if missing */
	bool worktree_missing;  /* its worktree, or a layered task's upper, is gone */
	bool dirty;             /* uncommitted or untracked (not ignored) changes */
	size_t commits_ahead;   /* commits on the task branch not in its base commit */
};

#endif
