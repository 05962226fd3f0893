/* Unit tests for core/copytree.c: a copy of a tree a task wrote. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "core/copytree.h"
#include "core/util.h"

struct fixture {
	char root[PATH_MAX], src[PATH_MAX], dst[PATH_MAX];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char tmpl[] = "/tmp/at-test-copytree.XXXXXX";

	if (!f || !mkdtemp(tmpl) || !realpath(tmpl, f->root) ||
	    at_fmt(f->src, sizeof(f->src), "%s/src", f->root) < 0 ||
	    at_fmt(f->dst, sizeof(f->dst), "%s/dst", f->root) < 0 || mkdir(f->src, 0755) < 0)
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[PATH_MAX + 64];

	if (at_fmt(cmd, sizeof(cmd), "rm -rf '%s'", f->root) < 0 || system(cmd) != 0)
		return -1;
	free(f);
	return 0;
}

static void path(char *buf, const char *dir, const char *rel)
{
	assert_int_equal(at_fmt(buf, PATH_MAX, "%s/%s", dir, rel), 0);
}

static void write_file(const char *dir, const char *rel, const char *text)
{
	char p[PATH_MAX];
	FILE *fp;

	path(p, dir, rel);
	assert_non_null(fp = fopen(p, "w"));
	fputs(text, fp);
	fclose(fp);
}

/* Files, modes, times, a link as a link, a FIFO made anew, a file linked twice linked again. */
static void test_copytree__copies_what_it_finds_as_it_is(void **state)
{
	struct fixture *f = *state;
	struct at_error err = AT_ERROR_INIT;
	char a[PATH_MAX], b[PATH_MAX], t[PATH_MAX];
	struct stat sa, sb, s1, s2;

	write_file(f->src, "file", "content");
	path(a, f->src, "file");
	assert_int_equal(chmod(a, 04751), 0);
	path(a, f->src, "dir");
	assert_int_equal(mkdir(a, 0750), 0);
	write_file(f->src, "dir/inner", "inner");
	path(a, f->src, "dir/inner");
	path(b, f->src, "dir/again");
	assert_int_equal(link(a, b), 0);
	path(a, f->src, "link");
	assert_int_equal(symlink("/etc/passwd", a), 0);
	path(a, f->src, "fifo");
	assert_int_equal(mkfifo(a, 0600), 0);

	assert_int_equal(at_copytree(f->src, f->dst, &err), 0);
	path(a, f->src, "file");
	path(b, f->dst, "file");
	assert_int_equal(stat(a, &sa), 0);
	assert_int_equal(stat(b, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0751);   /* no setuid bit */
	assert_int_equal(sb.st_mtim.tv_sec, sa.st_mtim.tv_sec);
	path(b, f->dst, "dir");
	assert_int_equal(stat(b, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0750);
	path(a, f->dst, "dir/inner");
	path(b, f->dst, "dir/again");
	assert_int_equal(stat(a, &s1), 0);
	assert_int_equal(stat(b, &s2), 0);
	assert_int_equal(s1.st_ino, s2.st_ino);
	assert_int_equal(s1.st_nlink, 2);
	path(a, f->dst, "link");
	assert_int_equal(readlink(a, t, sizeof(t)), (ssize_t)strlen("/etc/passwd"));
	path(a, f->dst, "fifo");
	assert_int_equal(lstat(a, &sa), 0);
	assert_true(S_ISFIFO(sa.st_mode));
}

/* An overlay upper's whiteouts and opaque directories mean the same in the copy. */
static void test_copytree__keeps_overlay_whiteouts_and_attributes(void **state)
{
	struct fixture *f = *state;
	struct at_error err = AT_ERROR_INIT;
	char a[PATH_MAX], v[8];
	struct stat st;

	path(a, f->src, "gone");
	if (mknod(a, S_IFCHR | 0000, makedev(0, 0)) < 0)
		skip();   /* a kernel without unprivileged whiteouts (before 5.8) */
	path(a, f->src, "opaque");
	assert_int_equal(mkdir(a, 0755), 0);
	if (setxattr(a, "user.overlay.opaque", "y", 1, 0) < 0)
		skip();   /* no user xattrs on this file system */
	assert_int_equal(at_copytree(f->src, f->dst, &err), 0);
	path(a, f->dst, "gone");
	assert_int_equal(lstat(a, &st), 0);
	assert_true(S_ISCHR(st.st_mode) && st.st_rdev == makedev(0, 0));
	path(a, f->dst, "opaque");
	assert_int_equal(getxattr(a, "user.overlay.opaque", v, sizeof(v)), 1);
	assert_int_equal(v[0], 'y');
}

/* Too deep to copy whole: refused, naming where, rather than cut silently. */
static void test_copytree__refuses_a_tree_too_deep(void **state)
{
	struct fixture *f = *state;
	struct at_error err = AT_ERROR_INIT;
	int i;

	assert_int_equal(chdir(f->src), 0);
	for (i = 0; i < AT_COPY_DEPTH + 2; i++)
		assert_true(mkdir("d", 0755) == 0 && chdir("d") == 0);
	assert_int_equal(chdir("/"), 0);
	assert_int_equal(at_copytree(f->src, f->dst, &err), AT_EUNSAFE);
	assert_non_null(strstr(err.msg, "too deep"));
}

/* The top given as a link is not followed. */
static void test_copytree__refuses_a_linked_top(void **state)
{
	struct fixture *f = *state;
	struct at_error err = AT_ERROR_INIT;
	char a[PATH_MAX];

	path(a, f->root, "top");
	assert_int_equal(symlink(f->src, a), 0);
	assert_int_equal(at_copytree(a, f->dst, &err), AT_ESYS);
	assert_false(access(f->dst, F_OK) == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_copytree__copies_what_it_finds_as_it_is, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_copytree__keeps_overlay_whiteouts_and_attributes,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_copytree__refuses_a_tree_too_deep, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_copytree__refuses_a_linked_top, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
