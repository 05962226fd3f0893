/* Unit tests for sandbox/opts.c: sizes, counts, durations, environment, binds. */
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

#include "core/fs.h"
#include "sandbox/sandbox.h"

static uint64_t size_ok(const char *s)
{
	struct at_error err = AT_ERROR_INIT;
	uint64_t v = 0;

	assert_int_equal(at_sandbox_parse_size(s, &v, &err), 0);
	return v;
}

static void size_bad(const char *s)
{
	struct at_error err = AT_ERROR_INIT;
	uint64_t v = 12345;

	assert_int_equal(at_sandbox_parse_size(s, &v, &err), AT_EUSAGE);
	assert_int_equal(v, 12345);
	assert_non_null(strstr(err.msg, "invalid size"));
}

static void test_opts__size_takes_binary_suffixes(void **state)
{
	(void)state;
	assert_int_equal(size_ok("4096"), 4096);
	assert_int_equal(size_ok("100K"), 100 << 10);
	assert_int_equal(size_ok("512M"), 512ULL << 20);
	assert_int_equal(size_ok("512m"), 512ULL << 20);
	assert_int_equal(size_ok("2G"), 2ULL << 30);
	assert_int_equal(size_ok("1GiB"), 1ULL << 30);
	assert_int_equal(size_ok("10MB"), 10ULL << 20);
	assert_int_equal(size_ok("1T"), 1ULL << 40);
}

static void test_opts__size_rejects_junk(void **state)
{
	(void)state;
	size_bad("");
	size_bad("abc");
	size_bad("0");
	size_bad("-1");
	size_bad("1.5G");
	size_bad("12X");
	size_bad("99999999999999999999X");
	size_bad("1 G");
}

static void size_too_large(const char *s)
{
	struct at_error err = AT_ERROR_INIT;
	uint64_t v = 12345;

	assert_int_equal(at_sandbox_parse_size(s, &v, &err), AT_EUSAGE);
	assert_int_equal(v, 12345);
	assert_non_null(strstr(err.msg, "too large"));
	assert_null(strstr(err.msg, "invalid"));
}

/* A well-formed size beyond 64 bits is too large, not invalid syntax (issue 14). */
static void test_opts__size_too_large_says_so(void **state)
{
	(void)state;
	size_too_large("99999999T");
	size_too_large("99999999999999999999");
	size_too_large("99999999999999999999999999K");
	size_too_large("17179869184G");
	assert_int_equal(size_ok("16777215T"), 16777215ULL << 40);
}

static void test_opts__cpus_in_thousandths(void **state)
{
	struct at_error err = AT_ERROR_INIT;
	uint64_t v = 0;

	(void)state;
	assert_int_equal(at_sandbox_parse_cpus("2", &v, &err), 0);
	assert_int_equal(v, 2000);
	assert_int_equal(at_sandbox_parse_cpus("0.5", &v, &err), 0);
	assert_int_equal(v, 500);
	assert_int_equal(at_sandbox_parse_cpus("1000", &v, &err), 0);
	v = 9;
	assert_int_equal(at_sandbox_parse_cpus("1001", &v, &err), AT_EUSAGE);
	assert_int_equal(at_sandbox_parse_cpus("0", &v, &err), AT_EUSAGE);
	assert_int_equal(at_sandbox_parse_cpus("2s", &v, &err), AT_EUSAGE);
	assert_int_equal(at_sandbox_parse_cpus("-1", &v, &err), AT_EUSAGE);
	assert_int_equal(v, 9);
	assert_non_null(strstr(err.msg, "invalid number of CPUs '1001'"));
}

static void test_opts__count_and_seconds(void **state)
{
	struct at_error err = AT_ERROR_INIT;
	uint64_t v;

	(void)state;
	assert_int_equal(at_sandbox_parse_count("30", 100, &v, &err), 0);
	assert_int_equal(v, 30);
	assert_int_equal(at_sandbox_parse_count("0", 100, &v, &err), AT_EUSAGE);
	at_error_clear(&err);
	assert_int_equal(at_sandbox_parse_count("101", 100, &v, &err), AT_EUSAGE);
	at_error_clear(&err);
	assert_int_equal(at_sandbox_parse_count("1e3", 10000, &v, &err), AT_EUSAGE);
	at_error_clear(&err);

	assert_int_equal(at_sandbox_parse_seconds("30", &v, &err), 0);
	assert_int_equal(v, 30000);
	assert_int_equal(at_sandbox_parse_seconds("1.5", &v, &err), 0);
	assert_int_equal(v, 1500);
	assert_int_equal(at_sandbox_parse_seconds("0.001", &v, &err), 0);
	assert_int_equal(v, 1);
	assert_int_equal(at_sandbox_parse_seconds("2s", &v, &err), 0);
	assert_int_equal(v, 2000);
	assert_int_equal(at_sandbox_parse_seconds("0", &v, &err), AT_EUSAGE);
	at_error_clear(&err);
	assert_int_equal(at_sandbox_parse_seconds("-1", &v, &err), AT_EUSAGE);
	at_error_clear(&err);
	assert_int_equal(at_sandbox_parse_seconds("1.2.3", &v, &err), AT_EUSAGE);
	at_error_clear(&err);
	assert_int_equal(at_sandbox_parse_seconds("1.", &v, &err), AT_EUSAGE);
}

