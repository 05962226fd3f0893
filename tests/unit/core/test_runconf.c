/* Unit tests for core/runconf.c: the run configuration's parser. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "core/runconf.h"

#define WHAT "main:.agenttask/run.json"

static void parse_ok(const char *text, struct at_runconf *c)
{
	struct at_error err = AT_ERROR_INIT;

	assert_int_equal(at_runconf_parse(c, text, WHAT, "/home/u", &err), 0);
}

/* Refused with one AT_EUSAGE line naming the file and holding `what`. */
static void parse_bad(const char *text, const char *home, const char *what)
{
	struct at_error err = AT_ERROR_INIT;
	struct at_runconf c;

	assert_int_equal(at_runconf_parse(&c, text, WHAT, home, &err), AT_EUSAGE);
	assert_non_null(strstr(err.msg, WHAT));
	if (what && !strstr(err.msg, what))
		fail_msg("'%s' lacks '%s'", err.msg, what);
}

static void test_runconf__every_key_of_run_and_a_profile(void **state)
{
	struct at_runconf c;
	const struct at_runconf_set *p;

	(void)state;
	parse_ok("{\"run\": {\"env\": {\"A_1\": \"~/x\"}, \"limits\": {\"memory\": \"2G\", "
		 "\"pids\": 100, \"cpus\": 1.5, \"cpu\": 60, \"file-size\": \"1M\"}},"
		 " \"profiles\": {\"rust\": {\"ro\": [\"~/.cargo\", \"/opt/x\"], \"path\": [\"~/b\"],"
		 " \"cache\": [\"~\"], \"allow_hosts\": [\"crates.io\"],"
		 " \"forward\": [\"5432\", \"8080:80\"], \"deny_private\": true}}}", &c);
	assert_int_equal(c.run.env.n, 1);
	assert_string_equal(c.run.env.v[0], "A_1=/home/u/x");
	assert_true(c.run.limits[AT_LIMIT_MEMORY] == (uint64_t)2 << 30);
	assert_true(c.run.limits[AT_LIMIT_PIDS] == 100);
	assert_true(c.run.limits[AT_LIMIT_CPUS] == 1500);
	assert_true(c.run.limits[AT_LIMIT_CPU] == 60);
	assert_true(c.run.limits[AT_LIMIT_FSIZE] == (uint64_t)1 << 20);
	assert_null(at_runconf_profile(&c, "go"));
	p = at_runconf_profile(&c, "rust");
	assert_non_null(p);
	assert_string_equal(p->ro.v[0], "/home/u/.cargo");
	assert_string_equal(p->ro.v[1], "/opt/x");
	assert_string_equal(p->path.v[0], "/home/u/b");
	assert_string_equal(p->cache.v[0], "/home/u");
	assert_string_equal(p->allow_hosts.v[0], "crates.io");
	assert_int_equal(p->forward.n, 2);
	assert_string_equal(p->forward.v[1], "8080:80");
	assert_true(p->deny_private);
	assert_false(c.run.deny_private);
	at_runconf_release(&c);
}

static void test_runconf__unknown_keys_name_the_key(void **state)
{
	(void)state;
	parse_bad("{\"runs\": {}}", "/h", "'runs'");
	parse_bad("{\"run\": {\"limts\": {}}}", "/h", "'run.limts'");
	parse_bad("{\"profiles\": {\"p\": {\"rw\": []}}}", "/h", "'profiles.p.rw'");
	parse_bad("{\"run\": {\"limits\": {\"disk\": 1}}}", "/h", "'disk'");
}

static void test_runconf__bad_values_are_refused(void **state)
{
	(void)state;
	parse_bad("[]", "/h", NULL);
	parse_bad("{\"run\": ", "/h", NULL);
	parse_bad("{\"run\": {\"ro\": [\"relative\"]}}", "/h", "'run.ro'");
	parse_bad("{\"run\": {\"ro\": [\"~/x\"]}}", NULL, "'run.ro'");
	parse_bad("{\"run\": {\"ro\": \"/x\"}}", "/h", "'run.ro'");
	parse_bad("{\"run\": {\"env\": {\"A=B\": \"x\"}}}", "/h", "'run.env'");
	parse_bad("{\"run\": {\"env\": {\"A\": 1}}}", "/h", "'run.env'");
	parse_bad("{\"run\": {\"limits\": {\"pids\": 0}}}", "/h", "'pids'");
	parse_bad("{\"run\": {\"limits\": {\"memory\": -1}}}", "/h", "'memory'");
	parse_bad("{\"profiles\": {\"../x\": {}}}", "/h", "'../x'");
	parse_bad("{\"run\": {\"forward\": [\"0\"]}}", "/h", "'run.forward'");
	parse_bad("{\"run\": {\"forward\": [\"80:\"]}}", "/h", "'run.forward'");
	parse_bad("{\"run\": {\"forward\": \"80\"}}", "/h", "'run.forward'");
	parse_bad("{\"run\": {\"forward\": [80]}}", "/h", "'run.forward'");
	parse_bad("{\"run\": {\"deny_private\": \"yes\"}}", "/h", "'run.deny_private'");
	parse_bad("{\"run\": {\"deny_private\": true, \"deny_private\": false}}", "/h", "duplicate key");
}

/* A repeated key would be read twice (the fuzzer found a repeated "profiles" overran). */
static void test_runconf__repeated_keys_are_refused(void **state)
{
	(void)state;
	parse_bad("{\"profiles\": {\"a\": {}}, \"profiles\": {\"a\": {}, \"b\": {}}}", "/h",
		  "duplicate key");
	parse_bad("{\"run\": {}, \"run\": {}}", "/h", "duplicate key");
	parse_bad("{\"run\": {\"ro\": [], \"ro\": []}}", "/h", "duplicate key");
	parse_bad("{\"profiles\": {\"a\": {}, \"a\": {}}}", "/h", "duplicate key");
	parse_bad("{\"run\": {\"limits\": {\"pids\": 1, \"pids\": 2}}}", "/h", "duplicate key");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runconf__every_key_of_run_and_a_profile),
		cmocka_unit_test(test_runconf__unknown_keys_name_the_key),
		cmocka_unit_test(test_runconf__bad_values_are_refused),
		cmocka_unit_test(test_runconf__repeated_keys_are_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
