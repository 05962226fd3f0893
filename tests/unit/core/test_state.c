/* Unit tests for core/state.c: task records on disk. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/fs.h"
#include "core/json.h"
#include "core/state.h"
#include "core/util.h"

#include "tests/unit/fixture.h"

static void make_task(const struct fixture *f, const char *name, struct at_task *t)
{
	struct at_error err = AT_ERROR_INIT;

	assert_int_equal(at_task_init(t, &f->paths, name, &err), 0);
	snprintf(t->base_branch, sizeof(t->base_branch), "refs/heads/main");
	memset(t->base_commit, 'a', AT_OID_HEXSZ);
	t->base_commit[AT_OID_HEXSZ] = '\0';
	t->created = 1700000000;
	t->phase = AT_TASK_READY;
}

static void save_task(const struct fixture *f, const char *name)
{
	struct at_error err = AT_ERROR_INIT;
	struct at_task t;

	make_task(f, name, &t);
	assert_int_equal(at_state_save(&f->paths, &t, &err), 0);
}

static void record_path(const struct fixture *f, const char *name, char *buf, size_t size)
{
	assert_int_equal(at_fmt(buf, size, "%s/%s.json", f->paths.tasks_dir, name), 0);
}

static void write_record(const struct fixture *f, const char *name, const char *text)
{
	char path[PATH_MAX];

	record_path(f, name, path, sizeof(path));
	assert_int_equal(at_write_atomic(path, text, strlen(text), 0600), 0);
}

/* Load `name`, expecting AT_ECORRUPT with a message naming its file and holding `what`. */
static void assert_load_corrupt(const struct fixture *f, const char *name, const char *what)
{
	struct at_error err = AT_ERROR_INIT;
	char path[PATH_MAX];
	struct at_task t;

	record_path(f, name, path, sizeof(path));
	memset(&t, 0x5a, sizeof(t));
	assert_int_equal(at_state_load(&f->paths, name, &t, &err), AT_ECORRUPT);
	assert_non_null(strstr(err.msg, path));
	if (what)
		assert_non_null(strstr(err.msg, what));
	/* *out is untouched on failure */
	assert_int_equal(((unsigned char *)&t)[0], 0x5a);
}

static void assert_tasks_equal(const struct at_task *a, const struct at_task *b)
{
	assert_string_equal(a->name, b->name);
	assert_string_equal(a->branch, b->branch);
	assert_string_equal(a->base_branch, b->base_branch);
	assert_string_equal(a->base_commit, b->base_commit);
	assert_string_equal(a->worktree_name, b->worktree_name);
	assert_string_equal(a->path, b->path);
	assert_string_equal(a->admin_dir, b->admin_dir);
	assert_true(a->created == b->created);
	assert_int_equal(a->phase, b->phase);
}

static void test_state__json_round_trip_keeps_every_field(void **state)
{
	struct fixture *f = *state;
	struct at_error err = AT_ERROR_INIT;
	struct at_task t, back;
	char *text;

	make_task(f, "round.trip", &t);
	snprintf(t.base_branch, sizeof(t.base_branch), "refs/heads/feature/\xc3\xa9 \"quoted\"");
	t.phase = AT_TASK_CREATING;
	text = at_task_to_json(&t);
	assert_non_null(text);
	assert_int_equal(at_task_from_json(text, "mem", &back, &err), 0);
	free(text);
	assert_tasks_equal(&t, &back);
}

static void test_state__save_then_load_round_trips(void **state)
{
	struct fixture *f = *state;
	struct at_error err = AT_ERROR_INIT;
	struct at_task t, back;

	make_task(f, "fix-bug", &t);
	assert_int_equal(at_state_save(&f->paths, &t, &err), 0);
	assert_int_equal(at_state_load(&f->paths, "fix-bug", &back, &err), 0);
	assert_tasks_equal(&t, &back);
	assert_string_equal(back.branch, "refs/heads/agenttask/fix-bug");
}

