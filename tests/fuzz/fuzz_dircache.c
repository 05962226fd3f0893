/*
 * fuzz_dircache.c - the scan's directory cache file (gitfmt/dircache.c, loaded and saved by git/dircache_store.c).
 *
 * The cache lives in the state directory, hidden from the sandbox, but a
 * file damaged by a crash, a full disk or another version must be ignored,
 * never trusted in part. What at_dircache_load() accepts must be what
 * at_dircache_save() could have written: records sorted by prefix, names
 * that are one path component each; and saved again, it must load back the
 * same. The harness goes through the public load and save (a file in a
 * private directory), so it survives changes to the format.
 */
#include "tests/fuzz/fuzz.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "git/dircache_store.h"

static char in_path[PATH_MAX], out_path[PATH_MAX];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	snprintf(in_path, sizeof(in_path), "%s/in.scan", at_fuzz_tmpdir());
	snprintf(out_path, sizeof(out_path), "%s/out.scan", at_fuzz_tmpdir());
	return 0;
}

static void check_names(const struct at_dircache_dir *d)
{
	const char *p = d->names, *end = d->names + d->names_len;

	while (p < end) {
		const char *nul = memchr(p, '\0', (size_t)(end - p));

		AT_FUZZ_CHECK(nul && nul > p + 1 && (p[0] == 'f' || p[0] == 'd'));
		AT_FUZZ_CHECK(!memchr(p + 1, '/', (size_t)(nul - p - 1)));
		AT_FUZZ_CHECK(strcmp(p + 1, ".") != 0 && strcmp(p + 1, "..") != 0);
		p = nul + 1;
	}
}

static void check_trusted(const struct at_dircache *c, const struct at_dircache_dir *d)
{
	const struct at_dircache_dir *got;
	struct stat st;
	bool old_enough;

	memset(&st, 0, sizeof(st));
	st.st_ctim = d->ctime;
	st.st_mtim = d->mtime;
	st.st_ino = (ino_t)d->ino;
	st.st_dev = (dev_t)d->dev;
	got = at_dircache_trusted(c, d->prefix, &st);
	/* More than a second before the scan began (both times are >= 0). */
	old_enough = d->ctime.tv_sec < c->scanned.tv_sec - 1 ||
		     (d->ctime.tv_sec == c->scanned.tv_sec - 1 &&
		      d->ctime.tv_nsec < c->scanned.tv_nsec);
	AT_FUZZ_CHECK(got == (old_enough ? d : NULL));
	st.st_ctim.tv_nsec ^= 1;   /* a directory changed since: never trusted */
	AT_FUZZ_CHECK(at_dircache_trusted(c, d->prefix, &st) == NULL);
}

static bool same_dir(const struct at_dircache_dir *a, const struct at_dircache_dir *b)
{
	return strcmp(a->prefix, b->prefix) == 0 && a->ctime.tv_sec == b->ctime.tv_sec &&
	       a->ctime.tv_nsec == b->ctime.tv_nsec && a->mtime.tv_sec == b->mtime.tv_sec &&
	       a->mtime.tv_nsec == b->mtime.tv_nsec && a->ino == b->ino && a->dev == b->dev &&
	       a->names_len == b->names_len && memcmp(a->names, b->names, a->names_len) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct at_dircache c, again;
	size_t i;

	at_fuzz_write_file(in_path, data, size);
	at_dircache_load(in_path, &c);
	for (i = 0; i < c.n; i++) {
		AT_FUZZ_CHECK(c.v[i].prefix && c.v[i].names);
		AT_FUZZ_CHECK(i == 0 || strcmp(c.v[i - 1].prefix, c.v[i].prefix) < 0);
		AT_FUZZ_CHECK(c.v[i].ctime.tv_nsec >= 0 && c.v[i].ctime.tv_nsec < 1000000000L);
		AT_FUZZ_CHECK(c.v[i].mtime.tv_nsec >= 0 && c.v[i].mtime.tv_nsec < 1000000000L);
		check_names(&c.v[i]);
		check_trusted(&c, &c.v[i]);
	}
	if (c.n) {
		at_dircache_save(out_path, &c.scanned, c.v, c.n);
		at_dircache_load(out_path, &again);
		AT_FUZZ_CHECK(again.n == c.n && again.scanned.tv_sec == c.scanned.tv_sec &&
			      again.scanned.tv_nsec == c.scanned.tv_nsec);
		for (i = 0; i < c.n; i++)
			AT_FUZZ_CHECK(same_dir(&c.v[i], &again.v[i]));
		at_dircache_free(&again);
	}
	at_dircache_free(&c);
	return 0;
}
