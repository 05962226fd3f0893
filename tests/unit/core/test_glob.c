/* Unit tests for core/glob.c: the patterns of protected_paths. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/glob.h"

#define MATCH(p, s) assert_true(at_glob_match((p), (s)))
#define NO_MATCH(p, s) assert_false(at_glob_match((p), (s)))

static void test_glob__literal_matches_only_itself(void **state)
{
	(void)state;
	MATCH("README", "README");
	MATCH("src/main.c", "src/main.c");
	NO_MATCH("README", "README.md");
	NO_MATCH("README", "docs/README");
	NO_MATCH("src/main.c", "src/main.cc");
	NO_MATCH("src", "src/main.c");
	NO_MATCH("readme", "README");
}

static void test_glob__star_stays_within_one_component(void **state)
{
	(void)state;
	MATCH("*.c", "main.c");
	MATCH("*", "anything");
	MATCH("src/*.c", "src/main.c");
	MATCH("src/*", "src/x");
	MATCH("*.c", ".c");
	MATCH("a*b*c", "aXXbYYc");
	MATCH("a*b*c", "abc");
	MATCH("a*", "a");
	NO_MATCH("*.c", "src/main.c");
	NO_MATCH("src/*", "src/a/b");
	NO_MATCH("*", "a/b");
	NO_MATCH("a*b*c", "aXXbYYcd");
	NO_MATCH("*.c", "main.h");
}

static void test_glob__star_matches_dot_files(void **state)
{
	(void)state;
	MATCH("*", ".env");
	MATCH("config/*", "config/.secret");
	MATCH("*.pem", ".hidden.pem");
}

static void test_glob__star_backtracks(void **state)
{
	(void)state;
	MATCH("*ab", "aab");
	MATCH("*aab", "aaab");
	MATCH("a*a*a", "aaaaa");
	MATCH("*x*y*", "__x__x__y__");
	NO_MATCH("*ab", "aba");
	NO_MATCH("a*a*a", "aa");
}

static void test_glob__question_mark_is_one_character(void **state)
{
	(void)state;
	MATCH("?", "a");
	MATCH("file?.txt", "file1.txt");
	MATCH("??", "ab");
	NO_MATCH("?", "");
	NO_MATCH("?", "ab");
	NO_MATCH("file?.txt", "file.txt");
	NO_MATCH("a?b", "a/b");
}

static void test_glob__question_mark_is_one_utf8_character(void **state)
{
	(void)state;
	MATCH("caf?", "caf\xc3\xa9");          /* café: é is two bytes */
	MATCH("?", "\xe2\x82\xac");            /* € is three */
	NO_MATCH("caf??", "caf\xc3\xa9");
	MATCH("*\xc3\xa9", "caf\xc3\xa9");
}

static void test_glob__globstar_spans_zero_or_more_components(void **state)
{
	(void)state;
	MATCH("**", "a");
	MATCH("**", "a/b/c");
	MATCH("**/*.pem", "key.pem");
	MATCH("**/*.pem", "a/b/key.pem");
	MATCH("a/**/b", "a/b");
	MATCH("a/**/b", "a/x/b");
	MATCH("a/**/b", "a/x/y/z/b");
	MATCH("a/**", "a/x");
	MATCH("a/**", "a/x/y");
	MATCH("**/secrets/**", "deep/down/secrets/k");
	MATCH("a/**/b/**/c", "a/1/b/2/3/c");
	NO_MATCH("a/**", "a");
	NO_MATCH("a/**/b", "a/x/c");
	NO_MATCH("a/**/b", "b");
	NO_MATCH("**/*.pem", "a/key.pem.txt");
	NO_MATCH("**/b", "a/bb");
}

static void test_glob__match_under_covers_everything_below(void **state)
{
	(void)state;
	assert_true(at_glob_match_under("secrets", "secrets"));
	assert_true(at_glob_match_under("secrets", "secrets/a"));
	assert_true(at_glob_match_under("secrets", "secrets/a/b/c"));
	assert_true(at_glob_match_under(".github/workflows", ".github/workflows/ci.yml"));
	assert_true(at_glob_match_under("*", "anything/at/all"));
	assert_true(at_glob_match_under("conf*", "config/x"));
	assert_true(at_glob_match_under("**/vendor", "a/b/vendor/lib/x.c"));
	assert_false(at_glob_match_under("secrets", "secrets2/a"));
	assert_false(at_glob_match_under("secrets", "a/secrets"));
	assert_false(at_glob_match_under("a/b", "a"));
	assert_false(at_glob_match_under("a/b", "a/bc/d"));
}

static void test_glob__match_below_is_a_pattern_reaching_under_a_path(void **state)
{
	(void)state;
	assert_true(at_glob_match_below(".github/workflows", ".github"));
	assert_true(at_glob_match_below("a/b/c", "a/b"));
	assert_true(at_glob_match_below("*/workflows", "anything"));
	assert_true(at_glob_match_below("**/secrets", "a"));
	assert_true(at_glob_match_below("a/**", "a"));
	assert_false(at_glob_match_below("secrets", "secrets"));
	assert_false(at_glob_match_below("secrets", "secrets/a"));
	assert_false(at_glob_match_below(".github/workflows", ".gitlab"));
	assert_false(at_glob_match_below("a/b/c", "a/x"));
	assert_false(at_glob_match_below("a/b", "a/b/c"));
	assert_false(at_glob_match_below("", "a"));
	assert_false(at_glob_match_below("a/b", ""));
}

