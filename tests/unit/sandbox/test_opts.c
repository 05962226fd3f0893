/* Unit tests for sandbox/opts.c: the command's environment, paths. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "sandbox/sandbox.h"

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
	struct at_strlist list = AT_STRLIST_INIT;
	char **env;

	(void)state;
	assert_int_equal(at_sandbox_env(host, pass, 2, set, 2, &list, &err), 0);
	env = list.v;
	assert_string_equal(env_get(env, "PATH"), AT_RUN_PATH);
	assert_string_equal(env_get(env, "HOME"), AT_RUN_HOME);
	assert_string_equal(env_get(env, "LANG"), "C.UTF-8");
	assert_string_equal(env_get(env, "LC_ALL"), "C");
	assert_string_equal(env_get(env, "TZ"), "UTC");
	assert_string_equal(env_get(env, "FOO"), "foo");
	assert_string_equal(env_get(env, "BAR"), "1");
	assert_string_equal(env_get(env, "TERM"), "dumb");
	assert_null(env_get(env, "GITHUB_TOKEN"));
	assert_null(env_get(env, "LD_PRELOAD"));
	assert_null(env_get(env, "UNSET_VAR"));
	at_strlist_release(&list);
}

static void test_opts__env_rejects_bad_names(void **state)
{
	char *bad_set[] = { "NOEQUALS" };
	char *bad_set2[] = { "1X=y" };
	char *bad_pass[] = { "A-B" };
	struct at_error err = AT_ERROR_INIT;
	struct at_strlist env = AT_STRLIST_INIT;

	(void)state;
	assert_int_equal(at_sandbox_env(NULL, NULL, 0, bad_set, 1, &env, &err), AT_EUSAGE);
	at_error_clear(&err);
	assert_int_equal(at_sandbox_env(NULL, NULL, 0, bad_set2, 1, &env, &err), AT_EUSAGE);
	at_error_clear(&err);
	assert_int_equal(at_sandbox_env(NULL, bad_pass, 1, NULL, 0, &env, &err), AT_EUSAGE);
	assert_null(env.v);
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

static void test_opts__path_within(void **state)
{
	(void)state;
	assert_true(at_sandbox_path_within("/a/b", "/a"));
	assert_true(at_sandbox_path_within("/a", "/a"));
	assert_true(at_sandbox_path_within("/a", "/"));
	assert_false(at_sandbox_path_within("/ab", "/a"));
	assert_false(at_sandbox_path_within("/a", "/a/b"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_opts__env_is_scrubbed_then_extended),
		cmocka_unit_test(test_opts__env_rejects_bad_names),
		cmocka_unit_test(test_opts__path_normal),
		cmocka_unit_test(test_opts__path_within),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
