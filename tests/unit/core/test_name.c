/* Unit tests for core/name.c: what a task may be called. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/name.h"
#include "core/task.h"

static void assert_refused(const char *name, const char *why)
{
	struct at_error err = AT_ERROR_INIT;

	assert_int_equal(at_name_check(name, &err), AT_EUSAGE);
	assert_int_equal(err.code, AT_EUSAGE);
	assert_non_null(strstr(err.msg, why));
	assert_false(at_name_valid(name));
}

static void test_name__accepts_letters_digits_dot_underscore_dash(void **state)
{
	struct at_error err = AT_ERROR_INIT;

	(void)state;
	assert_int_equal(at_name_check("fix-bug_2.x", &err), 0);
	assert_int_equal(err.code, 0);
	assert_true(at_name_valid("a"));
	assert_true(at_name_valid("0"));
	assert_true(at_name_valid("A.b-c_d"));
	assert_true(at_name_valid("a-"));
	assert_true(at_name_valid("a_"));
}

static void test_name__accepts_exactly_64_characters(void **state)
{
	char name[AT_NAME_MAX + 1];

	(void)state;
	memset(name, 'x', AT_NAME_MAX);
	name[AT_NAME_MAX] = '\0';
	assert_true(at_name_valid(name));
}

static void test_name__rejects_65_characters_quoting_a_prefix(void **state)
{
	char name[AT_NAME_MAX + 2];

	(void)state;
	memset(name, 'x', AT_NAME_MAX + 1);
	name[AT_NAME_MAX + 1] = '\0';
	assert_refused(name, "longer than 64");
}

static void test_name__rejects_empty_and_null(void **state)
{
	(void)state;
	assert_refused("", "empty");
	assert_int_equal(at_name_check(NULL, NULL), AT_EUSAGE);
}

static void test_name__rejects_dot_dot(void **state)
{
	(void)state;
	assert_refused("a..b", "'..'");
	assert_refused("a..", "'..'");
}

static void test_name__rejects_leading_punctuation(void **state)
{
	(void)state;
	assert_refused(".hidden", "start with a letter or digit");
	assert_refused("-rf", "start with a letter or digit");
	assert_refused("_x", "start with a letter or digit");
}

static void test_name__rejects_trailing_dot_and_dot_lock(void **state)
{
	(void)state;
	assert_refused("a.", "may not end");
	assert_refused("branch.lock", "may not end");
	assert_true(at_name_valid("a.locked"));
	assert_true(at_name_valid("lock"));
}

static void test_name__rejects_slashes_spaces_and_other_characters(void **state)
{
	static const char *const bad[] = {
		"a/b", "../x", "a b", "a\tb", "a\nb", "a:b", "a~1", "a^", "a?", "a*", "a[",
		"a\\b", "a@{0}", "caf\xc3\xa9", "a'b",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_refused(bad[i], "only letters, digits");
}

static void test_name__error_quotes_the_name(void **state)
{
	struct at_error err = AT_ERROR_INIT;

	(void)state;
	at_name_check("bad name", &err);
	assert_non_null(strstr(err.msg, "'bad name'"));
}

static void test_name__keeps_the_first_error_set(void **state)
{
	struct at_error err = AT_ERROR_INIT;

	(void)state;
	at_error_set(&err, AT_ENOTFOUND, "earlier failure");
	assert_int_equal(at_name_check("../x", &err), AT_ENOTFOUND);
	assert_string_equal(err.msg, "earlier failure");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_name__accepts_letters_digits_dot_underscore_dash),
		cmocka_unit_test(test_name__accepts_exactly_64_characters),
		cmocka_unit_test(test_name__rejects_65_characters_quoting_a_prefix),
		cmocka_unit_test(test_name__rejects_empty_and_null),
		cmocka_unit_test(test_name__rejects_dot_dot),
		cmocka_unit_test(test_name__rejects_leading_punctuation),
		cmocka_unit_test(test_name__rejects_trailing_dot_and_dot_lock),
		cmocka_unit_test(test_name__rejects_slashes_spaces_and_other_characters),
		cmocka_unit_test(test_name__error_quotes_the_name),
		cmocka_unit_test(test_name__keeps_the_first_error_set),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