static void test_state__save_writes_a_private_file_and_no_temporary(void **state)
{
	struct fixture *f = *state;
	char path[PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *d;
	int n = 0;

	save_task(f, "one");
	save_task(f, "one");
	record_path(f, "one", path, sizeof(path));
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	d = opendir(f->paths.tasks_dir);
	assert_non_null(d);
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	assert_int_equal(n, 1);
}

static void test_state__load_of_a_missing_record_is_not_found(void **state)
{
	struct fixture *f = *state;
	struct at_error err = AT_ERROR_INIT;
	struct at_task t;

	assert_int_equal(at_state_load(&f->paths, "nope", &t, &err), AT_ENOTFOUND);
	assert_non_null(strstr(err.msg, "'nope'"));
}

static void test_state__load_refuses_an_invalid_name(void **state)
{
	struct fixture *f = *state;
	struct at_error err = AT_ERROR_INIT;
	struct at_task t;

	assert_int_equal(at_state_load(&f->paths, "../tasks/x", &t, &err), AT_EUSAGE);
}

static void test_state__garbage_is_corrupt_naming_the_file(void **state)
{
	struct fixture *f = *state;

	write_record(f, "bad", "this is not json");
	assert_load_corrupt(f, "bad", "cannot parse");
}

static void test_state__truncated_record_is_corrupt_naming_the_file(void **state)
{
	struct fixture *f = *state;
	char path[PATH_MAX];
	size_t len, cut;
	char *text;
	FILE *fp;

	save_task(f, "cut");
	record_path(f, "cut", path, sizeof(path));
	text = at_read_file(path, 65536, &len);
	assert_non_null(text);
	/* Every proper prefix of the record is refused, none crashes. */
	for (cut = 0; cut < len; cut++) {
		if (cut + 1 == len && text[cut] == '\n')
			continue;
		assert_int_equal(truncate(path, (off_t)cut), 0);
		assert_load_corrupt(f, "cut", NULL);
		fp = fopen(path, "w");
		assert_non_null(fp);
		assert_int_equal(fwrite(text, 1, len, fp), len);
		assert_int_equal(fclose(fp), 0);
	}
	free(text);
}

static void test_state__empty_record_is_corrupt(void **state)
{
	struct fixture *f = *state;

	write_record(f, "empty", "");
	assert_load_corrupt(f, "empty", NULL);
}

static void test_state__trailing_garbage_is_corrupt(void **state)
{
	struct fixture *f = *state;
	struct at_task t;
	char *text;
	char *both;

	make_task(f, "trail", &t);
	text = at_task_to_json(&t);
	assert_non_null(text);
	both = malloc(strlen(text) + 3);
	assert_non_null(both);
	sprintf(both, "%s{}", text);
	write_record(f, "trail", both);
	free(both);
	free(text);
	assert_load_corrupt(f, "trail", NULL);
}

static void test_state__non_object_is_corrupt(void **state)
{
	struct fixture *f = *state;

	write_record(f, "arr", "[1, 2, 3]");
	assert_load_corrupt(f, "arr", "not an object");
}

/* Write the record of `name` with `key` removed (or replaced by `value` when not NULL). */
static void write_edited(const struct fixture *f, const char *name, const char *key,
			 const char *value)
{
	struct at_error err = AT_ERROR_INIT;
	at_json *o = NULL, *m;
	struct at_task t;
	char *text;

	make_task(f, name, &t);
	text = at_task_to_json(&t);
	assert_int_equal(at_json_parse(&o, text, "mem", &err), 0);
	free(text);
	text = NULL;
	for (m = at_json_child(o); m; m = at_json_next(m))
		if (strcmp(at_json_key(m), key) == 0)
			break;
	assert_non_null(m);
	/* Rebuild without the key, then add the replacement. */
	{
		at_json *n = at_json_object();
		at_json *c;

		for (c = at_json_child(o); c; c = at_json_next(c)) {
			if (c == m)
				continue;
			if (at_json_is_string(c))
				at_json_add_string(n, at_json_key(c), at_json_string_value(c));
			else
				at_json_add_number(n, at_json_key(c), at_json_number_value(c));
		}
		at_json_free(o);
		o = n;
	}
	if (value) {
		at_json *v = NULL;
		assert_int_equal(at_json_parse(&v, value, "value", &err), 0);
		assert_int_equal(at_json_add(o, key, v), 0);
	}
	text = at_json_print(o, false);
	at_json_free(o);
	write_record(f, name, text);
	free(text);
}

static void test_state__each_missing_field_is_corrupt_naming_it(void **state)
{
	static const char *const keys[] = {
		"name", "branch", "base_branch", "base_commit", "worktree_name",
		"path", "admin_dir", "phase", "created",
	};
	struct fixture *f = *state;
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		write_edited(f, "miss", keys[i], NULL);
		assert_load_corrupt(f, "miss", keys[i]);
	}
}

