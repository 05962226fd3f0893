/*
 * Unit tests for core/paths.c, the one owner of agenttask's paths: each
 * builder gives the place docs/architecture.md documents, as a table; a
 * path that does not fit is refused, never cut.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/paths.h"

typedef int (*builder)(const struct at_paths *, const char *, char *, size_t, struct at_error *);

static const struct {
	const char *what;
	builder fn;
	const char *want;   /* below the common dir /r/.git */
} parts[] = {
	{ "record", at_paths_record, "agenttask/tasks/t.json" },
	{ "home", at_paths_home, "agenttask/homes/t" },
	{ "caches", at_paths_caches, "agenttask/caches/t" },
	{ "git view", at_paths_view, "agenttask/git/t" },
	{ "scan cache", at_paths_scan, "agenttask/cache/t.scan" },
	{ "home size", at_paths_home_size, "agenttask/cache/t.home" },
	{ "log", at_paths_log, "agenttask/logs/t.jsonl" },
	{ "old worktree", at_paths_old_worktree, "agenttask/worktrees/t" },
	{ "admin dir", at_paths_admin, "worktrees/t" },
};

static void test_paths__each_part_of_a_task_has_its_documented_place(void **state)
{
	struct at_error err = AT_ERROR_INIT;
	char buf[PATH_MAX], want[PATH_MAX];
	struct at_paths p;
	size_t i;

	(void)state;
	assert_int_equal(at_paths_init(&p, "/r/.git/", &err), 0);
	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		snprintf(want, sizeof(want), "/r/.git/%s", parts[i].want);
		assert_int_equal(parts[i].fn(&p, "t", buf, sizeof(buf), &err), 0);
		if (strcmp(buf, want) != 0)
			fail_msg("%s: '%s', not '%s'", parts[i].what, buf, want);
	}
	assert_int_equal(at_paths_etc_listings(&p, buf, sizeof(buf), &err), 0);
	assert_string_equal(buf, "/r/.git/agenttask/cache/etc.listings");
	assert_int_equal(at_paths_worktree(&p, "t", buf, sizeof(buf), &err), 0);
	assert_string_equal(buf, "/r/.git/agenttask/worktrees/t");
	assert_int_equal(at_paths_set_worktree_home(&p, "/data/r-1", &err), 0);
	assert_int_equal(at_paths_worktree(&p, "t", buf, sizeof(buf), &err), 0);
	assert_string_equal(buf, "/data/r-1/t");
	assert_int_equal(err.code, 0);
}

static void test_paths__a_part_that_does_not_fit_is_refused_not_cut(void **state)
{
	struct at_paths p;
	char small[16];   /* less than any of them: "/r/.git/worktrees/t" is 19 */
	size_t i;

	(void)state;
	assert_int_equal(at_paths_init(&p, "/r/.git", NULL), 0);
	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		struct at_error err = AT_ERROR_INIT;

		assert_int_equal(parts[i].fn(&p, "t", small, sizeof(small), &err), AT_ESYS);
		assert_int_equal(err.code, AT_ESYS);
		assert_non_null(strstr(err.msg, "path too long for task 't'"));
		/* err may be NULL: the code alone. */
		assert_int_equal(parts[i].fn(&p, "t", small, sizeof(small), NULL), AT_ESYS);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paths__each_part_of_a_task_has_its_documented_place),
		cmocka_unit_test(test_paths__a_part_that_does_not_fit_is_refused_not_cut),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
