/*
 * Unit tests for sandbox/etc.c: /etc as an ordinary user sees it. The
 * attacker is a command that reads what the host's /etc keeps from ordinary
 * users (shadow, ssh host keys, ssl/private, a NetworkManager connection):
 * every entry of the host's /etc that is not world-readable must be covered
 * by a mount of the spec, whichever way the walk ran (on its own thread,
 * begun early, or when the spec was built), and both ways must plan the
 * same mounts. The oracle is nftw(3) over the same /etc, links not followed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/fs.h"
#include "core/util.h"
#include "sandbox/internal.h"

#include "../clock.h"

static struct at_strlist hidden;   /* what nftw finds that an ordinary user cannot read */

static bool readable(const struct stat *st)
{
	if (S_ISDIR(st->st_mode))
		return (st->st_mode & (S_IROTH | S_IXOTH)) == (S_IROTH | S_IXOTH);
	return S_ISREG(st->st_mode) && (st->st_mode & S_IROTH);
}

static int oracle(const char *path, const struct stat *st, int type, struct FTW *f)
{
	(void)f;
	if (type == FTW_SL || type == FTW_SLN || strcmp(path, "/etc") == 0)
		return FTW_CONTINUE;
	if (type == FTW_DNR || type == FTW_NS || !readable(st)) {
		at_strlist_push(&hidden, path);
		return type == FTW_D ? FTW_SKIP_SUBTREE : FTW_CONTINUE;
	}
	return FTW_CONTINUE;
}

static void plan(struct at_sandbox_spec *s, bool early)
{
	at_sandbox_spec_init(s);
	if (early)
		s->proc.etc = at_sandbox_etc_start(NULL);
	assert_int_equal(at_sandbox_add_system(s), 0);
}

static bool covered(const struct at_sandbox_spec *s, const char *path)
{
	size_t i;

	for (i = 0; i < s->nmounts; i++)
		if (strcmp(s->mounts[i].dest, path) == 0 && s->mounts[i].kind != AT_MOUNT_BIND)
			return true;
	return false;
}

static void test_every_entry_not_world_readable_is_covered_both_ways(void **state)
{
	struct at_sandbox_spec now, early;
	size_t i;

	(void)state;
	at_strlist_release(&hidden);
	assert_int_equal(nftw("/etc", oracle, 32, FTW_PHYS | FTW_ACTIONRETVAL), 0);
	plan(&now, false);
	plan(&early, true);
	for (i = 0; i < hidden.n; i++) {
		if (!covered(&now, hidden.v[i]) || !covered(&early, hidden.v[i]))
			fail_msg("'%s' is not world-readable and not covered", hidden.v[i]);
	}
	/* The same plan, mount for mount, in the same order. */
	assert_int_equal(now.nmounts, early.nmounts);
	for (i = 0; i < now.nmounts; i++) {
		assert_int_equal(now.mounts[i].kind, early.mounts[i].kind);
		assert_int_equal(now.mounts[i].flags, early.mounts[i].flags);
		assert_string_equal(now.mounts[i].dest, early.mounts[i].dest);
	}
	at_sandbox_etc_free(early.proc.etc);
	at_sandbox_spec_release(&now);
	at_sandbox_spec_release(&early);
	at_strlist_release(&hidden);
}

/* /etc/shadow is the case the issue names: covered by an empty file, for root inside too. */
static void test_shadow_is_covered_by_an_empty_file(void **state)
{
	struct at_sandbox_spec s;
	struct stat st;
	size_t i;
	bool found = false;

	(void)state;
	if (lstat("/etc/shadow", &st) < 0 || readable(&st))
		skip();
	plan(&s, true);
	for (i = 0; i < s.nmounts; i++)
		if (strcmp(s.mounts[i].dest, "/etc/shadow") == 0) {
			assert_int_equal(s.mounts[i].kind, AT_MOUNT_BIND_DATA);
			assert_int_equal(s.mounts[i].len, 0);
			found = true;
		}
	assert_true(found);
	at_sandbox_etc_free(s.proc.etc);
	at_sandbox_spec_release(&s);
}

/* A walk begun and never handed to a spec is waited for and freed; NULL is accepted. */
static void test_an_unused_walk_is_freed(void **state)
{
	(void)state;
	at_sandbox_etc_free(at_sandbox_etc_start(NULL));
	at_sandbox_etc_free(NULL);
}

/*
 * The listings' cache (sandbox.h), on a tree of our own standing for /etc.
 * The attacker is whatever changes /etc between two runs (an
 * administrator's chmod, a new secret file, a mount over a directory, a
 * cache file cut short): each must be covered on the next walk exactly as
 * a walk without the cache covers it.
 */
struct tree {
	char root[64], cache[96];
};

static void mk(const char *root, const char *rel, mode_t mode, bool dir)
{
	char p[PATH_MAX];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	if (dir) {
		assert_int_equal(mkdir(p, mode), 0);
	} else {
		assert_true((fd = open(p, O_WRONLY | O_CREAT | O_EXCL, mode)) >= 0);
		close(fd);
	}
	assert_int_equal(chmod(p, mode), 0);
}

