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

#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/util.h"
#include "sandbox/internal.h"

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
		s->etc = at_sandbox_etc_start();
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
	at_sandbox_etc_free(early.etc);
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
	at_sandbox_etc_free(s.etc);
	at_sandbox_spec_release(&s);
}

/* A walk begun and never handed to a spec is waited for and freed; NULL is accepted. */
static void test_an_unused_walk_is_freed(void **state)
{
	(void)state;
	at_sandbox_etc_free(at_sandbox_etc_start());
	at_sandbox_etc_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_entry_not_world_readable_is_covered_both_ways),
		cmocka_unit_test(test_shadow_is_covered_by_an_empty_file),
		cmocka_unit_test(test_an_unused_walk_is_freed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
