/*
 * Unit tests for core/gitlayer.c: the task's git view read from the host.
 * The attacker wrote the upper directory: a link or a fifo where a ref
 * should be must be refused, never followed or opened for reading; and the
 * overlay's own markers (a whiteout, an opaque directory) must be read as
 * overlayfs reads them, or the import would take a ref the task deleted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "core/fs.h"
#include "core/gitlayer.h"
#include "core/util.h"

#define A "0123456789abcdef0123456789abcdef01234567"
#define B "89abcdef0123456789abcdef0123456789abcdef"

struct fixture {
	char root[PATH_MAX];
	struct at_gitlayer g;
};

static void put(const char *root, const char *layer, const char *rel, const char *text)
{
	char path[PATH_MAX + 64], dir[PATH_MAX + 64], *slash;
	struct at_error err = AT_ERROR_INIT;
	int fd;

	snprintf(path, sizeof(path), "%s/%s/%s", root, layer, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	*slash = '\0';
	assert_int_equal(at_mkdirs(dir, 0755, &err), 0);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(at_write_all(fd, text, strlen(text)), 0);
	close(fd);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char tmpl[] = "/tmp/at-test-gitlayer.XXXXXX", p[PATH_MAX + 16];

	if (!f || !mkdtemp(tmpl) || !realpath(tmpl, f->root))
		return -1;
	snprintf(p, sizeof(p), "%s/upper", f->root);
	mkdir(p, 0755);
	f->g.upper = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	snprintf(p, sizeof(p), "%s/lower", f->root);
	mkdir(p, 0755);
	f->g.lower = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	put(f->root, "lower", "worktrees/w/HEAD", "ref: refs/heads/t\n");
	put(f->root, "lower", "refs/heads/t", A "\n");
	*state = f;
	return f->g.upper >= 0 && f->g.lower >= 0 ? 0 : -1;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	struct at_error err = AT_ERROR_INIT;

	close(f->g.upper);
	close(f->g.lower);
	at_rmtree(f->root, &err);
	free(f);
	return 0;
}

static void expect_head(struct fixture *f, int want_rc, const char *want_hex)
{
	struct at_error err = AT_ERROR_INIT;
	char ref[256], hex[AT_OID_HEXSZ + 1];
	struct at_oid id;
	int rc = at_gitlayer_head(&f->g, "worktrees/w", &id, ref, sizeof(ref), &err);

	assert_int_equal(rc, want_rc);
	if (want_hex) {
		at_oid_fmt(hex, &id);
		assert_string_equal(hex, want_hex);
	}
}

static void test_gitlayer__lower_shows_through_and_upper_wins(void **state)
{
	struct fixture *f = *state;

	expect_head(f, 0, A);
	put(f->root, "upper", "refs/heads/t", B "\n");
	expect_head(f, 0, B);
}

static void test_gitlayer__packed_refs_of_the_upper(void **state)
{
	struct fixture *f = *state;
	char p[PATH_MAX + 64];

	/* Loose ref deleted inside (a whiteout), the value in the upper's packed-refs. */
	put(f->root, "upper", "packed-refs", "# pack-refs with: peeled\n" B " refs/heads/t\n");
	snprintf(p, sizeof(p), "%s/upper/refs/heads/t", f->root);
	put(f->root, "upper", "refs/heads/.keep", "");
	if (mknod(p, S_IFCHR | 0000, makedev(0, 0)) < 0)
		skip();   /* whiteouts need CAP_MKNOD outside a user namespace */
	expect_head(f, 0, B);
}

static void test_gitlayer__opaque_directory_hides_the_lower(void **state)
{
	struct fixture *f = *state;
	char p[PATH_MAX + 64];

	put(f->root, "upper", "refs/heads/other", B "\n");
	snprintf(p, sizeof(p), "%s/upper/refs", f->root);
	if (setxattr(p, "user.overlay.opaque", "y", 1, 0) < 0)
		skip();
	/* refs/ replaced wholesale inside: the branch is gone, HEAD unborn. */
	expect_head(f, 1, NULL);
}

static void test_gitlayer__links_and_fifos_are_refused(void **state)
{
	struct fixture *f = *state;
	char p[PATH_MAX + 64], target[PATH_MAX + 64];

	snprintf(target, sizeof(target), "%s/lower/refs/heads/t", f->root);
	snprintf(p, sizeof(p), "%s/upper/refs/heads", f->root);
	put(f->root, "upper", "refs/heads/.keep", "");
	snprintf(p, sizeof(p), "%s/upper/refs/heads/t", f->root);
	assert_int_equal(symlink(target, p), 0);
	expect_head(f, AT_ECORRUPT, NULL);
	unlink(p);
	assert_int_equal(mkfifo(p, 0644), 0);
	expect_head(f, AT_ECORRUPT, NULL);   /* and it did not block */
	unlink(p);
	/* A link as a directory on the way. */
	snprintf(p, sizeof(p), "%s/upper/worktrees", f->root);
	snprintf(target, sizeof(target), "%s/lower/worktrees", f->root);
	assert_int_equal(symlink(target, p), 0);
	expect_head(f, AT_ECORRUPT, NULL);   /* the link hides the lower's, and is not followed */
}

/*
 * The lower read straight when the upper has nothing of the path's first
 * component: still no link followed on the way, no FIFO opened.
 */
