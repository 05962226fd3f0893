/* Unit tests for net/rules.c: the pattern language of --allow-host and allow_hosts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "net/rules.h"

static void bad(const char *pattern)
{
	struct at_net_rules rules = AT_NET_RULES_INIT;
	struct at_error err = AT_ERROR_INIT;
	char quoted[400];

	assert_int_equal(at_net_rules_add(&rules, pattern, &err), AT_EUSAGE);
	assert_int_equal(rules.n, 0);
	snprintf(quoted, sizeof(quoted), "'%.300s'", pattern);
	if (strlen(pattern) < 200 && !strstr(err.msg, quoted))
		fail_msg("message does not name %s: %s", quoted, err.msg);
}

static void test_rules__malformed_patterns_are_usage_errors_naming_them(void **state)
{
	static const char *const patterns[] = {
		"", "*", "*.", "*.com", "**.example.com", "a.*.example.com", "*example.com",
		"example.com:", "example.com:0", "example.com:65536", "example.com:8o",
		"example.com:+80", "example.com:-1", "example.com:80:80", "exa mple.com",
		"-example.com", "example-.com", "ex/ample.com", "http://example.com",
		"example.com/", "[::1", "[::1]x", "[::1]:", "[1.2.3.4]", "[example.com]",
		"127.1", "0x7f000001", "1.2.3", "10.0.0.300", "example.123", ".example.com",
		"example..com", "user@example.com", "a\nb.com",
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.com",
	};
	(void)state;
	for (size_t i = 0; i < sizeof(patterns) / sizeof(patterns[0]); i++)
		bad(patterns[i]);
}

static void test_rules__too_long_pattern_is_refused(void **state)
{
	char big[600];
	(void)state;
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	bad(big);
}

struct match_case {
	const char *host;
	uint16_t port;
	const char *rule;  /* the text of the rule expected to match, or NULL */
};

static void check_matches(const char *const *patterns, size_t np, const struct match_case *cases,
			  size_t nc)
{
	struct at_net_rules rules = AT_NET_RULES_INIT;
	struct at_error err = AT_ERROR_INIT;

	for (size_t i = 0; i < np; i++)
		assert_int_equal(at_net_rules_add(&rules, patterns[i], &err), 0);
	for (size_t i = 0; i < nc; i++) {
		const struct at_net_rule *r =
			at_net_rules_match(&rules, cases[i].host, cases[i].port);
		const char *got = r ? r->text : NULL;
		if ((got == NULL) != (cases[i].rule == NULL) ||
		    (got && strcmp(got, cases[i].rule) != 0))
			fail_msg("%s:%u matched %s, expected %s", cases[i].host, cases[i].port,
				 got ? got : "nothing", cases[i].rule ? cases[i].rule : "nothing");
	}
	at_net_rules_release(&rules);
}

static void test_rules__names_match_exactly_on_the_default_ports(void **state)
{
	static const char *const p[] = { "registry.example.org" };
	static const struct match_case c[] = {
		{ "registry.example.org", 443, "registry.example.org" },
		{ "registry.example.org", 80, "registry.example.org" },
		{ "REGISTRY.Example.ORG", 443, "registry.example.org" },
		{ "registry.example.org.", 443, "registry.example.org" },
		{ "registry.example.org", 8080, NULL },
		{ "registry.example.org", 22, NULL },
		{ "example.org", 443, NULL },
		{ "sub.registry.example.org", 443, NULL },
		{ "registry.example.org.evil.com", 443, NULL },
		{ "xregistry.example.org", 443, NULL },
		{ "registry.example.or", 443, NULL },
	};
	(void)state;
	check_matches(p, 1, c, sizeof(c) / sizeof(c[0]));
}

static void test_rules__a_port_names_that_port_only(void **state)
{
	static const char *const p[] = { "git.example.org:22", "db.example.org:5432" };
	static const struct match_case c[] = {
		{ "git.example.org", 22, "git.example.org:22" },
		{ "git.example.org", 443, NULL },
		{ "git.example.org", 80, NULL },
		{ "db.example.org", 5432, "db.example.org:5432" },
		{ "db.example.org", 5433, NULL },
	};
	(void)state;
	check_matches(p, 2, c, sizeof(c) / sizeof(c[0]));
}

