/*
 * Unit tests for gitfmt/renames.c: git's rename pairing on files given as
 * data, their contents through the signature callback (no repository). The
 * outcomes are what `git diff -M` pairs for the same files (git 2.39);
 * tests/integration/diff_differential.sh holds the whole against git.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "gitfmt/renames.h"

/* A blob: its id's first byte indexes the contents below. */
static const char *contents[] = {
	"one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n",
	"one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nTEN\n",
	"alpha\nbeta\ngamma\ndelta\n",
	"something else entirely, nothing alike\n",
};

static unsigned asked;

static struct at_diff_sig *sig_of(void *arg, const git_oid *id)
{
	(void)arg;
	asked++;
	if (id->id[0] >= sizeof(contents) / sizeof(*contents))
		return NULL;   /* unreadable: never alike */
	return at_diff_sig_new(contents[id->id[0]], strlen(contents[id->id[0]]));
}

static struct at_rename_file file(const char *path, unsigned char blob)
{
	struct at_rename_file f;

	memset(&f, 0, sizeof(f));
	f.path = path;
	f.id.id[0] = blob;
	f.mode = GIT_FILEMODE_BLOB;
	f.src = AT_RENAME_NONE;
	return f;
}

static void test_renames__exact_prefers_the_same_base_name(void **state)
{
	struct at_rename_file src[] = { file("a/x.c", 0), file("b/y.c", 0) };
	struct at_rename_file dst[] = { file("c/y.c", 0) };

	(void)state;
	asked = 0;
	assert_int_equal(at_renames_find(src, 2, dst, 1, sig_of, NULL), 0);
	assert_int_equal(dst[0].src, 1);
	assert_int_equal(dst[0].score, AT_DIFF_MAX_SCORE);
	assert_false(src[0].used);
	assert_true(src[1].used);
	assert_int_equal(asked, 0);   /* exact renames read no content */
}

static void test_renames__similar_content_pairs_and_unlike_does_not(void **state)
{
	struct at_rename_file src[] = { file("old.txt", 0), file("list", 2) };
	struct at_rename_file dst[] = { file("new.txt", 1), file("other", 3) };

	(void)state;
	assert_int_equal(at_renames_find(src, 2, dst, 2, sig_of, NULL), 0);
	assert_int_equal(dst[0].src, 0);
	assert_true(dst[0].score >= AT_DIFF_MAX_SCORE / 2 && dst[0].score < AT_DIFF_MAX_SCORE);
	assert_int_equal(dst[1].src, AT_RENAME_NONE);
	assert_true(src[0].used);
	assert_false(src[1].used);
}

static void test_renames__symlinks_pair_only_exactly_with_their_kind(void **state)
{
	struct at_rename_file src[] = { file("link", 0) };
	struct at_rename_file dst[] = { file("file", 0), file("moved", 0) };

	(void)state;
	src[0].mode = GIT_FILEMODE_LINK;
	dst[1].mode = GIT_FILEMODE_LINK;
	assert_int_equal(at_renames_find(src, 1, dst, 2, sig_of, NULL), 0);
	assert_int_equal(dst[0].src, AT_RENAME_NONE);
	assert_int_equal(dst[1].src, 0);
}

static void test_renames__unreadable_content_is_never_alike(void **state)
{
	struct at_rename_file src[] = { file("a", 9) };
	struct at_rename_file dst[] = { file("b", 8) };

	(void)state;
	assert_int_equal(at_renames_find(src, 1, dst, 1, sig_of, NULL), 0);
	assert_int_equal(dst[0].src, AT_RENAME_NONE);
	assert_false(src[0].used);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_renames__exact_prefers_the_same_base_name),
		cmocka_unit_test(test_renames__similar_content_pairs_and_unlike_does_not),
		cmocka_unit_test(test_renames__symlinks_pair_only_exactly_with_their_kind),
		cmocka_unit_test(test_renames__unreadable_content_is_never_alike),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
