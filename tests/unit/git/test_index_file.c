/*
 * Unit tests for gitfmt/index_file.c (read by git/index_read.c) and gitfmt/cache_tree.c: indexes written by
 * libgit2 in versions 2, 3 and 4 are read back entry for entry as libgit2
 * reads them, the cache tree libgit2 writes is found, what the reader must
 * not represent (a required extension, a truncated file) is declined, and
 * at_cache_tree_encode() makes what decode reads back.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>

#include "core/fs.h"
#include "git/index_read.h"
#include "gitfmt/cache_tree.h"

struct repo {
	char root[PATH_MAX];
	git_repository *repo;
	git_index *idx;
};

static int setup(void **state)
{
	struct repo *r = calloc(1, sizeof(*r));
	char tmpl[] = "/tmp/at-index-test.XXXXXX";

	if (!r || !mkdtemp(tmpl) || !realpath(tmpl, r->root) ||
	    git_repository_init(&r->repo, r->root, 0) < 0 || git_repository_index(&r->idx, r->repo) < 0)
		return -1;
	*state = r;
	return 0;
}

static int teardown(void **state)
{
	struct repo *r = *state;
	struct at_error err = AT_ERROR_INIT;

	git_index_free(r->idx);
	git_repository_free(r->repo);
	at_rmtree(r->root, &err);
	free(r);
	return 0;
}

/* Entries of every shape: nested, a long path, a link, an executable, stat data. */
static void fill(struct repo *r)
{
	static const char *const paths[] = { "README", "a-b", "a/b/c.txt", "a/b/d.txt", "a/e",
					     "z", NULL };
	char longpath[5000];
	git_index_entry e;
	size_t i;

	for (i = 0; paths[i]; i++) {
		memset(&e, 0, sizeof(e));
		e.path = paths[i];
		e.mode = i == 2 ? GIT_FILEMODE_BLOB_EXECUTABLE : i == 4 ? GIT_FILEMODE_LINK
								: GIT_FILEMODE_BLOB;
		e.ctime.seconds = 1700000000 + (int32_t)i;
		e.ctime.nanoseconds = 123456789u + (uint32_t)i;
		e.mtime.seconds = 1700000100 + (int32_t)i;
		e.mtime.nanoseconds = 987654321u - (uint32_t)i;
		e.dev = 64768;
		e.ino = 1000 + (uint32_t)i;
		e.uid = 1000;
		e.gid = 100;
		e.file_size = 10 * (uint32_t)i;
		assert_int_equal(git_blob_create_from_buffer(&e.id, r->repo, paths[i], strlen(paths[i])), 0);
		if (git_index_add(r->idx, &e) < 0)
			fail_msg("%s: %s", paths[i], git_error_last()->message);
	}
	/* a path longer than the 12 bits of the name length */
	memset(longpath, 'x', sizeof(longpath) - 1);
	longpath[0] = 'm';
	longpath[1] = '/';
	longpath[sizeof(longpath) - 1] = '\0';
	memset(&e, 0, sizeof(e));
	e.path = longpath;
	e.mode = GIT_FILEMODE_BLOB;
	assert_int_equal(git_blob_create_from_buffer(&e.id, r->repo, "long", 4), 0);
	assert_int_equal(git_index_add(r->idx, &e), 0);
}

static void same_as_libgit2(struct repo *r, const struct at_index *got)
{
	size_t i;

	assert_int_equal(got->n, git_index_entrycount(r->idx));
	for (i = 0; i < got->n; i++) {
		const git_index_entry *want = git_index_get_byindex(r->idx, i), *e = &got->v[i];

		assert_string_equal(e->path, want->path);
		assert_int_equal(e->mode, want->mode);
		assert_true(git_oid_equal(&e->id, &want->id));
		assert_int_equal(e->ctime.seconds, want->ctime.seconds);
		assert_int_equal(e->ctime.nanoseconds, want->ctime.nanoseconds);
		assert_int_equal(e->mtime.seconds, want->mtime.seconds);
		assert_int_equal(e->mtime.nanoseconds, want->mtime.nanoseconds);
		assert_int_equal(e->dev, want->dev);
		assert_int_equal(e->ino, want->ino);
		assert_int_equal(e->uid, want->uid);
		assert_int_equal(e->gid, want->gid);
		assert_int_equal(e->file_size, want->file_size);
		assert_int_equal(e->flags_extended & GIT_INDEX_ENTRY_EXTENDED_FLAGS,
				 want->flags_extended & GIT_INDEX_ENTRY_EXTENDED_FLAGS);
	}
}

