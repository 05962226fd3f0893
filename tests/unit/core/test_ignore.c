/*
 * Unit tests for core/ignore.c: git's wildmatch and ignore rules, matched
 * in memory. tests/integration/hostile.sh holds the same rules against git
 * itself on real trees.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/ignore.h"

#define WM(p, t) assert_true(at_wildmatch((p), (t), true))
#define NO_WM(p, t) assert_false(at_wildmatch((p), (t), true))

static void test_wildmatch__stars_questions_and_escapes(void **state)
{
	(void)state;
	WM("foo", "foo");
	NO_WM("foo", "foobar");
	WM("*", "foo");
	NO_WM("*", "foo/bar");
	WM("*.c", "main.c");
	NO_WM("*.c", "src/main.c");
	WM("f?o", "foo");
	NO_WM("f?o", "f/o");
	WM("a*/b", "axx/b");
	NO_WM("a*/b", "a/x/b");
	WM("\\*", "*");
	NO_WM("\\*", "x");
	WM("foo\\ ", "foo ");
	NO_WM("foo\\", "foo");
	/* Without pathname (base names), '*' may cross a slash. */
	assert_true(at_wildmatch("*", "a/b", false));
}

static void test_wildmatch__double_star_as_a_component(void **state)
{
	(void)state;
	WM("**/foo", "foo");
	WM("**/foo", "a/b/foo");
	WM("a/**/b", "a/b");
	WM("a/**/b", "a/x/y/b");
	WM("a/**", "a/x/y");
	NO_WM("a/**", "a");
	WM("**", "a/b/c");
	/* Not a whole component: an ordinary star. */
	WM("a**b", "axxb");
	NO_WM("a**b", "a/b");
	NO_WM("a/**b", "a/x/b");
}

static void test_wildmatch__brackets(void **state)
{
	(void)state;
	WM("[abc]", "b");
	NO_WM("[abc]", "d");
	WM("[a-c]x", "bx");
	WM("[!a-c]", "d");
	WM("[^a-c]", "d");
	NO_WM("[!a-c]", "b");
	WM("[]]", "]");
	WM("[!]]", "a");
	WM("[[:digit:]]", "7");
	NO_WM("[[:digit:]]", "x");
	WM("[[:alpha:][:digit:]]", "q");
	WM("[a\\]]", "]");
	WM("[[:]", "[");
	NO_WM("[/]", "/");
	/* Malformed: no closing bracket, or an unknown class, matches nothing. */
	NO_WM("[abc", "a");
	NO_WM("[[:nope:]]", "a");
}

/* Many stars against a long name finish at once (no exponential backtracking). */
static void test_wildmatch__hostile_pattern_is_polynomial(void **state)
{
	char text[2001];

	(void)state;
	memset(text, 'a', sizeof(text) - 1);
	text[sizeof(text) - 1] = '\0';
	NO_WM("*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b", text);
	NO_WM("**/*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b", text);
}

static struct at_ignore *rules(const char *dir, const char *text)
{
	struct at_ignore *ig = at_ignore_new();

	assert_non_null(ig);
	assert_int_equal(at_ignore_add_dir(ig, dir, text, strlen(text)), 0);
	return ig;
}

static void test_ignore__base_names_paths_and_directories(void **state)
{
	struct at_ignore *ig = rules("", "*.o\n/build/\ndocs/*.tmp\nlogs/\n# comment\n\n");

	(void)state;
	assert_true(at_ignore_excluded(ig, "a.o", false));
	assert_true(at_ignore_excluded(ig, "src/deep/a.o", false));
	assert_true(at_ignore_excluded(ig, "build", true));
	assert_false(at_ignore_excluded(ig, "build", false));
	assert_false(at_ignore_excluded(ig, "src/build", true));
	assert_true(at_ignore_excluded(ig, "docs/x.tmp", false));
	assert_false(at_ignore_excluded(ig, "a/docs/x.tmp", false));
	assert_true(at_ignore_excluded(ig, "a/logs", true));
	/* Below an excluded directory everything is excluded. */
	assert_true(at_ignore_excluded(ig, "build/x.c", false));
	assert_false(at_ignore_excluded(ig, "# comment", false));
	at_ignore_free(ig);
}

