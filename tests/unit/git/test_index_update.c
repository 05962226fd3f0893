/*
 * Unit tests for git/index_update.c: an index brought to a new tree by the
 * changed paths must be, entry for entry, what libgit2 makes of the same
 * changes (index_one in git/import.c): the changed paths with the new
 * tree's mode and id and no stat data, the others as they were (a racily
 * clean one smudged), its checksum one libgit2 accepts. What it cannot do
 * exactly (version 4, conflicts) it declines, and leaves the index alone;
 * a held index.lock is refused, never broken.
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
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <git2.h>

#include "core/fs.h"
#include "core/util.h"
#include "gitfmt/index_file.h"
#include "git/index_update.h"

struct repo {
	char root[PATH_MAX], path[PATH_MAX + 16];
	git_repository *repo;
	git_index *idx;
};

static int setup(void **state)
{
	struct repo *r = calloc(1, sizeof(*r));
	char tmpl[] = "/tmp/at-index-update.XXXXXX";

	if (!r || !mkdtemp(tmpl) || !realpath(tmpl, r->root) ||
	    git_repository_init(&r->repo, r->root, 0) < 0 || git_repository_index(&r->idx, r->repo) < 0)
		return -1;
	snprintf(r->path, sizeof(r->path), "%s", git_index_path(r->idx));
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

static void blob(struct repo *r, const char *text, git_oid *out)
{
	assert_int_equal(git_blob_create_from_buffer(out, r->repo, text, strlen(text)), 0);
}

/* An entry with stat data, older than the index file: not racily clean. */
static void add(struct repo *r, const char *path, unsigned int mode, int32_t mtime)
{
	git_index_entry e;

	memset(&e, 0, sizeof(e));
	e.path = path;
	e.mode = mode;
	e.mtime.seconds = mtime;
	e.ctime.seconds = mtime;
	e.dev = 64768;
	e.ino = 4242;
	e.uid = 1000;
	e.gid = 100;
	e.file_size = 7;
	blob(r, path, &e.id);
	assert_int_equal(git_index_add(r->idx, &e), 0);
}

static void fill(struct repo *r, unsigned version)
{
	add(r, "README", GIT_FILEMODE_BLOB, 1700000000);
	add(r, "a/b.txt", GIT_FILEMODE_BLOB, 1700000000);
	add(r, "a/c.sh", GIT_FILEMODE_BLOB_EXECUTABLE, 1700000000);
	add(r, "d", GIT_FILEMODE_BLOB, 1700000000);
	add(r, "z", GIT_FILEMODE_BLOB, 1700000000);
	assert_int_equal(git_index_set_version(r->idx, version), 0);
	assert_int_equal(git_index_write(r->idx), 0);
}

/* What both ways are given: a/b.txt changed, a/new added, d removed, z now a link. */
static size_t changes(struct repo *r, struct at_index_change c[4])
{
	memset(c, 0, 4 * sizeof(*c));
	c[0].path = "a/b.txt";
	c[0].mode = GIT_FILEMODE_BLOB;
	blob(r, "changed", &c[0].id);
	c[1].path = "a/new";
	c[1].mode = GIT_FILEMODE_BLOB;
	blob(r, "new", &c[1].id);
	c[2].path = "d";
	c[2].remove = true;
	c[3].path = "z";
	c[3].mode = GIT_FILEMODE_LINK;
	blob(r, "target", &c[3].id);
	return 4;
}

static const git_index_entry *find(git_index *idx, const char *path)
{
	return git_index_get_bypath(idx, path, 0);
}

static void test_update__is_what_libgit2_makes(void **state)
{
	struct repo *r = *state;
	struct at_error err = AT_ERROR_INIT;
	struct at_index_change c[4];
	git_index *got;
	const git_index_entry *e;
	size_t n;

	fill(r, 2);
	n = changes(r, c);
	assert_int_equal(at_index_update(r->path, c, n, &err), 0);
	/* libgit2 checks the checksum when it opens it. */
	assert_int_equal(git_index_open(&got, r->path), 0);
	assert_int_equal(git_index_entrycount(got), 5);
	assert_null(find(got, "d"));
	e = find(got, "a/b.txt");
	assert_non_null(e);
	assert_true(git_oid_equal(&e->id, &c[0].id));
	assert_int_equal(e->ino, 0);     /* no stat data: git looks again */
	e = find(got, "a/new");
	assert_non_null(e);
	assert_true(git_oid_equal(&e->id, &c[1].id));
	e = find(got, "z");
	assert_non_null(e);
	assert_int_equal(e->mode, GIT_FILEMODE_LINK);
	/* Unchanged: kept with its stat data. */
	e = find(got, "a/c.sh");
	assert_non_null(e);
	assert_int_equal(e->mode, GIT_FILEMODE_BLOB_EXECUTABLE);
	assert_int_equal(e->ino, 4242);
	assert_int_equal(e->file_size, 7);
	e = find(got, "README");
	assert_non_null(e);
	assert_int_equal(e->mtime.seconds, 1700000000);
	git_index_free(got);
	assert_int_equal(access(git_index_path(r->idx), F_OK), 0);
}

