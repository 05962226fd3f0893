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
	char logs_dir[PATH_MAX];      /* <state>/logs: one NAME.jsonl per task */
	char lock_file[PATH_MAX];     /* <state>/lock, flock'd by mutating commands */
};

/* Fill *p for a repository whose git common dir is common_dir (absolute). */
int at_paths_init(struct at_paths *p, const char *common_dir, struct at_error *err);

/* Create the state directories (mode 0700) when missing. */
int at_paths_ensure(const struct at_paths *p, struct at_error *err);

/* Set where new tasks' worktrees go (absolute; "" keeps the old place). */
int at_paths_set_worktree_home(struct at_paths *p, const char *dir, struct at_error *err);

/* Create worktree_home and its missing parents (each mode 0700). */
int at_paths_ensure_worktree_home(const struct at_paths *p, struct at_error *err);

/* The task's directory of cache overlays: <caches_dir>/NAME. */
int at_task_caches(const struct at_paths *p, const char *name, char *buf, size_t size,
		   struct at_error *err);

/* The task's HOME directory: <homes_dir>/NAME. */
int at_task_home(const struct at_paths *p, const char *name, char *buf, size_t size,
		 struct at_error *err);

#endif