static void test_ignore__negation_and_precedence(void **state)
{
	struct at_ignore *ig = rules("", "*.log\n!keep.log\n");

	(void)state;
	assert_true(at_ignore_excluded(ig, "x.log", false));
	assert_false(at_ignore_excluded(ig, "keep.log", false));
	/* A deeper file wins over the root's, and is anchored at its directory. */
	assert_int_equal(at_ignore_add_dir(ig, "sub/", "!x.log\n/only-here\n", 17), 0);
	assert_false(at_ignore_excluded(ig, "sub/x.log", false));
	assert_false(at_ignore_excluded(ig, "sub/a/x.log", false));
	assert_true(at_ignore_excluded(ig, "other/x.log", false));
	assert_true(at_ignore_excluded(ig, "sub/only-here", false));
	assert_false(at_ignore_excluded(ig, "sub/a/only-here", false));
	assert_false(at_ignore_excluded(ig, "only-here", false));
	/* A directory's own file does not apply to the directory itself. */
	assert_int_equal(at_ignore_add_dir(ig, "self/", "self\n", 5), 0);
	assert_false(at_ignore_excluded(ig, "self", true));
	assert_true(at_ignore_excluded(ig, "self/self", true));
	/* The globals are weaker than any .gitignore; the last added is the strongest. */
	assert_int_equal(at_ignore_add_global(ig, "g1\ng2\n", 6), 0);
	assert_int_equal(at_ignore_add_global(ig, "!g2\n", 4), 0);
	assert_true(at_ignore_excluded(ig, "g1", false));
	assert_false(at_ignore_excluded(ig, "g2", false));
	assert_true(at_ignore_has_dir(ig, "sub/"));
	assert_false(at_ignore_has_dir(ig, "nope/"));
	at_ignore_free(ig);
}

static void test_ignore__parent_exclusion_cannot_be_negated(void **state)
{
	struct at_ignore *ig = rules("", "out/\n!out/keep\n");

	(void)state;
	assert_true(at_ignore_excluded(ig, "out/keep", false));
	at_ignore_free(ig);
}

static void test_ignore__lines_as_git_reads_them(void **state)
{
	/* A BOM, CRLF, trailing blanks, an escaped one, lone "!" and "/", and spaces only. */
	struct at_ignore *ig = rules("", "\xef\xbb\xbf" "bom\r\ntrail   \nesc\\ \n!\n/\n   \n\\#hash\n\\!bang\n");

	(void)state;
	assert_true(at_ignore_excluded(ig, "bom", false));
	assert_true(at_ignore_excluded(ig, "trail", false));
	assert_true(at_ignore_excluded(ig, "esc ", false));
	assert_false(at_ignore_excluded(ig, "esc", false));
	assert_true(at_ignore_excluded(ig, "#hash", false));
	assert_true(at_ignore_excluded(ig, "!bang", false));
	assert_false(at_ignore_excluded(ig, "anything", false));
	assert_false(at_ignore_excluded(ig, "dir", true));
	at_ignore_free(ig);
}

/*
 * What: the task makes directories 2000 deep (a path of 4000 bytes), with a
 * .gitignore in some of them, so that every question the scan asks about a
 * file there stalls it. Must: asking whether the path is excluded (each of
 * the 2000 directories above it judged) costs time linear in the path, not
 * a lookup of every directory above each of those 2000 (three seconds a
 * question at -O2 before); and the answers are still git's. alarm() fails
 * the test rather than let it hang.
 */
static void test_ignore__a_deep_path_is_judged_in_linear_time(void **state)
{
	static char path[4096], dir[4096];
	struct at_ignore *ig = rules("", "*.o\n");
	size_t i, len = 0;

	(void)state;
	while (len + 2 < 4000) {
		path[len++] = 'a';
		path[len++] = '/';
		if (len == 1000)
			assert_int_equal(at_ignore_add_dir(ig, path, "!keep.o\nout/\n", 13), 0);
	}
	memcpy(dir, path, len + 1);
	memcpy(path + len, "keep.o", sizeof("keep.o"));
	alarm(10);
	for (i = 0; i < 20; i++) {
		assert_false(at_ignore_excluded(ig, path, false));
		assert_true(at_ignore_excluded(ig, "a/a/x.o", false));
	}
	memcpy(dir + 1000, "out/keep.o", sizeof("out/keep.o"));
	assert_true(at_ignore_excluded(ig, dir, false));
	alarm(0);
	at_ignore_free(ig);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wildmatch__stars_questions_and_escapes),
		cmocka_unit_test(test_wildmatch__double_star_as_a_component),
		cmocka_unit_test(test_wildmatch__brackets),
		cmocka_unit_test(test_wildmatch__hostile_pattern_is_polynomial),
		cmocka_unit_test(test_ignore__base_names_paths_and_directories),
		cmocka_unit_test(test_ignore__negation_and_precedence),
		cmocka_unit_test(test_ignore__parent_exclusion_cannot_be_negated),
		cmocka_unit_test(test_ignore__lines_as_git_reads_them),
		cmocka_unit_test(test_ignore__a_deep_path_is_judged_in_linear_time),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