static void test_state__fields_of_the_wrong_type_are_corrupt(void **state)
{
	struct fixture *f = *state;

	write_edited(f, "typed", "name", "42");
	assert_load_corrupt(f, "typed", "'name'");
	write_edited(f, "typed", "created", "\"yesterday\"");
	assert_load_corrupt(f, "typed", "'created'");
	write_edited(f, "typed", "phase", "\"exploded\"");
	assert_load_corrupt(f, "typed", "'phase'");
	write_edited(f, "typed", "base_branch", "null");
	assert_load_corrupt(f, "typed", "'base_branch'");
}

static void test_state__out_of_range_creation_time_is_corrupt(void **state)
{
	struct fixture *f = *state;

	write_edited(f, "when", "created", "1e300");
	assert_load_corrupt(f, "when", "'created'");
	write_edited(f, "when", "created", "-1");
	assert_load_corrupt(f, "when", "'created'");
}

static void test_state__overlong_field_is_corrupt(void **state)
{
	struct fixture *f = *state;
	char value[400];

	value[0] = '"';
	memset(value + 1, 'b', 300);
	strcpy(value + 301, "\"");
	write_edited(f, "long", "base_branch", value);
	assert_load_corrupt(f, "long", "too long");
}

static void test_state__record_naming_another_task_is_corrupt(void **state)
{
	struct fixture *f = *state;

	write_edited(f, "mine", "name", "\"other\"");
	assert_load_corrupt(f, "mine", "'other'");
}

static void test_state__branch_and_paths_come_from_the_name_not_the_file(void **state)
{
	struct fixture *f = *state;
	struct at_error err = AT_ERROR_INIT;
	struct at_task t, expect;

	/* A record edited to point at the user's branch and home must not make gc remove them. */
	make_task(f, "tamper", &expect);
	write_edited(f, "tamper", "branch", "\"refs/heads/main\"");
	assert_int_equal(at_state_load(&f->paths, "tamper", &t, &err), 0);
	assert_string_equal(t.branch, "refs/heads/agenttask/tamper");
	write_edited(f, "tamper", "admin_dir", "\"/etc\"");
	assert_int_equal(at_state_load(&f->paths, "tamper", &t, &err), 0);
	assert_string_equal(t.admin_dir, expect.admin_dir);
	assert_string_equal(t.base_commit, expect.base_commit);
}

/*
 * The attacker edits a task record's worktree path to the user's home (or
 * anything else of theirs), so that discard or gc removes it, or run binds
 * it read-write: such a record is corrupt, and nothing uses that path.
 */
static void test_state__worktree_path_not_registered_by_git_is_corrupt(void **state)
{
	struct fixture *f = *state;

	write_edited(f, "tamper", "path", "\"/home\"");
	assert_load_corrupt(f, "tamper", "not a worktree git registered");
	write_edited(f, "tamper", "path", "\"/home/tamper\"");
	assert_load_corrupt(f, "tamper", "not a worktree git registered");
}

/* Writes <common>/worktrees/agenttask-NAME/gitdir naming path/.git, as git does. */
static void register_worktree(const struct fixture *f, const char *name, const char *path)
{
	struct at_error err = AT_ERROR_INIT;
	char dir[PATH_MAX], file[PATH_MAX + 8], text[PATH_MAX + 8];

	assert_int_equal(at_fmt(dir, sizeof(dir), "%s/worktrees/agenttask-%s", f->root, name), 0);
	assert_int_equal(at_mkdirs(dir, 0755, &err), 0);
	assert_int_equal(at_fmt(file, sizeof(file), "%s/gitdir", dir), 0);
	assert_int_equal(at_fmt(text, sizeof(text), "%s/.git\n", path), 0);
	assert_int_equal(at_write_atomic(file, text, strlen(text), 0644), 0);
}

