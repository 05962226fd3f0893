/*
 * Unit tests for core/vault.c: where secret values live in agenttask.
 *
 * What: the sandbox's init is a clone of agenttask; a copy of a secret in
 * its memory would be one ptrace, one /proc/1/mem away from the command.
 * Must: a child made by fork (as clone without CLONE_VM) sees the vault's
 * bytes as zeros, while the parent keeps them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/vault.h"

static void test_vault__a_child_sees_zeros(void **state)
{
	struct at_vault v = AT_VAULT_INIT;
	struct at_error err = AT_ERROR_INIT;
	const char *at;
	int status;
	pid_t pid;

	(void)state;
	assert_int_equal(at_vault_open(&v, 100, &err), 0);
	at = at_vault_put(&v, "sk-secret-value", 15);
	assert_non_null(at);
	assert_string_equal(at, "sk-secret-value");
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(at[0] == '\0' && memcmp(at, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 15) == 0 ? 0 : 1);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_string_equal(at, "sk-secret-value");
	at_vault_close(&v);
	assert_null(v.mem);
}

static void test_vault__bounded(void **state)
{
	struct at_vault v = AT_VAULT_INIT;
	struct at_error err = AT_ERROR_INIT;
	char big[5000];

	(void)state;
	memset(big, 'x', sizeof(big));
	assert_int_equal(at_vault_open(&v, 10, &err), 0);
	assert_null(at_vault_put(&v, big, sizeof(big)));
	at_vault_close(&v);
	assert_int_equal(at_vault_open(&v, AT_VAULT_MAX + 1, &err), AT_EUSAGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vault__a_child_sees_zeros),
		cmocka_unit_test(test_vault__bounded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
