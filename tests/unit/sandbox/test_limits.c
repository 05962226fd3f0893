/* Unit tests for sandbox/limits.c and cgroup2.c: defaults, notes, cgroup counters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sandbox/internal.h"

static void test_limits__defaults_fill_only_what_was_not_asked(void **state)
{
	uint64_t l[AT_LIMIT_COUNT] = { 0 };
	uint64_t ram = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
	unsigned int mask = 0;

	(void)state;
	at_sandbox_defaults(l, &mask);
	assert_int_equal(l[AT_LIMIT_PIDS], 4096);
	assert_int_equal(l[AT_LIMIT_MEMORY], ram / 100 * 50);
	assert_int_equal(l[AT_LIMIT_CPU] + l[AT_LIMIT_FSIZE] + l[AT_LIMIT_CPUS], 0);
	assert_int_equal(mask, (1u << AT_LIMIT_PIDS) | (1u << AT_LIMIT_MEMORY));

	memset(l, 0, sizeof(l));
	mask = 0;
	l[AT_LIMIT_PIDS] = 7;
	at_sandbox_defaults(l, &mask);
	assert_int_equal(l[AT_LIMIT_PIDS], 7);
	assert_int_equal(mask, 1u << AT_LIMIT_MEMORY);
}

static void test_limits__every_fallback_says_what_it_weakens(void **state)
{
	int i;

	(void)state;
	for (i = 0; i < AT_LIMIT_COUNT; i++) {
		enum at_sandbox_limit l = (enum at_sandbox_limit)i;

		assert_null(at_sandbox_mech_note(l, AT_MECH_CGROUP_V2));
		assert_null(at_sandbox_mech_note(l, AT_MECH_SYSTEMD));
		assert_null(at_sandbox_mech_note(l, AT_MECH_CGROUP_V1));
		if (l != AT_LIMIT_CPUS)
			assert_non_null(at_sandbox_mech_note(l, AT_MECH_RLIMIT));
	}
	assert_non_null(strstr(at_sandbox_mech_note(AT_LIMIT_MEMORY, AT_MECH_UNENFORCED), "RLIMIT_AS"));
	assert_non_null(strstr(at_sandbox_mech_note(AT_LIMIT_PIDS, AT_MECH_UNENFORCED), "root"));
}

static void test_limits__cgroup_counters_are_read_by_key(void **state)
{
	char path[] = "/tmp/test-limits-XXXXXX";
	int fd = mkstemp(path);
	const char text[] = "low 0\nhigh 12\nmax 3\noom 2\noom_kill 1\noom_group_kill 0\n";

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, sizeof(text) - 1), (ssize_t)sizeof(text) - 1);
	close(fd);
	assert_int_equal(at_sb_cg_key(path, "oom_kill"), 1);
	assert_int_equal(at_sb_cg_key(path, "oom"), 2);
	assert_int_equal(at_sb_cg_key(path, "max"), 3);
	assert_int_equal(at_sb_cg_key(path, "oom_group"), -1);
	assert_int_equal(at_sb_cg_key(path, "absent"), -1);
	unlink(path);
	assert_int_equal(at_sb_cg_key(path, "max"), -1);
}

static void test_limits__stop_reasons_have_names(void **state)
{
	(void)state;
	assert_null(at_sandbox_stop_name(AT_STOP_NONE));
	assert_string_equal(at_sandbox_stop_name(AT_STOP_OOM), "oom");
	assert_string_equal(at_sandbox_stop_name(AT_STOP_PIDS), "pids");
	assert_string_equal(at_sandbox_stop_name(AT_STOP_CPU), "cpu");
	assert_string_equal(at_sandbox_stop_name(AT_STOP_FSIZE), "file-size");
	assert_string_equal(at_sandbox_stop_name(AT_STOP_TIMEOUT), "timeout");
	assert_string_equal(at_sandbox_limit_name(AT_LIMIT_CPUS), "cpus");
	assert_string_equal(at_sandbox_mech_name(AT_MECH_SYSTEMD), "systemd-scope");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_limits__defaults_fill_only_what_was_not_asked),
		cmocka_unit_test(test_limits__every_fallback_says_what_it_weakens),
		cmocka_unit_test(test_limits__cgroup_counters_are_read_by_key),
		cmocka_unit_test(test_limits__stop_reasons_have_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