static const char *env_get(char **env, const char *name)
{
	size_t n = strlen(name);

	for (; *env; env++)
		if (strncmp(*env, name, n) == 0 && (*env)[n] == '=')
			return *env + n + 1;
	return NULL;
}

static void test_opts__env_is_scrubbed_then_extended(void **state)
{
	char *host[] = { "GITHUB_TOKEN=secret", "TERM=xterm", "LANG=C.UTF-8", "LC_ALL=C",
			 "TZ=UTC", "PATH=/evil", "HOME=/root", "FOO=foo", "LD_PRELOAD=/x.so",
			 NULL };
	char *pass[] = { "FOO", "UNSET_VAR" };
	char *set[] = { "BAR=1", "TERM=dumb" };
	struct at_error err = AT_ERROR_INIT;
	char **env = NULL;

	(void)state;
	assert_int_equal(at_sandbox_env(host, pass, 2, set, 2, &env, &err), 0);
	assert_string_equal(env_get(env, "PATH"), AT_SANDBOX_PATH);
	assert_string_equal(env_get(env, "HOME"), AT_SANDBOX_HOME);
	assert_string_equal(env_get(env, "LANG"), "C.UTF-8");
	assert_string_equal(env_get(env, "LC_ALL"), "C");
	assert_string_equal(env_get(env, "TZ"), "UTC");
	assert_string_equal(env_get(env, "FOO"), "foo");
	assert_string_equal(env_get(env, "BAR"), "1");
	assert_string_equal(env_get(env, "TERM"), "dumb");
	assert_null(env_get(env, "GITHUB_TOKEN"));
	assert_null(env_get(env, "LD_PRELOAD"));
	assert_null(env_get(env, "UNSET_VAR"));
	at_sandbox_env_free(env);
}

static void test_opts__env_rejects_bad_names(void **state)
{
	char *bad_set[] = { "NOEQUALS" };
	char *bad_set2[] = { "1X=y" };
	char *bad_pass[] = { "A-B" };
	struct at_error err = AT_ERROR_INIT;
	char **env = NULL;

	(void)state;
	assert_int_equal(at_sandbox_env(NULL, NULL, 0, bad_set, 1, &env, &err), AT_EUSAGE);
	at_error_clear(&err);
	assert_int_equal(at_sandbox_env(NULL, NULL, 0, bad_set2, 1, &env, &err), AT_EUSAGE);
	at_error_clear(&err);
	assert_int_equal(at_sandbox_env(NULL, bad_pass, 1, NULL, 0, &env, &err), AT_EUSAGE);
	assert_null(env);
}

static void test_opts__path_normal(void **state)
{
	(void)state;
	assert_true(at_sandbox_path_normal("/"));
	assert_true(at_sandbox_path_normal("/a/b.c/..d"));
	assert_false(at_sandbox_path_normal("a/b"));
	assert_false(at_sandbox_path_normal("/a/"));
	assert_false(at_sandbox_path_normal("/a//b"));
	assert_false(at_sandbox_path_normal("/a/./b"));
	assert_false(at_sandbox_path_normal("/a/../b"));
	assert_false(at_sandbox_path_normal("/a/.."));
	assert_false(at_sandbox_path_normal(NULL));
}

struct tree {
	char root[PATH_MAX], common[PATH_MAX], state_dir[PATH_MAX], wt[PATH_MAX], ptr[PATH_MAX + 8];
	char other[PATH_MAX], outside[PATH_MAX], link[PATH_MAX], config[PATH_MAX + 8];
	struct at_sandbox_opts o;
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
	t->o.worktree = t->wt;
	t->o.git_pointer_file = t->ptr;
	t->o.common_dir = t->common;
	t->o.state_dir = t->state_dir;
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

	return at_sandbox_check_bind(&t->o, path, writable, &err);
}

static void test_opts__bind_refuses_git_metadata_and_state(void **state)
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

static void test_opts__bind_refuses_missing_relative_and_symlinked(void **state)
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
		cmocka_unit_test(test_opts__size_takes_binary_suffixes),
		cmocka_unit_test(test_opts__size_rejects_junk),
		cmocka_unit_test(test_opts__size_too_large_says_so),
		cmocka_unit_test(test_opts__count_and_seconds),
		cmocka_unit_test(test_opts__cpus_in_thousandths),
		cmocka_unit_test(test_opts__env_is_scrubbed_then_extended),
		cmocka_unit_test(test_opts__env_rejects_bad_names),
		cmocka_unit_test(test_opts__path_normal),
		cmocka_unit_test_setup_teardown(test_opts__bind_refuses_git_metadata_and_state,
						tree_setup, tree_teardown),
		cmocka_unit_test_setup_teardown(test_opts__bind_refuses_missing_relative_and_symlinked,
						tree_setup, tree_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