static void check_version(void **state, unsigned version)
{
	struct repo *r = *state;
	struct at_index got = AT_INDEX_INIT;
	struct at_error err = AT_ERROR_INIT;

	fill(r);
	assert_int_equal(git_index_set_version(r->idx, version), 0);
	assert_int_equal(git_index_write(r->idx), 0);
	assert_int_equal(at_index_read(git_index_path(r->idx), &got, &err), 0);
	same_as_libgit2(r, &got);
	assert_null(got.trees);
	at_index_free(&got);
}

static void test_index__version_2(void **state)
{
	check_version(state, 2);
}

static void test_index__version_4_prefix_compression(void **state)
{
	check_version(state, 4);
}

static void test_index__version_3_extended_flags(void **state)
{
	struct repo *r = *state;
	struct at_index got = AT_INDEX_INIT;
	struct at_error err = AT_ERROR_INIT;
	git_index_entry e;

	fill(r);
	e = *git_index_get_bypath(r->idx, "a/e", 0);
	e.flags_extended |= GIT_INDEX_ENTRY_INTENT_TO_ADD;
	assert_int_equal(git_index_add(r->idx, &e), 0);
	assert_int_equal(git_index_write(r->idx), 0);
	assert_int_equal(at_index_read(git_index_path(r->idx), &got, &err), 0);
	same_as_libgit2(r, &got);
	at_index_free(&got);
}

static void test_index__cache_tree_is_read(void **state)
{
	struct repo *r = *state;
	struct at_index got = AT_INDEX_INIT;
	struct at_error err = AT_ERROR_INIT;
	const struct at_cache_tree *root, *ab;
	git_tree_entry *sub = NULL;
	git_tree *tree = NULL;
	git_oid id;

	fill(r);
	assert_int_equal(git_index_write_tree(&id, r->idx), 0);
	assert_int_equal(git_index_write(r->idx), 0);
	assert_int_equal(at_index_read(git_index_path(r->idx), &got, &err), 0);
	assert_non_null(root = at_cache_tree_find(got.trees, got.ntrees, "", 0));
	assert_true(git_oid_equal(&root->id, &id));
	assert_int_equal(root->count, (long)got.n);
	assert_non_null(ab = at_cache_tree_find(got.trees, got.ntrees, "a/b", 3));
	assert_int_equal(ab->count, 2);
	assert_int_equal(git_tree_lookup(&tree, r->repo, &id), 0);
	assert_int_equal(git_tree_entry_bypath(&sub, tree, "a/b"), 0);
	assert_true(git_oid_equal(&ab->id, git_tree_entry_id(sub)));
	git_tree_entry_free(sub);
	git_tree_free(tree);
	assert_null(at_cache_tree_find(got.trees, got.ntrees, "a/b/c.txt", 9));
	at_index_free(&got);
}

/* Rewrite the index file, its tail (from the checksum) replaced. */
static void splice_tail(struct repo *r, const char *ext, size_t extlen, size_t cut)
{
	const char *path = git_index_path(r->idx);
	unsigned char *buf = malloc(1 << 20);
	size_t len;
	FILE *f;

	assert_non_null(buf);
	assert_non_null(f = fopen(path, "rb"));
	len = fread(buf, 1, 1 << 20, f);
	fclose(f);
	assert_true(len > 20 + cut);
	len -= 20 + cut;
	memcpy(buf + len, ext, extlen);
	memset(buf + len + extlen, 0, 20);
	assert_non_null(f = fopen(path, "wb"));
	assert_int_equal(fwrite(buf, 1, len + extlen + 20, f), len + extlen + 20);
	fclose(f);
	free(buf);
}