static void test_glob__long_directory_names_still_match(void **state)
{
	char path[6000];

	(void)state;
	memset(path, 'd', 5000);
	strcpy(path + 5000, "/file");
	assert_true(at_glob_match_under("d*", path));
	assert_false(at_glob_match_under("e*", path));
}

static void normalized(const char *pattern, const char *want)
{
	char buf[AT_GLOB_MAX + 1];
	const char *why = "unset";

	assert_int_equal(at_glob_normalize(pattern, buf, sizeof(buf), &why), 0);
	assert_null(why);
	assert_string_equal(buf, want);
}

static void refused(const char *pattern, const char *reason)
{
	char buf[AT_GLOB_MAX + 1];
	const char *why = NULL;

	assert_int_equal(at_glob_normalize(pattern, buf, sizeof(buf), &why), -1);
	assert_non_null(why);
	assert_non_null(strstr(why, reason));
}

static void test_glob__normalize_drops_leading_and_trailing_slash(void **state)
{
	(void)state;
	normalized("secrets", "secrets");
	normalized("/secrets", "secrets");
	normalized("secrets/", "secrets");
	normalized("/a/b/", "a/b");
	normalized("**/*.pem", "**/*.pem");
	normalized("a/**/b", "a/**/b");
}

static void test_glob__normalize_refuses_bad_patterns(void **state)
{
	char long_pattern[AT_GLOB_MAX + 10];

	(void)state;
	refused("", "empty pattern");
	refused("/", "empty pattern");
	refused("a//b", "empty path component");
	refused("./a", "'.' and '..'");
	refused("a/../b", "'.' and '..'");
	refused("a/..", "'.' and '..'");
	refused("a**", "'**' must be a whole path component");
	refused("**b/c", "'**' must be a whole path component");
	refused("a/***", "'**' must be a whole path component");
	refused("[ab].c", "'['");
	refused("{a,b}", "not supported");
	refused("a\\*", "not supported");
	refused("!secrets", "negation");
	memset(long_pattern, 'x', sizeof(long_pattern) - 1);
	long_pattern[sizeof(long_pattern) - 1] = '\0';
	refused(long_pattern, "too long");
}

static void test_glob__normalize_does_not_overflow_a_small_buffer(void **state)
{
	char buf[4];
	const char *why = NULL;

	(void)state;
	assert_int_equal(at_glob_normalize("abcdef", buf, sizeof(buf), &why), -1);
	assert_non_null(why);
	assert_int_equal(at_glob_normalize("abc", buf, sizeof(buf), &why), 0);
	assert_string_equal(buf, "abc");
}

static void test_glob__empty_pattern_or_path_never_match(void **state)
{
	(void)state;
	NO_MATCH("", "a");
	NO_MATCH("*", "");
	NO_MATCH("**", "");
	assert_false(at_glob_match_under("", "a/b"));
}

/*
 * The attacker is the task, which chooses its paths: a path 2,000
 * directories deep against a policy's "**" patterns. Trying every split
 * for every '**' took exponential time (twelve of them against a path 40
 * deep did not finish in ten minutes); one backtracking point, as for '*',
 * keeps it to one comparison per pair of components. alarm() fails the
 * test rather than let it hang.
 */
static void test_glob__many_globstars_against_a_deep_path_are_fast(void **state)
{
	static char pattern[4096], path[4096];
	size_t i;

	(void)state;
	pattern[0] = path[0] = '\0';
	for (i = 0; i < 12; i++)
		strcat(pattern, "**/a/");
	strcat(pattern, "x");
	for (i = 0; i < 2000; i++)
		strcat(path, i ? "/a" : "a");
	alarm(10);
	NO_MATCH(pattern, path);
	assert_false(at_glob_match_under(pattern, path));
	path[strlen(path) - 1] = 'x';
	MATCH(pattern, path);
	alarm(0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_glob__literal_matches_only_itself),
		cmocka_unit_test(test_glob__star_stays_within_one_component),
		cmocka_unit_test(test_glob__star_matches_dot_files),
		cmocka_unit_test(test_glob__star_backtracks),
		cmocka_unit_test(test_glob__question_mark_is_one_character),
		cmocka_unit_test(test_glob__question_mark_is_one_utf8_character),
		cmocka_unit_test(test_glob__globstar_spans_zero_or_more_components),
		cmocka_unit_test(test_glob__match_under_covers_everything_below),
		cmocka_unit_test(test_glob__match_below_is_a_pattern_reaching_under_a_path),
		cmocka_unit_test(test_glob__long_directory_names_still_match),
		cmocka_unit_test(test_glob__normalize_drops_leading_and_trailing_slash),
		cmocka_unit_test(test_glob__normalize_refuses_bad_patterns),
		cmocka_unit_test(test_glob__normalize_does_not_overflow_a_small_buffer),
		cmocka_unit_test(test_glob__empty_pattern_or_path_never_match),
		cmocka_unit_test(test_glob__many_globstars_against_a_deep_path_are_fast),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