static void test_update__keeps_version_3_entries(void **state)
{
	struct repo *r = *state;
	struct at_error err = AT_ERROR_INIT;
	struct at_index_change c[4];
	git_index *got;
	git_index_entry e;

	fill(r, 3);
	/* An intent-to-add entry: extended flags, which only version 3 holds. */
	memset(&e, 0, sizeof(e));
	e.path = "b-intent";
	e.mode = GIT_FILEMODE_BLOB;
	e.flags_extended = GIT_INDEX_ENTRY_INTENT_TO_ADD;
	blob(r, "i", &e.id);
	assert_int_equal(git_index_add(r->idx, &e), 0);
	assert_int_equal(git_index_write(r->idx), 0);
	assert_int_equal(at_index_update(r->path, c, changes(r, c), &err), 0);
	assert_int_equal(git_index_open(&got, r->path), 0);
	assert_int_equal(git_index_entrycount(got), 6);
	assert_true(find(got, "b-intent")->flags_extended & GIT_INDEX_ENTRY_INTENT_TO_ADD);
	git_index_free(got);
}

/* An entry as new as the index file may have changed unseen: git must look again. */
static void test_update__smudges_a_racily_clean_entry(void **state)
{
	struct repo *r = *state;
	struct at_error err = AT_ERROR_INIT;
	struct at_index_change c[4];
	git_index *got;

	fill(r, 2);
	add(r, "racy", GIT_FILEMODE_BLOB, (int32_t)time(NULL) + 100);
	assert_int_equal(git_index_write(r->idx), 0);
	assert_int_equal(git_index_open(&got, r->path), 0);
	assert_int_equal(find(got, "racy")->file_size, 7);   /* as written, not smudged yet */
	git_index_free(got);
	assert_int_equal(at_index_update(r->path, c, changes(r, c), &err), 0);
	assert_int_equal(git_index_open(&got, r->path), 0);
	assert_int_equal(find(got, "racy")->file_size, 0);
	assert_int_equal(find(got, "README")->file_size, 7);
	git_index_free(got);
}

static char *contents(const char *path, size_t *len)
{
	return at_read_file(path, 1 << 20, len);
}

static void test_update__declines_version_4_and_conflicts(void **state)
{
	struct repo *r = *state;
	struct at_error err = AT_ERROR_INIT;
	struct at_index_change c[4];
	git_index_entry e;
	AT_AUTOFREE char *before = NULL, *after = NULL, *before2 = NULL, *after2 = NULL;
	size_t lb, la;

	fill(r, 4);
	before = contents(r->path, &lb);
	assert_int_equal(at_index_update(r->path, c, changes(r, c), &err), AT_INDEX_DECLINED);
	after = contents(r->path, &la);
	assert_true(lb == la && memcmp(before, after, la) == 0);

	/* A conflict: a path at stage 2. */
	assert_int_equal(git_index_set_version(r->idx, 2), 0);
	memset(&e, 0, sizeof(e));
	e.path = "conflicted";
	e.mode = GIT_FILEMODE_BLOB;
	GIT_INDEX_ENTRY_STAGE_SET(&e, 2);
	blob(r, "ours", &e.id);
	assert_int_equal(git_index_add(r->idx, &e), 0);
	assert_int_equal(git_index_write(r->idx), 0);
	before2 = contents(r->path, &lb);
	assert_int_equal(at_index_update(r->path, c, changes(r, c), &err), AT_INDEX_DECLINED);
	after2 = contents(r->path, &la);
	assert_true(lb == la && memcmp(before2, after2, la) == 0);
	assert_int_not_equal(access(git_index_path(r->idx), F_OK), -1);
}

static void test_update__refuses_a_held_lock_and_leaves_it(void **state)
{
	struct repo *r = *state;
	struct at_error err = AT_ERROR_INIT;
	struct at_index_change c[4];
	char lock[PATH_MAX + 32];
	FILE *f;

	fill(r, 2);
	snprintf(lock, sizeof(lock), "%s.lock", r->path);
	assert_non_null(f = fopen(lock, "w"));
	fclose(f);
	assert_int_equal(at_index_update(r->path, c, changes(r, c), &err), AT_EBUSY);
	assert_int_equal(access(lock, F_OK), 0);   /* another process's: not removed */
	assert_non_null(strstr(err.msg, "index.lock"));
}

static void test_update__declines_changes_out_of_order(void **state)
{
	struct repo *r = *state;
	struct at_error err = AT_ERROR_INIT;
	struct at_index_change c[4], swap;

	fill(r, 2);
	changes(r, c);
	swap = c[0];
	c[0] = c[1];
	c[1] = swap;
	assert_int_equal(at_index_update(r->path, c, 4, &err), AT_INDEX_DECLINED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_update__is_what_libgit2_makes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_update__keeps_version_3_entries, setup, teardown),
		cmocka_unit_test_setup_teardown(test_update__smudges_a_racily_clean_entry, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_update__declines_version_4_and_conflicts, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_update__refuses_a_held_lock_and_leaves_it, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_update__declines_changes_out_of_order, setup,
						teardown),
	};
	int rc;

	git_libgit2_init();
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	git_libgit2_shutdown();
	return rc;
}
