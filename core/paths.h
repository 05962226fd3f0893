/*
 * paths.h - where agenttask keeps things in a repository.
 *
 * One owner of every path under the state directory (<common>/agenttask) and
 * of the places of a task's parts: nothing else spells them. A module that
 * needs the HOME, the caches, the git view, the scan's cache, the HOME's size
 * record or the task record of a task asks here (docs/architecture.md shows
 * the layout).
 */
#ifndef AT_CORE_PATHS_H
#define AT_CORE_PATHS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"

/* The longest task name (core/name.h checks it); the paths below have room for it. */
#define AT_NAME_MAX 64

struct at_paths {
	char common_dir[PATH_MAX];    /* the repository's git common dir */
	char state_dir[PATH_MAX];     /* <common>/agenttask */
	char tasks_dir[PATH_MAX];     /* <state>/tasks: one NAME.json per task */
	char worktrees_dir[PATH_MAX]; /* <state>/worktrees: the old place, one NAME/ per task */
	char worktree_home[PATH_MAX]; /* <base>/<repo>-<id>: new tasks' NAME/; "" = the old place */
	char worktree_leaf[AT_NAME_MAX + 32]; /* <repo>-<id>: the directory name, from common_dir */
	char homes_dir[PATH_MAX];     /* <state>/homes: one NAME/ per task, its HOME in the sandbox */
	char caches_dir[PATH_MAX];    /* <state>/caches: one NAME/ per task, its caches' upper dirs */
	char cas_dir[PATH_MAX];       /* <state>/ca: one NAME/ per task, its CA (net/tls.h) */
	char logs_dir[PATH_MAX];      /* <state>/logs: one NAME.jsonl per task */
	char cache_dir[PATH_MAX];     /* <state>/cache: NAME.scan, NAME.home, etc.listings */
	char views_dir[PATH_MAX];     /* <state>/git: one NAME/ per task, its git view */
	char runs_dir[PATH_MAX];      /* <state>/runs: NAME.lock and NAME.PID.run (core/runs.h) */
	char scratch_dir[PATH_MAX];   /* <state>/scratch: the gate's scratch worktrees */
	char comments_dir[PATH_MAX];  /* <state>/comments: one NAME.json per task (core/comments.h) */
	char bases_dir[PATH_MAX];     /* <state>/bases: one TREE/ per base of layered tasks */
	char layers_dir[PATH_MAX];    /* <state>/layers: one NAME/ per layered task, its layer */
	char admins_dir[PATH_MAX];    /* <common>/worktrees: git's admin dir of each worktree */
	char lock_file[PATH_MAX];     /* <state>/lock, flock'd by mutating commands */
};

/*
 * The state dir (<common>/agenttask) and the admin dirs' parent
 * (<common>/worktrees) of a common dir given otherwise (a real path, say);
 * -1 when the path does not fit.
 */
int at_paths_state_of(const char *common, char *buf, size_t size);
int at_paths_admins_of(const char *common, char *buf, size_t size);

/* Fill *p for a repository whose git common dir is common_dir (absolute). */
int at_paths_init(struct at_paths *p, const char *common_dir, struct at_error *err);

/* Create the state directories (mode 0700) when missing. */
int at_paths_ensure(const struct at_paths *p, struct at_error *err);

/* Set where new tasks' worktrees go (absolute; "" keeps the old place). */
int at_paths_set_worktree_home(struct at_paths *p, const char *dir, struct at_error *err);

/* Create worktree_home and its missing parents (each mode 0700). */
int at_paths_ensure_worktree_home(const struct at_paths *p, struct at_error *err);

/*
 * A task's parts, for task `name` (checked by the caller: core/name.h). Each
 * writes buf (of size) and returns 0, or AT_ESYS when the path does not fit;
 * err may be NULL. Each directory of these is agenttask's alone: gc removes
 * an entry no task record claims.
 */