/* A worktree outside the git dir is the record's: where git registered it, or the default place. */
static void test_state__worktree_path_is_the_records_where_git_registered_it(void **state)
{
	struct fixture *f = *state;
	struct at_error err = AT_ERROR_INIT;
	char value[PATH_MAX + 8], home[PATH_MAX];
	struct at_task t;

	register_worktree(f, "reg", "/srv/wt/reg");
	write_edited(f, "reg", "path", "\"/srv/wt/reg\"");
	assert_int_equal(at_state_load(&f->paths, "reg", &t, &err), 0);
	assert_string_equal(t.path, "/srv/wt/reg");
	/* Edited to elsewhere: git's registration wins. */
	write_edited(f, "reg", "path", "\"/home\"");
	assert_int_equal(at_state_load(&f->paths, "reg", &t, &err), 0);
	assert_string_equal(t.path, "/srv/wt/reg");

	/*
	 * Not registered yet (a task half-made), in this repository's
	 * <repo>-<id> directory under any base (the configured base may have
	 * changed since): trusted. Another repository's is not.
	 */
	assert_int_equal(at_fmt(home, sizeof(home), "/srv/any/%s", f->paths.worktree_leaf), 0);
	assert_int_equal(at_fmt(value, sizeof(value), "\"%s/half\"", home), 0);
	write_edited(f, "half", "path", value);
	assert_int_equal(at_state_load(&f->paths, "half", &t, &err), 0);
	assert_string_equal(t.path + strlen(home), "/half");
	write_edited(f, "half", "path", "\"/srv/any/other-0123456789ab/half\"");
	assert_load_corrupt(f, "half", "not a worktree git registered");
	write_edited(f, "half", "path", "\"/srv/any/../half\"");
	assert_load_corrupt(f, "half", "not a worktree git registered");
}

/* A repository moved with its worktrees inside: an old-place record follows it. */
static void test_state__old_place_record_follows_a_moved_repository(void **state)
{
	struct fixture *f = *state;
	struct at_error err = AT_ERROR_INIT;
	struct at_task t;
	char expect[PATH_MAX];

	write_edited(f, "moved", "path", "\"/old/repo/.git/agenttask/worktrees/moved\"");
	assert_int_equal(at_state_load(&f->paths, "moved", &t, &err), 0);
	assert_int_equal(at_fmt(expect, sizeof(expect), "%s/moved", f->paths.worktrees_dir), 0);
	assert_string_equal(t.path, expect);
}

static void test_state__list_keeps_the_others_when_one_record_is_corrupt(void **state)
{
	struct fixture *f = *state;
	struct at_error err = AT_ERROR_INIT;
	struct at_task_list l;
	char path[PATH_MAX];

	save_task(f, "zeta");
	save_task(f, "alpha");
	save_task(f, "mid");
	write_record(f, "broken", "{\"name\": \"broken\", \"bra");
	assert_int_equal(at_state_list(&f->paths, &l, &err), 0);
	assert_int_equal(l.count, 3);
	assert_string_equal(l.tasks[0].name, "alpha");
	assert_string_equal(l.tasks[1].name, "mid");
	assert_string_equal(l.tasks[2].name, "zeta");
	assert_int_equal(l.nproblems, 1);
	assert_string_equal(l.problems[0].name, "broken");
	assert_int_equal(l.problems[0].err.code, AT_ECORRUPT);
	record_path(f, "broken", path, sizeof(path));
	assert_non_null(strstr(l.problems[0].err.msg, path));
	at_task_list_release(&l);
	assert_null(l.tasks);
	assert_int_equal(l.count, 0);
}

static void test_state__list_skips_temporary_and_foreign_files(void **state)
{
	struct fixture *f = *state;
	struct at_error err = AT_ERROR_INIT;
	struct at_task_list l;
	char path[PATH_MAX];

	save_task(f, "real");
	assert_int_equal(at_fmt(path, sizeof(path), "%s/real.json.tmp.123", f->paths.tasks_dir), 0);
	assert_int_equal(at_write_atomic(path, "{", 1, 0600), 0);
	assert_int_equal(at_fmt(path, sizeof(path), "%s/notes.txt", f->paths.tasks_dir), 0);
	assert_int_equal(at_write_atomic(path, "x", 1, 0600), 0);
	assert_int_equal(at_fmt(path, sizeof(path), "%s/.json", f->paths.tasks_dir), 0);
	assert_int_equal(at_write_atomic(path, "x", 1, 0600), 0);
	assert_int_equal(at_fmt(path, sizeof(path), "%s/-bad.json", f->paths.tasks_dir), 0);
	assert_int_equal(at_write_atomic(path, "x", 1, 0600), 0);
	assert_int_equal(at_state_list(&f->paths, &l, &err), 0);
	assert_int_equal(l.count, 1);
	assert_int_equal(l.nproblems, 0);
	at_task_list_release(&l);
}