static void test_index__required_extension_and_damage_are_declined(void **state)
{
	struct repo *r = *state;
	struct at_index got = AT_INDEX_INIT;
	struct at_error err = AT_ERROR_INIT;
	static const char link_ext[] = "link\0\0\0\0";
	static const char optional_ext[] = "ZZZZ\0\0\0\2ab";

	fill(r);
	assert_int_equal(git_index_write(r->idx), 0);
	splice_tail(r, optional_ext, sizeof(optional_ext) - 1, 0);
	assert_int_equal(at_index_read(git_index_path(r->idx), &got, &err), 0);
	at_index_free(&got);
	splice_tail(r, link_ext, sizeof(link_ext) - 1, sizeof(optional_ext) - 1);
	assert_int_equal(at_index_read(git_index_path(r->idx), &got, &err), AT_INDEX_DECLINED);
	assert_null(got.v);
	/* the last entry cut in half */
	splice_tail(r, "", 0, 40);
	assert_int_equal(at_index_read(git_index_path(r->idx), &got, &err), AT_INDEX_DECLINED);
	assert_int_equal(at_index_read("/nonexistent/index", &got, &err), AT_INDEX_DECLINED);
	assert_false(at_error_isset(&err));
}

struct stage_entry {
	const char *path;
	unsigned stage;
};

/* A version 2 index of these entries, as bytes (the reader checks no checksum). */
static size_t make_index(unsigned char *buf, const struct stage_entry *v, size_t n)
{
	size_t len = 12, i;

	memset(buf, 0, 4096);
	memcpy(buf, "DIRC\0\0\0\2\0\0\0", 11);
	buf[11] = (unsigned char)n;
	for (i = 0; i < n; i++) {
		size_t plen = strlen(v[i].path);

		buf[len + 26] = 0x81;   /* mode 0100644 */
		buf[len + 27] = 0xa4;
		buf[len + 60] = (unsigned char)(v[i].stage << 4);
		buf[len + 61] = (unsigned char)plen;
		memcpy(buf + len + 62, v[i].path, plen);
		len += (62 + plen + 8) & ~(size_t)7;
	}
	return len + 20;
}

static int parse_entries(const struct stage_entry *v, size_t n)
{
	unsigned char buf[4096];
	struct at_index got;
	size_t len = make_index(buf, v, n);
	int rc = at_index_parse(buf, len, &got);

	if (rc == 0) {
		assert_int_equal(got.n, n);
		at_index_free(&got);
	}
	return rc;
}

/*
 * Found by fuzz_index: two entries for one path at stage 0 were accepted,
 * leaving which one counts to the reader: the fast snapshot and libgit2
 * (the slow path, and accept's commit) need not agree. git's order is by
 * path, then stage, and a merged path appears once; anything else is
 * declined, for libgit2 to read.
 */
static void test_index__entries_out_of_git_order_are_declined(void **state)
{
	const struct stage_entry twice[] = { { "a", 0 }, { "a", 0 } };
	const struct stage_entry merged_and_stage[] = { { "a", 0 }, { "a", 1 } };
	const struct stage_entry stage_twice[] = { { "a", 2 }, { "a", 2 } };
	const struct stage_entry stages_down[] = { { "a", 3 }, { "a", 1 } };
	const struct stage_entry paths_down[] = { { "b", 0 }, { "a", 0 } };
	const struct stage_entry conflict[] = { { "a", 1 }, { "a", 2 }, { "a", 3 }, { "b", 0 } };

	(void)state;
	assert_int_equal(parse_entries(twice, 2), AT_INDEX_DECLINED);
	assert_int_equal(parse_entries(merged_and_stage, 2), AT_INDEX_DECLINED);
	assert_int_equal(parse_entries(stage_twice, 2), AT_INDEX_DECLINED);
	assert_int_equal(parse_entries(stages_down, 2), AT_INDEX_DECLINED);
	assert_int_equal(parse_entries(paths_down, 2), AT_INDEX_DECLINED);
	assert_int_equal(parse_entries(conflict, 4), 0);
}

