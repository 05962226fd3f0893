/*
 * Unit tests for gitfmt/hunks.c: the hunks `accept -p` walks, split as
 * git's `s` splits them, edited as its `e` reads them, applied to the old
 * side. The hunks are `git diff`'s for the same files (git 2.39).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "gitfmt/hunks.h"

static const char ten[] = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";

static struct at_hunk hunk(const char *body, size_t old_start, size_t new_start)
{
	struct at_hunk h;

	assert_int_equal(at_hunk_parse(&h, body, strlen(body), old_start, new_start, 0), 0);
	return h;
}

static void check_apply(const char *old, const struct at_hunk *h, size_t n, const char *want)
{
	char *got = NULL;
	size_t len = 0, which = 99;

	assert_int_equal(at_hunks_apply(old, strlen(old), h, n, &got, &len, &which), 0);
	assert_int_equal(len, strlen(want));
	assert_memory_equal(got, want, len);
	free(got);
}

/* git diff -U1 of ten lines with 2 and 9 changed: two hunks; each alone, and both. */
static void test_hunks__one_of_two_applies_alone(void **state)
{
	struct at_hunk h[2];

	(void)state;
	h[0] = hunk(" 1\n-2\n+two\n 3\n", 1, 1);
	h[1] = hunk(" 8\n-9\n+nine\n 10\n", 8, 8);
	assert_int_equal(h[0].old_count, 3);
	assert_int_equal(h[0].new_count, 3);
	check_apply(ten, &h[1], 1, "1\n2\n3\n4\n5\n6\n7\n8\nnine\n10\n");
	check_apply(ten, &h[0], 1, "1\ntwo\n3\n4\n5\n6\n7\n8\n9\n10\n");
	check_apply(ten, h, 2, "1\ntwo\n3\n4\n5\n6\n7\n8\nnine\n10\n");
	at_hunk_release(&h[0]);
	at_hunk_release(&h[1]);
}

/*
 * git diff (-U3) of ten lines with 3 and 7 changed is one hunk; git's `s`
 * splits it in two at 4-6, which both parts keep as context.
 */