int at_paths_record(const struct at_paths *p, const char *name, char *buf, size_t size,
		    struct at_error *err);      /* <tasks_dir>/NAME.json, the task record */
int at_paths_home(const struct at_paths *p, const char *name, char *buf, size_t size,
		  struct at_error *err);        /* <homes_dir>/NAME, its HOME in the sandbox */
int at_paths_caches(const struct at_paths *p, const char *name, char *buf, size_t size,
		    struct at_error *err);      /* <caches_dir>/NAME, its --cache overlays */
int at_paths_ca(const struct at_paths *p, const char *name, char *buf, size_t size,
		struct at_error *err);          /* <cas_dir>/NAME, its CA: ca.key (0600), ca.crt */
int at_paths_view(const struct at_paths *p, const char *name, char *buf, size_t size,
		  struct at_error *err);        /* <views_dir>/NAME, its git view (app/gitview.c) */
int at_paths_scan(const struct at_paths *p, const char *name, char *buf, size_t size,
		  struct at_error *err);        /* <cache_dir>/NAME.scan, the scan's directory cache */
int at_paths_home_size(const struct at_paths *p, const char *name, char *buf, size_t size,
		       struct at_error *err);   /* <cache_dir>/NAME.home, its HOME's size record */
int at_paths_log(const struct at_paths *p, const char *name, char *buf, size_t size,
		 struct at_error *err);         /* <logs_dir>/NAME.jsonl, its audit log */

/* <comments_dir>/NAME.json, the person's review comments on the task (core/comments.h). */
int at_paths_comments(const struct at_paths *p, const char *name, char *buf, size_t size,
		      struct at_error *err);
/* Create comments_dir (and the state dir) when missing. */
int at_paths_ensure_comments(const struct at_paths *p, struct at_error *err);

/*
 * A task's worktree: in the worktree home (new tasks), or in the old place
 * (<worktrees_dir>/NAME, tasks made before issue 12; also where new ones go
 * when worktree_home is ""). And git's admin directory of a worktree named
 * worktree_name (agenttask-NAME for a task): <admins_dir>/<worktree_name>.
 */
int at_paths_worktree(const struct at_paths *p, const char *name, char *buf, size_t size,
		      struct at_error *err);
int at_paths_old_worktree(const struct at_paths *p, const char *name, char *buf, size_t size,
			  struct at_error *err);
int at_paths_admin(const struct at_paths *p, const char *worktree_name, char *buf, size_t size,
		   struct at_error *err);

/* A task's setup record (app/setup.h): <cache_dir>/NAME.setup. */
int at_paths_setup(const struct at_paths *p, const char *name, char *buf, size_t size,
		   struct at_error *err);
/* The published ports' records (core/ports.h): <state_dir>/ports. */
int at_paths_ports_dir(const struct at_paths *p, char *buf, size_t size, struct at_error *err);

/*
 * A rewind under way (app/rewind.c): <cache_dir>/NAME.rewind names the
 * checkpoint it brings the task to, written before the worktree is touched
 * and removed once all of it is there; `gc` completes a rewind it finds.
 */
int at_paths_rewind(const struct at_paths *p, const char *name, char *buf, size_t size,
		    struct at_error *err);

/*
 * The refs of a task's checkpoints (git/checkpoint.h), the one place their
 * names are spelled: refs/agenttask/checkpoints/NAME/N, N from 1. Outside
 * refs/heads and refs/tags, so a plain clone or fetch never takes them.
 */
#define AT_CHECKPOINT_REFS "refs/agenttask/checkpoints/"
/*
 * All of agenttask's own refs (checkpoints, the trash): the person's way
 * back, never the agent's. The task's git view inside hides them, loose and
 * packed (app/gitview_open.c).
 */
#define AT_HOST_REFS "refs/agenttask/"
int at_paths_checkpoint_ref(const char *name, unsigned n, char *buf, size_t size,
			    struct at_error *err);
