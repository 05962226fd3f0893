/*
 * fuzz_index.c - the index reader (gitfmt/index_file.c) and, through it, the
 * cache-tree extension.
 *
 * The index is the task's: its worktree's index is written by git inside
 * the sandbox once git works there (issue 10), and is read on the host by
 * every diff, status and gate. The reader must never crash or read out of
 * bounds, must decline what it does not represent exactly, and whatever it
 * accepts must be exactly what libgit2 reads from the same file (libgit2
 * reads it on the slow path, and commits from it): otherwise the review
 * would show one index and accept merge another. So each accepted input is
 * given a valid checksum and read again by libgit2: it must read the same
 * entries, or refuse the file (an error, not another view of it: libgit2
 * 1.5 refuses some indexes git writes, such as a version 4 index with a
 * path of 4095 bytes or more).
 */
#include "tests/fuzz/fuzz.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>
#include <openssl/sha.h>

#include "gitfmt/index_file.h"

static char index_path[PATH_MAX];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	git_libgit2_init();
	snprintf(index_path, sizeof(index_path), "%s/index", at_fuzz_tmpdir());
	return 0;
}

/* What the reader promises of what it accepts. */
static void check_entries(const struct at_index *idx)
{
	size_t i, j;

	for (i = 0; i < idx->n; i++) {
		const char *path = idx->v[i].path, *slash;

		AT_FUZZ_CHECK(path && path[0]);
		AT_FUZZ_CHECK(i == 0 || strcmp(idx->v[i - 1].path, path) <= 0);
		/* As git reads it: a path's stages ascending, and a merged (0) one alone. */
		if (i > 0 && strcmp(idx->v[i - 1].path, path) == 0)
			AT_FUZZ_CHECK(GIT_INDEX_ENTRY_STAGE(&idx->v[i - 1]) != 0 &&
				      GIT_INDEX_ENTRY_STAGE(&idx->v[i - 1]) <
					      GIT_INDEX_ENTRY_STAGE(&idx->v[i]));
		/* The cache tree is looked up by each leading directory. */
		for (slash = strchr(path, '/'); slash; slash = strchr(slash + 1, '/'))
			at_cache_tree_find(idx->trees, idx->ntrees, path, (size_t)(slash - path));
	}
	for (j = 0; j < idx->ntrees; j++) {
		AT_FUZZ_CHECK(idx->trees[j].path && idx->trees[j].count >= -1);
		AT_FUZZ_CHECK(j == 0 || strcmp(idx->trees[j - 1].path, idx->trees[j].path) <= 0);
	}
}

static bool same_entry(const git_index_entry *a, const git_index_entry *b)
{
	return strcmp(a->path, b->path) == 0 && a->mode == b->mode &&
	       git_oid_equal(&a->id, &b->id) && a->file_size == b->file_size &&
	       a->flags == b->flags &&
	       (a->flags_extended & GIT_INDEX_ENTRY_EXTENDED_FLAGS) ==
		       (b->flags_extended & GIT_INDEX_ENTRY_EXTENDED_FLAGS) &&
	       a->ctime.seconds == b->ctime.seconds &&
	       a->ctime.nanoseconds == b->ctime.nanoseconds &&
	       a->mtime.seconds == b->mtime.seconds &&
	       a->mtime.nanoseconds == b->mtime.nanoseconds && a->dev == b->dev &&
	       a->ino == b->ino && a->uid == b->uid && a->gid == b->gid;
}

/* The same bytes with a valid trailing checksum, read by libgit2. */
static void check_against_libgit2(const uint8_t *data, size_t size, const struct at_index *idx)
{
	unsigned char *copy = malloc(size);
	git_index *gi = NULL;
	size_t i;

	AT_FUZZ_CHECK(copy != NULL);
	memcpy(copy, data, size);
	SHA1(copy, size - 20, copy + size - 20);
	at_fuzz_write_file(index_path, copy, size);
	free(copy);
	if (git_index_open(&gi, index_path) < 0) {
		git_error_clear();
		return;
	}
	AT_FUZZ_CHECK(git_index_entrycount(gi) == idx->n);
	for (i = 0; i < idx->n; i++)
		AT_FUZZ_CHECK(same_entry(git_index_get_byindex(gi, i), &idx->v[i]));
	git_index_free(gi);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct at_index idx;
	int rc = at_index_parse(data, size, &idx);

	AT_FUZZ_CHECK(rc == 0 || rc == AT_INDEX_DECLINED);
	if (rc != 0) {
		AT_FUZZ_CHECK(!idx.v && !idx.trees && !idx.paths);
		return 0;
	}
	check_entries(&idx);
	check_against_libgit2(data, size, &idx);
	at_index_free(&idx);
	return 0;
}