static void test_hunks__split_at_the_context_between_changes(void **state)
{
	struct at_hunk h = hunk(" 1\n 2\n-3\n+three\n 4\n 5\n 6\n-7\n+seven\n 8\n 9\n 10\n", 1, 1);
	struct at_hunk *parts;
	char hdr[64];
	size_t n;

	(void)state;
	assert_int_equal(at_hunk_split(&h, &parts, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(parts[0].body, " 1\n 2\n-3\n+three\n 4\n 5\n 6\n");
	assert_string_equal(parts[1].body, " 4\n 5\n 6\n-7\n+seven\n 8\n 9\n 10\n");
	at_hunk_header(&parts[0], hdr, sizeof(hdr));
	assert_string_equal(hdr, "@@ -1,6 +1,6 @@");
	at_hunk_header(&parts[1], hdr, sizeof(hdr));
	assert_string_equal(hdr, "@@ -4,7 +4,7 @@");   /* git add -p shows the same */
	check_apply(ten, &parts[1], 1, "1\n2\n3\n4\n5\n6\nseven\n8\n9\n10\n");
	check_apply(ten, &parts[0], 1, "1\n2\nthree\n4\n5\n6\n7\n8\n9\n10\n");
	/* Both parts: their shared context is written once. */
	check_apply(ten, parts, 2, "1\n2\nthree\n4\n5\n6\nseven\n8\n9\n10\n");
	at_hunk_release(&parts[0]);
	at_hunk_release(&parts[1]);
	free(parts);
	at_hunk_release(&h);
}

static void test_hunks__a_hunk_of_one_change_splits_into_itself(void **state)
{
	struct at_hunk h = hunk(" 1\n-2\n-3\n+x\n 4\n", 1, 1), *parts;
	size_t n;

	(void)state;
	assert_int_equal(at_hunk_split(&h, &parts, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(parts[0].body, h.body);
	at_hunk_release(&parts[0]);
	free(parts);
	at_hunk_release(&h);
}

/* "\ No newline at end of file" on either side. */
static void test_hunks__no_newline_at_end_of_file(void **state)
{
	struct at_hunk h = hunk(" a\n-b\n\\ No newline at end of file\n+b\n", 1, 1);
	struct at_hunk g = hunk(" a\n-b\n+c\n\\ No newline at end of file\n", 1, 1);

	(void)state;
	check_apply("a\nb", &h, 1, "a\nb\n");
	check_apply("a\nb\n", &g, 1, "a\nc");
	at_hunk_release(&h);
	at_hunk_release(&g);
}

/* The header says line 8, two lines were added above since: found where it matches, as git apply does. */
static void test_hunks__applies_at_an_offset(void **state)
{
	struct at_hunk h = hunk(" 8\n-9\n+nine\n 10\n", 8, 8);

	(void)state;
	check_apply("0\n0.5\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", &h, 1,
		    "0\n0.5\n1\n2\n3\n4\n5\n6\n7\n8\nnine\n10\n");
	at_hunk_release(&h);
}

/* git's `e`: '#' lines dropped, a '-' made context, a '+' line added; an empty line is context. */
static void test_hunks__an_edited_hunk_is_read_back(void **state)
{
	const char text[] = "# Manual hunk edit mode\n 1\n 2\n+two and a half\n\n-4\n# end";
	struct at_hunk h;

	(void)state;
	assert_int_equal(at_hunk_parse(&h, text, strlen(text), 1, 1, 1), 0);
	assert_string_equal(h.body, " 1\n 2\n+two and a half\n \n-4\n");
	assert_int_equal(h.old_count, 4);
	assert_int_equal(h.new_count, 4);
	check_apply("1\n2\n\n4\n5\n", &h, 1, "1\n2\ntwo and a half\n\n5\n");
	at_hunk_release(&h);
}

/* A hunk whose context is not in the file (an edit gone wrong): AT_HUNK_NOMATCH, naming it. */
static void test_hunks__a_hunk_that_no_longer_applies_is_refused(void **state)
{
	struct at_hunk h[2];
	char *out = NULL;
	size_t len, which = 99;

	(void)state;
	h[0] = hunk(" 1\n-2\n+two\n 3\n", 1, 1);
	h[1] = hunk(" 8\n-nine\n+9\n 10\n", 8, 8);
	assert_int_equal(at_hunks_apply(ten, strlen(ten), h, 2, &out, &len, &which), AT_HUNK_NOMATCH);
	assert_null(out);
	assert_int_equal(which, 1);
	at_hunk_release(&h[0]);
	at_hunk_release(&h[1]);
}

static void test_hunks__a_line_of_another_kind_is_malformed(void **state)
{
	struct at_hunk h;

	(void)state;
	assert_int_equal(at_hunk_parse(&h, " 1\n*2\n", 6, 1, 1, 0), AT_HUNK_MALFORMED);
	assert_int_equal(at_hunk_parse(&h, "\\ x\n", 4, 1, 1, 0), AT_HUNK_MALFORMED);
}

/* A new file's hunk (@@ -0,0 +1,2 @@) on an empty old side. */
static void test_hunks__a_new_file(void **state)
{
	struct at_hunk h = hunk("+a\n+b\n", 0, 1);

	(void)state;
	assert_int_equal(h.old_count, 0);
	check_apply("", &h, 1, "a\nb\n");
	at_hunk_release(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hunks__one_of_two_applies_alone),
		cmocka_unit_test(test_hunks__split_at_the_context_between_changes),
		cmocka_unit_test(test_hunks__a_hunk_of_one_change_splits_into_itself),
		cmocka_unit_test(test_hunks__no_newline_at_end_of_file),
		cmocka_unit_test(test_hunks__applies_at_an_offset),
		cmocka_unit_test(test_hunks__an_edited_hunk_is_read_back),
		cmocka_unit_test(test_hunks__a_hunk_that_no_longer_applies_is_refused),
		cmocka_unit_test(test_hunks__a_line_of_another_kind_is_malformed),
		cmocka_unit_test(test_hunks__a_new_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