/* The glob of all of them (NAME/ *, without the space), for a ref iterator. */
int at_paths_checkpoint_glob(const char *name, char *buf, size_t size, struct at_error *err);
/*
 * The ref that keeps the trees a person's review of task NAME refers to
 * (the comments' and the reviewed state's: git/checkpoint.h's
 * at_review_keep), so that git's gc never prunes them while the task is
 * there: refs/agenttask/reviews/NAME. Hidden from the agent as all of
 * AT_HOST_REFS.
 */
#define AT_REVIEW_REFS "refs/agenttask/reviews/"
int at_paths_review_ref(const char *name, char *buf, size_t size, struct at_error *err);

/*
 * What a trash entry (refs/agenttask/trash/NAME/STAMP, git/trash.h) keeps
 * beside the task's state, so that restore gives it back (git/trash_keep.h):
 * refs/agenttask/trash-kept/NAME/STAMP/checkpoints/N, the task's checkpoint
 * N, and refs/agenttask/trash-kept/NAME/STAMP/review, its review (the
 * comments file as a blob, on the reviews ref's commits). Written before the
 * entry, deleted after it: kept refs without their entry are gc's to remove.
 * STAMP is the entry's last component (SECONDS.NANOS).
 */
#define AT_TRASH_REFS "refs/agenttask/trash/"
#define AT_TRASH_KEPT_REFS "refs/agenttask/trash-kept/"
int at_paths_trash_kept_checkpoint(const char *name, const char *stamp, unsigned n, char *buf,
				   size_t size, struct at_error *err);
int at_paths_trash_kept_review(const char *name, const char *stamp, char *buf, size_t size,
			       struct at_error *err);
/* The glob of all the refs an entry keeps (NAME/STAMP/ *, without the space). */
int at_paths_trash_kept_glob(const char *name, const char *stamp, char *buf, size_t size,
			     struct at_error *err);

/*
 * The layered form (core/task.h). A base: <bases_dir>/TREE (TREE the hex id
 * of a tree), holding files/ (the tree's checkout, read-only, shared by every
 * layered task of that tree) and index (the index of that checkout, with its
 * stat data; a new task's index is a copy). Made as <bases_dir>/.new-TREE.PID
 * and renamed into place. A task's layer: <layers_dir>/NAME, holding upper/
 * (the task's own files, overlayfs's upper), work/ and work.1/ (its work
 * dirs, app/layer.c), lock.
 */
int at_paths_base(const struct at_paths *p, const char *tree_hex, char *buf, size_t size,
		  struct at_error *err);
int at_paths_base_tmp(const struct at_paths *p, const char *tree_hex, char *buf, size_t size,
		      struct at_error *err);
int at_paths_layer(const struct at_paths *p, const char *name, char *buf, size_t size,
		   struct at_error *err);
/* Whether leaf, a name in bases_dir, is a temporary twin of tree_hex's base (any maker's). */
bool at_paths_is_base_tmp(const char *leaf, const char *tree_hex);
/*
 * Where a layer is renamed to be removed, out of its place in one step:
 * <layers_dir>/.removing-NAME.PID (what a kill leaves there is gc's).
 */
int at_paths_layer_removing(const struct at_paths *p, const char *name, char *buf, size_t size,
			    struct at_error *err);
/* A base's files/ and index; a layer's upper/ (the task's files over the base). */
int at_paths_base_files(const struct at_paths *p, const char *tree_hex, char *buf, size_t size,
			struct at_error *err);
int at_paths_base_index(const struct at_paths *p, const char *tree_hex, char *buf, size_t size,
			struct at_error *err);
int at_paths_layer_upper(const struct at_paths *p, const char *name, char *buf, size_t size,
			 struct at_error *err);

/* The repository's cache of /etc's listings (sandbox.h): <cache_dir>/etc.listings. */
int at_paths_etc_listings(const struct at_paths *p, char *buf, size_t size, struct at_error *err);

#endif
