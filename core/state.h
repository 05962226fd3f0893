/*
 * state.h - task records on disk.
 *
 * One JSON file per task, <state>/tasks/NAME.json, replaced atomically (see
 * at_write_atomic). Keeping tasks in separate files means a corrupt record
 * spoils only its own task: the others are still listed and usable.
 *
 * Callers that change records hold the repository lock (lock.h).
 */
#ifndef AT_CORE_STATE_H
#define AT_CORE_STATE_H

#include <stddef.h>

#include "core/task.h"

int at_state_save(const struct at_paths *p, const struct at_task *t, struct at_error *err);

/*
 * The same for the CREATING record of a task being made, with its
 * directory not synced (at_write_synced): the READY record that ends every
 * creation (at_state_save, the same file) syncs it before success is told.
 * A kill midway finds the CREATING record (the page cache outlives the
 * process) and rolls the task back; only a crash of the machine before
 * the READY record can lose the mark (ext4's journal, in order, keeps it
 * whenever it keeps what was made after it).
 */
int at_state_save_creating(const struct at_paths *p, const struct at_task *t,
			   struct at_error *err);

/*
 * Load the record of task `name` into *out (written only on success).
 * AT_ENOTFOUND when there is none; AT_ECORRUPT, naming the file, when it
 * cannot be parsed or lacks a field.
 */
int at_state_load(const struct at_paths *p, const char *name, struct at_task *out,
		  struct at_error *err);

/* Remove the record; a missing record is not an error. */
int at_state_remove(const struct at_paths *p, const char *name, struct at_error *err);

struct at_state_problem {
	char name[AT_NAME_MAX + 1];
	struct at_error err;
};

struct at_task_list {
	struct at_task *tasks;             /* sorted by name */
	size_t count, cap;
	struct at_state_problem *problems; /* records that could not be read */
	size_t nproblems, problems_cap;
};

/* Every task record; unreadable ones go to problems, not to the error. */
int at_state_list(const struct at_paths *p, struct at_task_list *out, struct at_error *err);
void at_task_list_release(struct at_task_list *l);

/*
 * The task whose worktree contains dir (a real path), or AT_ENOTASK.
 * Used where NAME is optional.
 */
int at_state_find_by_dir(const struct at_paths *p, const char *dir, struct at_task *out,
			 struct at_error *err);

/* Record <-> JSON text; exposed for the unit tests. */
char *at_task_to_json(const struct at_task *t);
int at_task_from_json(const char *text, const char *what, struct at_task *out,
		      struct at_error *err);

#endif