static void test_cache_tree__encode_decodes_back(void **state)
{
	git_oid root, a, ab;
	const struct at_tree_item items[] = {
		{ "README", false, NULL }, { "a", true, &a }, { "a/b", true, &ab },
		{ "a/b/c", false, NULL }, { "a/d", false, NULL }, { "z", false, NULL },
	};
	struct at_cache_tree *v = NULL;
	const struct at_cache_tree *t;
	unsigned char *buf = NULL;
	size_t len = 0, n = 0;

	(void)state;
	git_oid_fromstr(&root, "1111111111111111111111111111111111111111");
	git_oid_fromstr(&a, "2222222222222222222222222222222222222222");
	git_oid_fromstr(&ab, "3333333333333333333333333333333333333333");
	assert_int_equal(at_cache_tree_encode(&root, items, 6, &buf, &len), 0);
	assert_true(at_cache_tree_decode(buf, len, &v, &n));
	assert_int_equal(n, 3);
	assert_non_null(t = at_cache_tree_find(v, n, "", 0));
	assert_int_equal(t->count, 4);
	assert_true(git_oid_equal(&t->id, &root));
	assert_non_null(t = at_cache_tree_find(v, n, "a", 1));
	assert_int_equal(t->count, 2);
	assert_true(git_oid_equal(&t->id, &a));
	assert_non_null(t = at_cache_tree_find(v, n, "a/b", 3));
	assert_int_equal(t->count, 1);
	at_cache_tree_free(v, n);
	v = NULL;
	assert_false(at_cache_tree_decode(buf, len - 1, &v, &n));
	free(buf);
}

/*
 * Found by fuzz_cache_tree: a subdirectory with an empty name has its
 * parent's path, so the root was listed twice (once invalid, once valid
 * with any id) and at_cache_tree_find() returned either. A name with a '/'
 * and a directory named twice are as ambiguous: the extension is dropped.
 */
static void test_cache_tree__ambiguous_names_are_refused(void **state)
{
	static const char id[] = "aaaaaaaaaaaaaaaaaaaa";
	char buf[256];
	struct at_cache_tree *v = NULL;
	size_t n = 0, len;

	(void)state;
	/* "" (invalid, one subtree), then a subtree named "" (valid) */
	len = (size_t)snprintf(buf, sizeof(buf), "%c-1 1\n%c2 0\n%s", 0, 0, id);
	assert_false(at_cache_tree_decode((unsigned char *)buf, len, &v, &n));
	/* two subtrees named "a" */
	len = (size_t)snprintf(buf, sizeof(buf), "%c-1 2\na%c1 0\n%sa%c1 0\n%s", 0, 0, id, 0, id);
	assert_false(at_cache_tree_decode((unsigned char *)buf, len, &v, &n));
	/* a subtree named "a/b" */
	len = (size_t)snprintf(buf, sizeof(buf), "%c-1 1\na/b%c1 0\n%s", 0, 0, id);
	assert_false(at_cache_tree_decode((unsigned char *)buf, len, &v, &n));
	/* a root with a name */
	len = (size_t)snprintf(buf, sizeof(buf), "r%c1 0\n%s", 0, id);
	assert_false(at_cache_tree_decode((unsigned char *)buf, len, &v, &n));
	assert_null(v);
	/* and the well-formed shape of the first: "" with a subtree "a" */
	len = (size_t)snprintf(buf, sizeof(buf), "%c-1 1\na%c2 0\n%s", 0, 0, id);
	assert_true(at_cache_tree_decode((unsigned char *)buf, len, &v, &n));
	assert_int_equal(n, 2);
	at_cache_tree_free(v, n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_index__version_2, setup, teardown),
		cmocka_unit_test_setup_teardown(test_index__version_3_extended_flags, setup, teardown),
		cmocka_unit_test_setup_teardown(test_index__version_4_prefix_compression, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_index__cache_tree_is_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_index__required_extension_and_damage_are_declined,
						setup, teardown),
		cmocka_unit_test(test_index__entries_out_of_git_order_are_declined),
		cmocka_unit_test(test_cache_tree__encode_decodes_back),
		cmocka_unit_test(test_cache_tree__ambiguous_names_are_refused),
	};
	int rc;

	git_libgit2_init();
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	git_libgit2_shutdown();
	return rc;
}