static void test_rules__wildcards_match_subdomains_only(void **state)
{
	static const char *const p[] = { "*.example.com", "*.pkg.dev:8443" };
	static const struct match_case c[] = {
		{ "a.example.com", 443, "*.example.com" },
		{ "a.b.example.com", 80, "*.example.com" },
		{ "example.com", 443, NULL },
		{ "notexample.com", 443, NULL },
		{ "a.example.com.evil.org", 443, NULL },
		{ "a.example.com", 22, NULL },
		{ "x.pkg.dev", 8443, "*.pkg.dev:8443" },
		{ "x.pkg.dev", 443, NULL },
	};
	(void)state;
	check_matches(p, 2, c, sizeof(c) / sizeof(c[0]));
}

static void test_rules__ip_literals_match_only_as_literals(void **state)
{
	static const char *const p[] = { "198.18.0.2", "[2001:db8::5]:8080", "2001:db8::7",
					  "files.example.net" };
	static const struct match_case c[] = {
		{ "198.18.0.2", 443, "198.18.0.2" },
		{ "198.18.0.2", 80, "198.18.0.2" },
		{ "198.18.0.2", 8080, NULL },
		{ "::ffff:198.18.0.2", 443, "198.18.0.2" },
		{ "[::ffff:198.18.0.2]", 443, "198.18.0.2" },
		{ "198.18.0.3", 443, NULL },
		{ "[2001:db8::5]", 8080, "[2001:db8::5]:8080" },
		{ "2001:0db8:0::5", 8080, "[2001:db8::5]:8080" },
		{ "2001:db8::5", 443, NULL },
		{ "2001:db8::7", 443, "2001:db8::7" },
		/* a name never matches a literal rule, nor a literal a name rule */
		{ "198.18.0.2.nip.io", 443, NULL },
		{ "127.1", 443, NULL },
		{ "0x7f000001", 443, NULL },
		{ "3322019842", 443, NULL },
		{ "files.example.net", 443, "files.example.net" },
	};
	(void)state;
	check_matches(p, 4, c, sizeof(c) / sizeof(c[0]));
}

static void test_rules__hosts_that_are_not_names_match_nothing(void **state)
{
	static const char *const p[] = { "*.example.com" };
	static const struct match_case c[] = {
		{ "", 443, NULL },
		{ ".example.com", 443, NULL },
		{ "a..example.com", 443, NULL },
		{ "a example.com", 443, NULL },
		{ "a.example.com\r\nX: y", 443, NULL },
		{ "a%2eexample.com", 443, NULL },
		{ "[a.example.com]", 443, NULL },
	};
	(void)state;
	check_matches(p, 1, c, sizeof(c) / sizeof(c[0]));
}

static void test_rules__first_matching_rule_is_named(void **state)
{
	static const char *const p[] = { "api.example.com:443", "*.example.com" };
	static const struct match_case c[] = {
		{ "api.example.com", 443, "api.example.com:443" },
		{ "api.example.com", 80, "*.example.com" },
	};
	(void)state;
	check_matches(p, 2, c, sizeof(c) / sizeof(c[0]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rules__malformed_patterns_are_usage_errors_naming_them),
		cmocka_unit_test(test_rules__too_long_pattern_is_refused),
		cmocka_unit_test(test_rules__names_match_exactly_on_the_default_ports),
		cmocka_unit_test(test_rules__a_port_names_that_port_only),
		cmocka_unit_test(test_rules__wildcards_match_subdomains_only),
		cmocka_unit_test(test_rules__ip_literals_match_only_as_literals),
		cmocka_unit_test(test_rules__hosts_that_are_not_names_match_nothing),
		cmocka_unit_test(test_rules__first_matching_rule_is_named),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