static void test_gitlayer__lower_read_straight_follows_no_link(void **state)
{
	struct fixture *f = *state;
	char p[PATH_MAX + 64], target[PATH_MAX + 64];

	put(f->root, "upper", "config", "");
	expect_head(f, 0, A);
	snprintf(p, sizeof(p), "%s/lower/refs/heads/t", f->root);
	unlink(p);
	assert_int_equal(mkfifo(p, 0644), 0);
	expect_head(f, AT_ECORRUPT, NULL);   /* and it did not block */
	unlink(p);
	put(f->root, "elsewhere", "heads/t", B "\n");
	snprintf(target, sizeof(target), "%s/elsewhere/heads", f->root);
	snprintf(p, sizeof(p), "%s/lower/refs/heads", f->root);
	assert_int_equal(rmdir(p), 0);
	assert_int_equal(symlink(target, p), 0);
	expect_head(f, 1, NULL);   /* the link is no directory: the branch is unborn */
}

static void test_gitlayer__malformed_refs(void **state)
{
	struct fixture *f = *state;
	struct at_oid id;
	const char *target;
	char text[128];

	put(f->root, "upper", "refs/heads/t", "ref: refs/heads/t\n");
	expect_head(f, AT_ECORRUPT, NULL);   /* a loop, stopped */
	put(f->root, "upper", "refs/heads/t", "0123\n");
	expect_head(f, AT_ECORRUPT, NULL);
	put(f->root, "upper", "worktrees/w/HEAD", "ref: refs/heads/../../x\n");
	expect_head(f, AT_ECORRUPT, NULL);
	snprintf(text, sizeof(text), "ref: refs/heads/a b\n");
	assert_int_equal(at_gitlayer_parse_ref(text, strlen(text), &id, &target), -1);
	assert_int_equal(at_gitlayer_packed_lookup("zz refs/heads/t\n", 16, "refs/heads/t", &id), -1);
}

static void test_gitlayer__packed_drop_takes_out_a_prefix_with_its_peeled_lines(void **state)
{
	char text[1024], want[1024];
	const char *a = "1111111111111111111111111111111111111111";
	const char *b = "2222222222222222222222222222222222222222";
	size_t n;

	(void)state;
	snprintf(text, sizeof(text),
		 "# pack-refs with: peeled fully-peeled sorted \n%s refs/agenttask/checkpoints/t/1\n"
		 "%s refs/heads/main\n%s refs/tags/v1\n^%s\n%s refs/agenttask/trash/t/1.2\n^%s\n"
		 "%s refs/agenttasks\n%s refs/agenttask/x",
		 a, b, a, b, a, b, a, a);
	snprintf(want, sizeof(want),
		 "# pack-refs with: peeled fully-peeled sorted \n%s refs/heads/main\n%s refs/tags/v1\n"
		 "^%s\n%s refs/agenttasks\n", b, a, b, a);
	n = at_gitlayer_packed_drop(text, strlen(text), "refs/agenttask/");
	assert_int_equal(n, strlen(want));
	assert_memory_equal(text, want, n);
	assert_int_equal(at_gitlayer_packed_drop(text, 0, "refs/agenttask/"), 0);
}

static void test_gitlayer__is_dir_as_the_overlay_shows_it(void **state)
{
	struct fixture *f = *state;
	char p[PATH_MAX + 64], target[PATH_MAX + 64];

	put(f->root, "lower", "src/deep/file", "x");
	put(f->root, "upper", "new/file", "x");
	put(f->root, "upper", "src/mine", "x");
	assert_true(at_gitlayer_is_dir(&f->g, ""));
	assert_true(at_gitlayer_is_dir(&f->g, "src/deep"));   /* the lower's, below an upper dir */
	assert_true(at_gitlayer_is_dir(&f->g, "new"));
	assert_false(at_gitlayer_is_dir(&f->g, "new/file"));   /* a file */
	assert_false(at_gitlayer_is_dir(&f->g, "nosuch"));
	/* A link the agent planted, to a directory outside: never followed. */
	snprintf(target, sizeof(target), "%s/lower", f->root);
	snprintf(p, sizeof(p), "%s/upper/evil", f->root);
	assert_int_equal(symlink(target, p), 0);
	assert_false(at_gitlayer_is_dir(&f->g, "evil"));
	assert_false(at_gitlayer_is_dir(&f->g, "evil/src"));
	/* A file of the upper over the lower's directory hides it. */
	put(f->root, "lower", "gone/sub/x", "x");
	put(f->root, "upper", "gone", "now a file");
	assert_false(at_gitlayer_is_dir(&f->g, "gone/sub"));
	/* An opaque directory hides the lower's below it. */
	snprintf(p, sizeof(p), "%s/upper/src", f->root);
	if (setxattr(p, "user.overlay.opaque", "y", 1, 0) < 0)
		skip();
	assert_false(at_gitlayer_is_dir(&f->g, "src/deep"));
	assert_true(at_gitlayer_is_dir(&f->g, "src"));
}

#define TEST(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(test_gitlayer__lower_shows_through_and_upper_wins),
		TEST(test_gitlayer__packed_refs_of_the_upper),
		TEST(test_gitlayer__opaque_directory_hides_the_lower),
		TEST(test_gitlayer__links_and_fifos_are_refused),
		TEST(test_gitlayer__lower_read_straight_follows_no_link),
		TEST(test_gitlayer__malformed_refs),
		TEST(test_gitlayer__packed_drop_takes_out_a_prefix_with_its_peeled_lines),
		TEST(test_gitlayer__is_dir_as_the_overlay_shows_it),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
