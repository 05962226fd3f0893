/*
 * Unit tests for app/layout.c's check of --ro/--rw paths: nothing of git's
 * metadata or agenttask's state is ever bound, the .git pointer and the
 * common dir never writable, no symbolic link on the way.
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
#include <unistd.h>

#include "app/internal.h"
#include "core/fs.h"

struct tree {
	char root[PATH_MAX], common[PATH_MAX], state_dir[PATH_MAX], wt[PATH_MAX], ptr[PATH_MAX + 8];
	char other[PATH_MAX], outside[PATH_MAX], link[PATH_MAX], config[PATH_MAX + 8];
	struct at_app_layout l;
};

static __attribute__((noinline)) void join(char *dst, size_t size, const char *a, const char *b)
{
	snprintf(dst, size, "%s%s", a, b);
}

static int touch(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

	return fd < 0 ? -1 : close(fd);
}

static int tree_setup(void **state)
{
	struct tree *t = calloc(1, sizeof(*t));
	char tmpl[] = "/tmp/at-test-sbopts.XXXXXX";
	char cmd[PATH_MAX];
	struct at_error err = AT_ERROR_INIT;

	if (!t || !mkdtemp(tmpl) || !realpath(tmpl, t->root))
		return -1;
	join(t->common, sizeof(t->common), t->root, "/repo/.git");
	join(t->state_dir, sizeof(t->state_dir), t->common, "/agenttask");
	join(t->wt, sizeof(t->wt), t->state_dir, "/worktrees/t1");
	join(t->other, sizeof(t->other), t->state_dir, "/worktrees/t2");
	join(t->ptr, sizeof(t->ptr), t->wt, "/.git");
	join(t->config, sizeof(t->config), t->common, "/config");
	join(t->outside, sizeof(t->outside), t->root, "/outside");
	join(t->link, sizeof(t->link), t->root, "/link");
	join(cmd, sizeof(cmd), t->outside, "/src");
	if (at_mkdirs(t->wt, 0755, &err) < 0 || at_mkdirs(t->other, 0755, &err) < 0 ||
	    at_mkdirs(cmd, 0755, &err) < 0 || touch(t->ptr) < 0 || touch(t->config) < 0 ||
	    symlink(t->outside, t->link) < 0)
		return -1;
	memcpy(t->l.worktree, t->wt, sizeof(t->l.worktree));
	memcpy(t->l.pointer, t->ptr, sizeof(t->l.pointer));
	memcpy(t->l.common, t->common, sizeof(t->l.common));
	memcpy(t->l.state, t->state_dir, sizeof(t->l.state));
	*state = t;
	return 0;
}

static int tree_teardown(void **state)
{
	struct tree *t = *state;
	struct at_error err = AT_ERROR_INIT;

	at_rmtree(t->root, &err);
	free(t);
	return 0;
}

static int check(struct tree *t, const char *path, bool writable)
{
	struct at_error err = AT_ERROR_INIT;

	return at_app_check_bind(&t->l, writable ? "--rw" : "--ro", path, writable, &err);
}

static void test_bind__refuses_git_metadata_and_state(void **state)
{
	struct tree *t = *state;
	char path[PATH_MAX + 16];

	assert_int_equal(check(t, t->common, true), AT_EUSAGE);
	assert_int_equal(check(t, t->common, false), AT_EUSAGE);
	assert_int_equal(check(t, t->config, false), AT_EUSAGE);
	assert_int_equal(check(t, t->state_dir, false), AT_EUSAGE);
	assert_int_equal(check(t, t->other, false), AT_EUSAGE);
	assert_int_equal(check(t, t->ptr, true), AT_EUSAGE);
	/* A parent of the git dir: never writable; read-only is overlaid. */
	snprintf(path, sizeof(path), "%s/repo", t->root);
	assert_int_equal(check(t, path, true), AT_EUSAGE);
	assert_int_equal(check(t, path, false), 0);
	assert_int_equal(check(t, "/", true), AT_EUSAGE);
	/* Inside the worktree: fine. */
	assert_int_equal(check(t, t->wt, false), 0);
	assert_int_equal(check(t, t->ptr, false), 0);
}

static void test_bind__refuses_missing_relative_and_symlinked(void **state)
{
	struct tree *t = *state;
	char path[PATH_MAX + 16];

	assert_int_equal(check(t, t->outside, true), 0);
	assert_int_equal(check(t, t->link, true), AT_EUSAGE);
	assert_int_equal(check(t, t->link, false), AT_EUSAGE);
	snprintf(path, sizeof(path), "%s/src", t->link);
	assert_int_equal(check(t, path, true), AT_EUSAGE);
	snprintf(path, sizeof(path), "%s/missing", t->root);
	assert_int_equal(check(t, path, false), AT_EUSAGE);
	assert_int_equal(check(t, "relative/path", false), AT_EUSAGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_bind__refuses_git_metadata_and_state,
						tree_setup, tree_teardown),
		cmocka_unit_test_setup_teardown(test_bind__refuses_missing_relative_and_symlinked,
						tree_setup, tree_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
