/*
 * Unit tests for gitfmt/diff_format.c: git's quoting, rename names, the --stat
 * layout and the similarity measure. The expected texts are what git 2.39
 * prints for the same input.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gitfmt/diff_format.h"

static void check_quote(const char *prefix, const char *path, bool high, const char *want)
{
	char *got = at_diff_quote(prefix, path, high);

	assert_non_null(got);
	assert_string_equal(got, want);
	assert_int_equal(at_diff_needs_quote(path, high) || at_diff_needs_quote(prefix, high),
			 strcmp(want, "") != 0 && want[0] == '"');
	free(got);
}

static void test_diff__quote_leaves_plain_names_and_spaces(void **state)
{
	(void)state;
	check_quote("a/", "src/main.c", true, "a/src/main.c");
	check_quote("b/", "my file.txt", true, "b/my file.txt");
	check_quote("", "-dash~", true, "-dash~");
}

static void test_diff__quote_escapes_like_git(void **state)
{
	(void)state;
	check_quote("a/", "na\xc3\xafve-\xc3\xbc.txt", true, "\"a/na\\303\\257ve-\\303\\274.txt\"");
	check_quote("", "tab\there", true, "\"tab\\there\"");
	check_quote("", "nl\nx", true, "\"nl\\nx\"");
	check_quote("", "q\"b\\s", true, "\"q\\\"b\\\\s\"");
	check_quote("", "bell\a\x01\x7f", true, "\"bell\\a\\001\\177\"");
}

static void test_diff__quote_keeps_utf8_when_quotepath_is_off(void **state)
{
	(void)state;
	check_quote("a/", "na\xc3\xafve", false, "a/na\xc3\xafve");
	check_quote("a/", "na\xc3\xafve\t", false, "\"a/na\xc3\xafve\\t\"");
}

static void check_rename(const char *from, const char *to, bool high, const char *want)
{
	char *got = at_diff_rename_name(from, to, high);

	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static void test_diff__rename_name_factors_common_directories(void **state)
{
	(void)state;
	check_rename("old", "new", true, "old => new");
	check_rename("src/old.c", "src/new.c", true, "src/{old.c => new.c}");
	check_rename("a/b/c.txt", "a/d/c.txt", true, "a/{b => d}/c.txt");
	check_rename("x/f", "y/f", true, "{x => y}/f");
	check_rename("dir/f", "dir/sub/f", true, "dir/{ => sub}/f");
	check_rename("dir/sub/f", "dir/f", true, "dir/{sub => }/f");
	check_rename("ab/f", "abc/f", true, "{ab => abc}/f");
}

static void test_diff__rename_name_quotes_each_side(void **state)
{
	(void)state;
	check_rename("d/\xc3\xaf", "d/x", true, "\"d/\\303\\257\" => d/x");
	check_rename("d/\xc3\xaf", "d/x", false, "d/{\xc3\xaf => x}");
}

static void test_diff__width_counts_code_points(void **state)
{
	(void)state;
	assert_int_equal(at_diff_width("abc"), 3);
	assert_int_equal(at_diff_width("na\xc3\xafve"), 5);
	assert_int_equal(at_diff_width(""), 0);
}

/* Run the stat writer into a string. */
static char *stat_text(const struct at_diff_stat_item *items, size_t n,
		       const struct at_diff_stat_style *style)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(at_diff_stat_write(f, items, n, style), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void test_diff__stat_aligns_counts_and_binary(void **state)
{
	const struct at_diff_stat_item items[] = {
		{ "bin.dat", 0, 0, true, 7, 8 },
		{ "f", 2, 1, false, 0, 0 },
		{ "m", 0, 0, false, 0, 0 },
		{ "\"na\\303\\257ve\"", 1, 0, false, 0, 0 },
		{ "newbin", 0, 0, true, 0, 3 },
		{ "same.bin", 0, 0, true, 0, 0 },
	};
	char *got;

	(void)state;
	got = stat_text(items, 6, NULL);
	assert_string_equal(got,
			    " bin.dat        | Bin 7 -> 8 bytes\n"
			    " f              |   3 ++-\n"
			    " m              |   0\n"
			    " \"na\\303\\257ve\" |   1 +\n"
			    " newbin         | Bin 0 -> 3 bytes\n"
			    " same.bin       | Bin\n"
			    " 6 files changed, 3 insertions(+), 1 deletion(-)\n");
	free(got);
}

static void test_diff__stat_scales_graph_and_cuts_long_names(void **state)
{
	const struct at_diff_stat_item items[] = {
		{ "a-very-long-directory-name/another-quite-long-directory-name/"
		  "and-a-long-file-name-too.txt", 1, 0, false, 0, 0 },
		{ "big", 1000, 0, false, 0, 0 },
		{ "mid", 30, 0, false, 0, 0 },
	};
	char *got;

	(void)state;
	got = stat_text(items, 3, NULL);
	assert_string_equal(got,
			    " .../and-a-long-file-name-too.txt                   |    1 +\n"
			    " big                                                | 1000 "
			    "++++++++++++++++++++\n"
			    " mid                                                |   30 +\n"
			    " 3 files changed, 1031 insertions(+)\n");
	free(got);
}

static void test_diff__stat_keeps_both_signs_when_scaled(void **state)
{
	const struct at_diff_stat_item items[] = {
		{ "a", 1, 1, false, 0, 0 },
		{ "b", 500, 500, false, 0, 0 },
	};
	const struct at_diff_stat_style style = { 40, "<", ">", "|" };
	char *got;

	(void)state;
	/* git at width 40: the short name leaves the graph 29 columns */
	got = stat_text(items, 2, &style);
	assert_string_equal(got,
			    " a |    2 <+|>-|\n"
			    " b | 1000 <++++++++++++++|>---------------|\n"
			    " 2 files changed, 501 insertions(+), 501 deletions(-)\n");
	free(got);
}

static void test_diff__stat_summary_singular_and_empty(void **state)
{
	const struct at_diff_stat_item one[] = { { "x", 0, 1, false, 0, 0 } };
	char *got;

	(void)state;
	got = stat_text(one, 1, NULL);
	assert_string_equal(got, " x | 1 -\n 1 file changed, 1 deletion(-)\n");
	free(got);
	got = stat_text(one, 0, NULL);
	assert_true(got == NULL || got[0] == '\0');
	free(got);
}

static int score(const char *a, const char *b)
{
	struct at_diff_sig *x = at_diff_sig_new(a, strlen(a));
	struct at_diff_sig *y = at_diff_sig_new(b, strlen(b));
	int s;

	assert_non_null(x);
	assert_non_null(y);
	s = at_diff_sig_estimate(x, y, 0) * 100 / AT_DIFF_MAX_SCORE;
	at_diff_sig_free(x);
	at_diff_sig_free(y);
	return s;
}

static void test_diff__similarity_matches_git(void **state)
{
	const char *old = "rn content line\nmore\nmore2\nmore3\n";

	(void)state;
	assert_int_equal(score(old, old), 100);
	/* git: "similarity index 84%" for one line of six added */
	assert_int_equal(score(old, "rn content line\nmore\nmore2\nmore3\nmore4\n"), 84);
	assert_int_equal(score("aaaa\n", "bbbb\n"), 0);
	/* the order of lines does not matter, CR before LF does not count in text */
	assert_int_equal(score("one\ntwo\n", "two\none\n"), 100);
	assert_int_equal(score("one\r\ntwo\r\n", "one\ntwo\n"), 80);
	assert_int_equal(score("", ""), 0);
	/* git never hashes a last line without its newline ("similarity index 50%") */
	assert_int_equal(score("same\nlast", "same\nlastX"), 50);
}

static void test_diff__estimate_skips_sizes_too_far_apart(void **state)
{
	struct at_diff_sig *x = at_diff_sig_new("a\n", 2);
	struct at_diff_sig *y = at_diff_sig_new("a\nb\nc\nd\n", 8);

	(void)state;
	assert_int_equal(at_diff_sig_estimate(x, y, 0), 15000);
	/* 2 bytes of 8 can never make 50%: git does not compare them */
	assert_int_equal(at_diff_sig_estimate(x, y, 30000), 0);
	at_diff_sig_free(x);
	at_diff_sig_free(y);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_diff__quote_leaves_plain_names_and_spaces),
		cmocka_unit_test(test_diff__quote_escapes_like_git),
		cmocka_unit_test(test_diff__quote_keeps_utf8_when_quotepath_is_off),
		cmocka_unit_test(test_diff__rename_name_factors_common_directories),
		cmocka_unit_test(test_diff__rename_name_quotes_each_side),
		cmocka_unit_test(test_diff__width_counts_code_points),
		cmocka_unit_test(test_diff__stat_aligns_counts_and_binary),
		cmocka_unit_test(test_diff__stat_scales_graph_and_cuts_long_names),
		cmocka_unit_test(test_diff__stat_keeps_both_signs_when_scaled),
		cmocka_unit_test(test_diff__stat_summary_singular_and_empty),
		cmocka_unit_test(test_diff__similarity_matches_git),
		cmocka_unit_test(test_diff__estimate_skips_sizes_too_far_apart),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
