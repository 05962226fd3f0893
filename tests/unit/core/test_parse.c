/* Unit tests for core/parse.c: sizes, counts, durations as a person types them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "core/parse.h"

static uint64_t size_ok(const char *s)
{
	struct at_error err = AT_ERROR_INIT;
	uint64_t v = 0;

	assert_int_equal(at_parse_size(s, &v, &err), 0);
	return v;
}

static void size_bad(const char *s)
{
	struct at_error err = AT_ERROR_INIT;
	uint64_t v = 12345;

	assert_int_equal(at_parse_size(s, &v, &err), AT_EUSAGE);
	assert_int_equal(v, 12345);
	assert_non_null(strstr(err.msg, "invalid size"));
}

static void test_parse__size_takes_binary_suffixes(void **state)
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

static void test_parse__size_rejects_junk(void **state)
{
	(void)state;
	size_bad("");
	size_bad("abc");
	size_bad("0");
	size_bad("-1");
	size_bad("1.5G");
	size_bad("12X");
	size_bad("99999999999999999999");
	size_bad("17179869184G");
	size_bad("1 G");
}

static void test_parse__cpus_in_thousandths(void **state)
{
	struct at_error err = AT_ERROR_INIT;
	uint64_t v = 0;

	(void)state;
	assert_int_equal(at_parse_cpus("2", &v, &err), 0);
	assert_int_equal(v, 2000);
	assert_int_equal(at_parse_cpus("0.5", &v, &err), 0);
	assert_int_equal(v, 500);
	assert_int_equal(at_parse_cpus("1000", &v, &err), 0);
	v = 9;
	assert_int_equal(at_parse_cpus("1001", &v, &err), AT_EUSAGE);
	assert_int_equal(at_parse_cpus("0", &v, &err), AT_EUSAGE);
	assert_int_equal(at_parse_cpus("2s", &v, &err), AT_EUSAGE);
	assert_int_equal(at_parse_cpus("-1", &v, &err), AT_EUSAGE);
	assert_int_equal(v, 9);
	assert_non_null(strstr(err.msg, "invalid number of CPUs '1001'"));
}

static void test_parse__count_and_seconds(void **state)
{
	struct at_error err = AT_ERROR_INIT;
	uint64_t v;

	(void)state;
	assert_int_equal(at_parse_count("30", 100, &v, &err), 0);
	assert_int_equal(v, 30);
	assert_int_equal(at_parse_count("0", 100, &v, &err), AT_EUSAGE);
	at_error_clear(&err);
	assert_int_equal(at_parse_count("101", 100, &v, &err), AT_EUSAGE);
	at_error_clear(&err);
	assert_int_equal(at_parse_count("1e3", 10000, &v, &err), AT_EUSAGE);
	at_error_clear(&err);

	assert_int_equal(at_parse_seconds("30", &v, &err), 0);
	assert_int_equal(v, 30000);
	assert_int_equal(at_parse_seconds("1.5", &v, &err), 0);
	assert_int_equal(v, 1500);
	assert_int_equal(at_parse_seconds("0.001", &v, &err), 0);
	assert_int_equal(v, 1);
	assert_int_equal(at_parse_seconds("2s", &v, &err), 0);
	assert_int_equal(v, 2000);
	assert_int_equal(at_parse_seconds("0", &v, &err), AT_EUSAGE);
	at_error_clear(&err);
	assert_int_equal(at_parse_seconds("-1", &v, &err), AT_EUSAGE);
	at_error_clear(&err);
	assert_int_equal(at_parse_seconds("1.2.3", &v, &err), AT_EUSAGE);
	at_error_clear(&err);
	assert_int_equal(at_parse_seconds("1.", &v, &err), AT_EUSAGE);
}

static void test_parse__forward_is_port_and_optional_inner_port(void **state)
{
	static const char *const bad[] = {
		"", "0", "65536", "99999", "123456", "80:", ":80", "80:0", "80:8080:1", "80 ", " 80",
		"-1", "+80", "0x50", "80:65536", "a", "000080",
	};
	uint16_t host = 1, inner = 1;

	(void)state;
	assert_true(at_parse_forward("5432", &host, &inner));
	assert_int_equal(host, 5432);
	assert_int_equal(inner, 5432);
	assert_true(at_parse_forward("65535:1", &host, &inner));
	assert_int_equal(host, 65535);
	assert_int_equal(inner, 1);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		host = inner = 7;
		assert_false(at_parse_forward(bad[i], &host, &inner));
		assert_int_equal(host, 7);  /* untouched on failure */
		assert_int_equal(inner, 7);
	}
	assert_false(at_parse_forward(NULL, &host, &inner));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse__size_takes_binary_suffixes),
		cmocka_unit_test(test_parse__size_rejects_junk),
		cmocka_unit_test(test_parse__count_and_seconds),
		cmocka_unit_test(test_parse__cpus_in_thousandths),
		cmocka_unit_test(test_parse__forward_is_port_and_optional_inner_port),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