/* Listings are reused only for directories that had not changed just before. */
static void settle(void)
{
	clock_settle(2);
}

static void tree_make(struct tree *t)
{
	char link[PATH_MAX];

	clock_reset();
	snprintf(t->root, sizeof(t->root), "/tmp/at-test-etc.XXXXXX");
	assert_non_null(mkdtemp(t->root));
	assert_int_equal(chmod(t->root, 0755), 0);
	snprintf(t->cache, sizeof(t->cache), "%s.listings", t->root);
	mk(t->root, "open", 0644, false);
	mk(t->root, "secret", 0600, false);
	mk(t->root, "d", 0755, true);
	mk(t->root, "d/x", 0640, false);
	mk(t->root, "d/y", 0644, false);
	mk(t->root, "d/e", 0755, true);
	mk(t->root, "d/e/z", 0644, false);
	mk(t->root, "private", 0750, true);
	mk(t->root, "private/key", 0644, false);
	snprintf(link, sizeof(link), "%s/d/l", t->root);
	assert_int_equal(symlink("/etc/shadow", link), 0);
	settle();
}

static void tree_free(struct tree *t)
{
	struct at_error err = AT_ERROR_INIT;

	assert_int_equal(at_rmtree(t->root, &err), 0);
	unlink(t->cache);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* What a walk of t finds, sorted, joined by spaces, the root shown as R ("fR/secret"). */
static char *walked(const struct tree *t, const char *cache, size_t *listed)
{
	struct at_sandbox_etc *e = at_sb_etc_start_at(t->root, cache);
	const struct at_strlist *found;
	size_t i, n = strlen(t->root), used = 0;
	char **v, *out = calloc(1, 4096);

	assert_non_null(e);
	found = at_sb_etc_found(e, listed);
	assert_non_null(v = calloc(found->n + 1, sizeof(*v)));
	assert_non_null(out);
	for (i = 0; i < found->n; i++)
		v[i] = found->v[i];
	qsort(v, found->n, sizeof(*v), by_name);
	for (i = 0; i < found->n; i++) {
		assert_int_equal(strncmp(v[i] + 1, t->root, n), 0);
		used += (size_t)snprintf(out + used, 4096 - used, "%s%cR%s", i ? " " : "", v[i][0],
					 v[i] + 1 + n);
	}
	free(v);
	at_sandbox_etc_free(e);
	return out;
}

/* A walk with the cache: what it finds (the same as without), and how many it listed anew. */
static void expect_walk(const struct tree *t, const char *want, size_t want_listed)
{
	size_t listed, fresh_listed;
	char *got = walked(t, t->cache, &listed), *fresh = walked(t, NULL, &fresh_listed);

	assert_string_equal(fresh, want);
	assert_string_equal(got, fresh);
	assert_int_equal(listed, want_listed);
	free(got);
	free(fresh);
}

#define FOUND "dR/private fR/d/x fR/secret"

static void test_listings_are_reused_and_find_the_same(void **state)
{
	struct tree t;

	(void)state;
	tree_make(&t);
	expect_walk(&t, FOUND, 3);   /* no cache yet: the three directories walked are listed */
	expect_walk(&t, FOUND, 0);   /* then none is */
	tree_free(&t);
}

static void test_a_chmod_is_seen_at_once(void **state)
{
	char p[PATH_MAX];
	struct tree t;

	(void)state;
	tree_make(&t);
	expect_walk(&t, FOUND, 3);
	snprintf(p, sizeof(p), "%s/d/y", t.root);
	assert_int_equal(chmod(p, 0600), 0);
	snprintf(p, sizeof(p), "%s/d/e", t.root);
	assert_int_equal(chmod(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/secret", t.root);
	assert_int_equal(chmod(p, 0644), 0);
	/* A chmod changes no listing: none is listed anew, and each mode is read as it is now. */
	expect_walk(&t, "dR/d/e dR/private fR/d/x fR/d/y", 0);
	tree_free(&t);
}

static void test_a_new_entry_is_listed_anew_until_its_directory_settles(void **state)
{
	struct tree t;

	(void)state;
	tree_make(&t);
	expect_walk(&t, FOUND, 3);
	mk(t.root, "d/e/new-secret", 0600, false);
	expect_walk(&t, "dR/private fR/d/e/new-secret fR/d/x fR/secret", 1);
	/* Changed just before its listing: a change in the same clock tick could keep its times. */
	expect_walk(&t, "dR/private fR/d/e/new-secret fR/d/x fR/secret", 1);
	settle();
	expect_walk(&t, "dR/private fR/d/e/new-secret fR/d/x fR/secret", 1);
	expect_walk(&t, "dR/private fR/d/e/new-secret fR/d/x fR/secret", 0);
	tree_free(&t);
}

/* A mount over a directory changes nothing of its parent: its device and inode are another's. */
static void test_a_directory_mounted_over_is_listed_anew(void **state)
{
	char p[PATH_MAX];
	struct tree t;

	(void)state;
	if (geteuid() != 0)
		skip();
	tree_make(&t);
	expect_walk(&t, FOUND, 3);
	snprintf(p, sizeof(p), "%s/d/e", t.root);
	assert_int_equal(mount("none", p, "tmpfs", 0, "mode=0755"), 0);
	mk(t.root, "d/e/mounted-secret", 0600, false);
	expect_walk(&t, "dR/private fR/d/e/mounted-secret fR/d/x fR/secret", 1);
	assert_int_equal(umount(p), 0);
	tree_free(&t);
}

/* The file as the last walk wrote it, changed by f; then a walk. */
static void expect_no_cache(const struct tree *t, void (*f)(char *text, size_t *len))
{
	size_t len = 0;
	char *text, *read;
	int fd;

	expect_walk(t, FOUND, 0);
	assert_non_null(read = at_read_file(t->cache, 1 << 20, &len));
	/* Room for what f adds (a_number_past_64_bits: at most 20 bytes). */
	assert_non_null(text = malloc(len + 64));
	memcpy(text, read, len);
	free(read);
	f(text, &len);
	assert_true((fd = open(t->cache, O_WRONLY | O_TRUNC)) >= 0);
	assert_int_equal(at_write_all(fd, text, len), 0);
	close(fd);
	free(text);
	expect_walk(t, FOUND, 3);   /* listed as without a cache, and the file written anew */
}

static void cut_its_end(char *text, size_t *len)
{
	(void)text;
	*len -= 1;   /* the last directory's listing without its end */
}

static void cut_in_half(char *text, size_t *len)
{
	(void)text;
	*len /= 2;
}

static void another_format(char *text, size_t *len)
{
	(void)len;
	text[strlen("agenttask etc listings ")] = '9';
}

static void a_name_with_a_slash(char *text, size_t *len)
{
	size_t i;

	for (i = 1; i + 3 < *len; i++)
		if (memcmp(text + i - 1, "\0fy\0", 4) == 0) {
			text[i + 1] = '/';
			return;
		}
	fail_msg("no entry 'y' in the listings");
}

/* The first directory's head ("D<dev> <ino> ..."), changed by what follows. */
static char *first_head(char *text, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i++)
		if (text[i] == '\0' && text[i + 1] == 'D')
			return text + i + 1;
	fail_msg("no directory in the listings");
	return NULL;
}

static void a_negative_device(char *text, size_t *len)
{
	char *h = first_head(text, *len);

	memmove(h + 2, h + 1, *len - (size_t)(h + 1 - text));
	h[1] = '-';
	(*len)++;
}

static void a_number_past_64_bits(char *text, size_t *len)
{
	char *h = first_head(text, *len), *sp = strchr(h, ' ');
	const char *big = "99999999999999999999";   /* 2^64 is 18446744073709551616 */
	size_t old = (size_t)(sp - (h + 1)), n = strlen(big);

	assert_true(n >= old);
	memmove(h + 1 + n, sp, *len - (size_t)(sp - text));
	memcpy(h + 1, big, n);
	*len += n - old;
}

static void two_spaces(char *text, size_t *len)
{
	char *sp = strchr(first_head(text, *len), ' ');

	memmove(sp + 1, sp, *len - (size_t)(sp - text));
	(*len)++;
}

static void a_racy_flag_of_two(char *text, size_t *len)
{
	char *p = first_head(text, *len);
	int i;

	for (i = 0; i < 7; i++)
		p = strchr(p, ' ') + 1;
	/* p is past the racy flag's space: the flag is the character before it. */
	assert_true(p[-2] == '0' || p[-2] == '1');
	p[-2] = '2';
	(void)len;
}

static void test_a_cut_or_garbled_cache_is_no_cache(void **state)
{
	struct tree t;

	(void)state;
	tree_make(&t);
	expect_walk(&t, FOUND, 3);
	expect_no_cache(&t, cut_its_end);
	expect_no_cache(&t, cut_in_half);
	expect_no_cache(&t, another_format);
	expect_no_cache(&t, a_name_with_a_slash);
	/* A head the walk would not write, though a lax reader (sscanf) took some. */
	expect_no_cache(&t, a_negative_device);
	expect_no_cache(&t, a_number_past_64_bits);
	expect_no_cache(&t, two_spaces);
	expect_no_cache(&t, a_racy_flag_of_two);
	tree_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_entry_not_world_readable_is_covered_both_ways),
		cmocka_unit_test(test_shadow_is_covered_by_an_empty_file),
		cmocka_unit_test(test_an_unused_walk_is_freed),
		cmocka_unit_test(test_listings_are_reused_and_find_the_same),
		cmocka_unit_test(test_a_chmod_is_seen_at_once),
		cmocka_unit_test(test_a_new_entry_is_listed_anew_until_its_directory_settles),
		cmocka_unit_test(test_a_directory_mounted_over_is_listed_anew),
		cmocka_unit_test(test_a_cut_or_garbled_cache_is_no_cache),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
