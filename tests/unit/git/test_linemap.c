/*
 * Unit tests for git/linemap.c: a review comment's lines carried from the
 * version of a file it was made on to the current one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include <git2.h>

#include "git/linemap.h"

#define OLD "a\nb\nc\nd\ne\n"

/* Map lines first..last of OLD into new: the new first line, or 0 when outdated. */
static size_t map(const char *new, size_t first, size_t last)
{
	struct at_error err = AT_ERROR_INIT;
	size_t out = 99;
	bool outdated = true;

	assert_int_equal(at_linemap(OLD, strlen(OLD), new, strlen(new), first, last, &out,
				    &outdated, &err), 0);
	assert_int_equal(outdated, out == 0);
	return out;
}

static void test_linemap__counts_lines_with_and_without_a_last_newline(void **state)
{
	(void)state;
	assert_int_equal(at_line_count("", 0), 0);
	assert_int_equal(at_line_count("a", 1), 1);
	assert_int_equal(at_line_count("a\n", 2), 1);
	assert_int_equal(at_line_count("a\nb", 3), 2);
	assert_int_equal(at_line_count("\n\n", 2), 2);
}

static void test_linemap__unchanged_file_keeps_the_line(void **state)
{
	(void)state;
	assert_int_equal(map(OLD, 3, 3), 3);
	assert_int_equal(map(OLD, 1, 5), 1);
}

static void test_linemap__lines_inserted_above_move_it_down(void **state)
{
	(void)state;
	assert_int_equal(map("x\ny\na\nb\nc\nd\ne\n", 3, 3), 5);
	assert_int_equal(map("a\nx\nb\nc\nd\ne\n", 3, 4), 4);
	/* inserted right after it, or below: it stays */
	assert_int_equal(map("a\nb\nc\nx\nd\ne\n", 3, 3), 3);
	assert_int_equal(map("a\nb\nc\nd\ne\nx\n", 3, 3), 3);
}

static void test_linemap__lines_removed_above_move_it_up(void **state)
{
	(void)state;
	assert_int_equal(map("c\nd\ne\n", 3, 3), 1);
	assert_int_equal(map("a\nc\nd\ne\n", 4, 5), 3);
}

static void test_linemap__its_line_changed_or_gone_is_outdated(void **state)
{
	(void)state;
	assert_int_equal(map("a\nb\nC\nd\ne\n", 3, 3), 0);
	assert_int_equal(map("a\nb\nd\ne\n", 3, 3), 0);
	assert_int_equal(map("a\nb\nC\nd\ne\n", 2, 4), 0);
	/* a line inserted between the lines of a range splits it */
	assert_int_equal(map("a\nb\nx\nc\nd\ne\n", 2, 3), 0);
	assert_int_equal(map("", 1, 1), 0);
}

static void test_linemap__a_range_outside_the_file_is_refused(void **state)
{
	struct at_error err = AT_ERROR_INIT;
	size_t out = 7;
	bool outdated = false;

	(void)state;
	assert_int_equal(at_linemap(OLD, strlen(OLD), OLD, strlen(OLD), 6, 6, &out, &outdated,
				    &err), AT_EUSAGE);
	assert_int_equal(at_linemap(OLD, strlen(OLD), OLD, strlen(OLD), 0, 1, &out, &outdated,
				    &err), AT_EUSAGE);
	assert_int_equal(at_linemap(OLD, strlen(OLD), OLD, strlen(OLD), 3, 2, &out, &outdated,
				    &err), AT_EUSAGE);
	assert_int_equal(out, 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_linemap__counts_lines_with_and_without_a_last_newline),
		cmocka_unit_test(test_linemap__unchanged_file_keeps_the_line),
		cmocka_unit_test(test_linemap__lines_inserted_above_move_it_down),
		cmocka_unit_test(test_linemap__lines_removed_above_move_it_up),
		cmocka_unit_test(test_linemap__its_line_changed_or_gone_is_outdated),
		cmocka_unit_test(test_linemap__a_range_outside_the_file_is_refused),
	};
	int rc;

	git_libgit2_init();
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	git_libgit2_shutdown();
	return rc;
}
