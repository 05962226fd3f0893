/*
 * fuzz_task.c - task records (core/state.c, core/task.c).
 *
 * A record (<state>/tasks/NAME.json) is written by agenttask alone, in the
 * state directory the sandbox hides; but a damaged or hand-edited one must
 * spoil only its own task, with one clear error, and must never make
 * discard or gc remove something else. So whatever the file says:
 *   - a record that parses has a valid name, a known phase and a sane time,
 *     and prints back to JSON that parses to the same record;
 *   - loaded from the file, its branch and directories are derived from its
 *     name, never taken from the file;
 *   - listing the directory reports it as a task or as a problem, never
 *     neither and never fails.
 */
#include "tests/fuzz/fuzz.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/name.h"
#include "core/state.h"

static bool same_record(const struct at_task *a, const struct at_task *b)
{
	return strcmp(a->name, b->name) == 0 && strcmp(a->branch, b->branch) == 0 &&
	       strcmp(a->base_branch, b->base_branch) == 0 &&
	       strcmp(a->base_commit, b->base_commit) == 0 &&
	       strcmp(a->worktree_name, b->worktree_name) == 0 && strcmp(a->path, b->path) == 0 &&
	       strcmp(a->admin_dir, b->admin_dir) == 0 && a->created == b->created &&
	       a->phase == b->phase;
}

static void check_round_trip(const struct at_task *t)
{
	struct at_error err = AT_ERROR_INIT;
	struct at_task again;
	char *text = at_task_to_json(t);

	AT_FUZZ_CHECK(text != NULL);
	AT_FUZZ_CHECK(at_task_from_json(text, "again", &again, &err) == 0);
	AT_FUZZ_CHECK(same_record(t, &again));
	free(text);
}

/* Loaded from its file: the same record, with everything a removal uses derived. */
static void check_load(const uint8_t *data, size_t size, const struct at_task *rec)
{
	struct at_error err = AT_ERROR_INIT;
	struct at_task t, derived;
	char file[PATH_MAX];
	int rc;

	snprintf(file, sizeof(file), "%s/%s.json", at_fuzz_state()->tasks_dir, rec->name);
	at_fuzz_write_file(file, data, size);
	rc = at_state_load(at_fuzz_state(), rec->name, &t, &err);
	AT_FUZZ_CHECK(rc == 0);
	AT_FUZZ_CHECK(at_task_init(&derived, at_fuzz_state(), rec->name, &err) == 0);
	AT_FUZZ_CHECK(strcmp(t.path, derived.path) == 0 && strcmp(t.branch, derived.branch) == 0 &&
		      strcmp(t.admin_dir, derived.admin_dir) == 0 &&
		      strcmp(t.worktree_name, derived.worktree_name) == 0);
	AT_FUZZ_CHECK(strcmp(t.base_branch, rec->base_branch) == 0 &&
		      strcmp(t.base_commit, rec->base_commit) == 0 && t.created == rec->created &&
		      t.phase == rec->phase);
	remove(file);
}

/* Under a fixed name: a task or a problem, whatever the bytes. */
static void check_list(const uint8_t *data, size_t size)
{
	struct at_error err = AT_ERROR_INIT;
	struct at_task_list l;
	char file[PATH_MAX];

	snprintf(file, sizeof(file), "%s/fuzz.json", at_fuzz_state()->tasks_dir);
	at_fuzz_write_file(file, data, size);
	AT_FUZZ_CHECK(at_state_list(at_fuzz_state(), &l, &err) == 0);
	AT_FUZZ_CHECK(l.count + l.nproblems == 1);
	if (l.nproblems)
		at_fuzz_check_error(l.problems[0].err.code, &l.problems[0].err);
	else
		AT_FUZZ_CHECK(strcmp(l.tasks[0].name, "fuzz") == 0);
	at_task_list_release(&l);
	remove(file);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct at_error err = AT_ERROR_INIT;
	char *text = at_fuzz_strndup(data, size);
	struct at_task t;
	int rc;

	/* A record is at most 64 KiB (STATE_MAX_BYTES); the file reader refuses more. */
	if (!text || size > 64 * 1024) {
		free(text);
		return 0;
	}
	rc = at_task_from_json(text, "fuzz", &t, &err);
	if (rc < 0) {
		at_fuzz_check_error(rc, &err);
	} else {
		AT_FUZZ_CHECK(at_name_valid(t.name));
		AT_FUZZ_CHECK(t.phase == AT_TASK_READY || t.phase == AT_TASK_CREATING);
		AT_FUZZ_CHECK(t.created >= 0 && t.created < 1000000000000000LL);
		check_round_trip(&t);
		check_load(data, size, &t);
	}
	check_list(data, size);
	free(text);
	return 0;
}