static void test_state__list_without_a_tasks_directory_is_empty(void **state)
{
	struct fixture *f = *state;
	struct at_error err = AT_ERROR_INIT;
	struct at_task_list l;

	assert_int_equal(rmdir(f->paths.tasks_dir), 0);
	assert_int_equal(at_state_list(&f->paths, &l, &err), 0);
	assert_int_equal(l.count, 0);
	assert_int_equal(l.nproblems, 0);
	at_task_list_release(&l);
	at_task_list_release(NULL);
}

static void test_state__remove_deletes_the_record_and_tolerates_a_missing_one(void **state)
{
	struct fixture *f = *state;
	struct at_error err = AT_ERROR_INIT;
	struct at_task t;

	save_task(f, "gone");
	assert_int_equal(at_state_remove(&f->paths, "gone", &err), 0);
	assert_int_equal(at_state_load(&f->paths, "gone", &t, &err), AT_ENOTFOUND);
	at_error_clear(&err);
	assert_int_equal(at_state_remove(&f->paths, "gone", &err), 0);
}

static void test_state__find_by_dir_finds_the_task_containing_it(void **state)
{
	struct fixture *f = *state;
	struct at_error err = AT_ERROR_INIT;
	struct at_task t, t10;
	char sub[PATH_MAX];

	make_task(f, "t1", &t);
	make_task(f, "t10", &t10);
	assert_int_equal(at_state_save(&f->paths, &t, &err), 0);
	assert_int_equal(at_state_save(&f->paths, &t10, &err), 0);
	assert_int_equal(at_fmt(sub, sizeof(sub), "%s/src/deep", t10.path), 0);
	assert_int_equal(at_mkdirs(sub, 0755, &err), 0);
	assert_int_equal(at_mkdirs(t.path, 0755, &err), 0);

	assert_int_equal(at_state_find_by_dir(&f->paths, sub, &t, &err), 0);
	assert_string_equal(t.name, "t10");
	assert_int_equal(at_state_find_by_dir(&f->paths, t10.path, &t, &err), 0);
	assert_string_equal(t.name, "t10");
	assert_int_equal(at_state_find_by_dir(&f->paths, f->root, &t, &err), AT_ENOTASK);
	assert_non_null(strstr(err.msg, f->root));
}

/* Every test gets a fresh temporary directory. */
#define TEST(f) cmocka_unit_test_setup_teardown(f, setup_ensured, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(test_state__json_round_trip_keeps_every_field),
		TEST(test_state__save_then_load_round_trips),
		TEST(test_state__save_writes_a_private_file_and_no_temporary),
		TEST(test_state__load_of_a_missing_record_is_not_found),
		TEST(test_state__load_refuses_an_invalid_name),
		TEST(test_state__garbage_is_corrupt_naming_the_file),
		TEST(test_state__truncated_record_is_corrupt_naming_the_file),
		TEST(test_state__empty_record_is_corrupt),
		TEST(test_state__trailing_garbage_is_corrupt),
		TEST(test_state__non_object_is_corrupt),
		TEST(test_state__each_missing_field_is_corrupt_naming_it),
		TEST(test_state__fields_of_the_wrong_type_are_corrupt),
		TEST(test_state__out_of_range_creation_time_is_corrupt),
		TEST(test_state__overlong_field_is_corrupt),
		TEST(test_state__record_naming_another_task_is_corrupt),
		TEST(test_state__branch_and_paths_come_from_the_name_not_the_file),
		TEST(test_state__worktree_path_not_registered_by_git_is_corrupt),
		TEST(test_state__worktree_path_is_the_records_where_git_registered_it),
		TEST(test_state__old_place_record_follows_a_moved_repository),
		TEST(test_state__list_keeps_the_others_when_one_record_is_corrupt),
		TEST(test_state__list_skips_temporary_and_foreign_files),
		TEST(test_state__list_without_a_tasks_directory_is_empty),
		TEST(test_state__remove_deletes_the_record_and_tolerates_a_missing_one),
		TEST(test_state__find_by_dir_finds_the_task_containing_it),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
