/*
 * Unit tests for net/addr.c: the address classes the proxy never dials.
 *
 * What the attacker tries: to make the proxy dial the host's loopback, a cloud
 * metadata service, a link-local or private neighbour, or the host itself, by
 * naming an address in one of the spellings that hide it (IPv4-mapped, NAT64,
 * 6to4, Teredo, IPv4-compatible). What must happen: each is classified as the
 * address its packets reach and refused. The integration tests can route only
 * some of these into a test namespace; this table covers every class.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <string.h>

#include "net/addr.h"

struct addr_case {
	const char *addr;
	enum at_net_class c;
};

static void parse(const char *s, struct in6_addr *a)
{
	struct in_addr v4;

	if (inet_pton(AF_INET, s, &v4) == 1) {
		memset(a, 0, sizeof(*a));
		a->s6_addr[10] = a->s6_addr[11] = 0xff;
		memcpy(&a->s6_addr[12], &v4, 4);
		return;
	}
	if (inet_pton(AF_INET6, s, a) != 1)
		fail_msg("bad test address %s", s);
}

static void check(const struct addr_case *cases, size_t n, const struct at_net_hostaddrs *own)
{
	for (size_t i = 0; i < n; i++) {
		struct in6_addr a;
		parse(cases[i].addr, &a);
		enum at_net_class got = at_net_classify(&a, own);
		if (got != cases[i].c)
			fail_msg("%s is %s, expected %s", cases[i].addr, at_net_class_name(got),
				 at_net_class_name(cases[i].c));
	}
}

static const struct addr_case never_dialled[] = {
	{ "127.0.0.1", AT_NET_LOOPBACK },
	{ "127.255.255.254", AT_NET_LOOPBACK },
	{ "::1", AT_NET_LOOPBACK },
	{ "0.0.0.0", AT_NET_UNSPECIFIED },
	{ "0.1.2.3", AT_NET_UNSPECIFIED },
	{ "::", AT_NET_UNSPECIFIED },
	{ "169.254.1.1", AT_NET_LINK_LOCAL },
	{ "fe80::1", AT_NET_LINK_LOCAL },
	{ "febf:ffff::1", AT_NET_LINK_LOCAL },
	{ "169.254.169.254", AT_NET_METADATA },
	{ "169.254.169.123", AT_NET_METADATA },
	{ "169.254.170.2", AT_NET_METADATA },
	{ "169.254.170.23", AT_NET_METADATA },
	{ "169.254.0.23", AT_NET_METADATA },
	{ "100.100.100.200", AT_NET_METADATA },
	{ "192.0.0.192", AT_NET_METADATA },
	{ "168.63.129.16", AT_NET_METADATA },
	{ "fd00:ec2::254", AT_NET_METADATA },
	{ "fd00:ec2::23", AT_NET_METADATA },
	{ "fd20:ce::254", AT_NET_METADATA },
	{ "224.0.0.1", AT_NET_MULTICAST },
	{ "239.255.255.250", AT_NET_MULTICAST },
	{ "ff02::1", AT_NET_MULTICAST },
	{ "ff0e::1", AT_NET_MULTICAST },
	{ "255.255.255.255", AT_NET_BROADCAST },
	{ "240.0.0.1", AT_NET_RESERVED },
	{ "192.0.0.8", AT_NET_RESERVED },
	{ "100::1", AT_NET_RESERVED },
};

static void test_addr__every_refused_class_is_recognised(void **state)
{
	(void)state;
	check(never_dialled, sizeof(never_dialled) / sizeof(never_dialled[0]), NULL);
	for (size_t i = 0; i < sizeof(never_dialled) / sizeof(never_dialled[0]); i++) {
		assert_false(at_net_class_allowed(never_dialled[i].c, false));
		assert_false(at_net_class_allowed(never_dialled[i].c, true));
	}
}

static void test_addr__private_ranges_are_refused_only_on_request(void **state)
{
	static const struct addr_case c[] = {
		{ "10.1.2.3", AT_NET_PRIVATE },     { "172.16.0.1", AT_NET_PRIVATE },
		{ "172.31.255.255", AT_NET_PRIVATE }, { "192.168.1.1", AT_NET_PRIVATE },
		{ "100.64.0.1", AT_NET_PRIVATE },   { "fd12:3456::1", AT_NET_PRIVATE },
		{ "fc00::1", AT_NET_PRIVATE },      { "fec0::1", AT_NET_PRIVATE },
		{ "64:ff9b:1::a00:1", AT_NET_PRIVATE },
	};
	(void)state;
	check(c, sizeof(c) / sizeof(c[0]), NULL);
	assert_true(at_net_class_allowed(AT_NET_PRIVATE, false));
	assert_false(at_net_class_allowed(AT_NET_PRIVATE, true));
}

static void test_addr__public_addresses_are_dialled(void **state)
{
	static const struct addr_case c[] = {
		{ "198.18.0.2", AT_NET_PUBLIC },  { "198.19.255.1", AT_NET_PUBLIC },
		{ "8.8.8.8", AT_NET_PUBLIC },     { "172.32.0.1", AT_NET_PUBLIC },
		{ "100.128.0.1", AT_NET_PUBLIC }, { "169.253.255.255", AT_NET_PUBLIC },
		{ "2606:4700::1111", AT_NET_PUBLIC }, { "2a00:1450::1", AT_NET_PUBLIC },
		{ "64:ff9b::808:808", AT_NET_PUBLIC },
		/* documentation ranges: no service of the host's, real ones on some networks */
		{ "192.0.2.1", AT_NET_PUBLIC },   { "198.51.100.1", AT_NET_PUBLIC },
		{ "203.0.113.80", AT_NET_PUBLIC }, { "2001:db8::1", AT_NET_PUBLIC },
	};
	(void)state;
	check(c, sizeof(c) / sizeof(c[0]), NULL);
	assert_true(at_net_class_allowed(AT_NET_PUBLIC, true));
}

/* The spellings that hide an IPv4 address are judged by it. */
static void test_addr__hidden_ipv4_addresses_are_judged_by_what_they_reach(void **state)
{
	static const struct addr_case c[] = {
		{ "::ffff:127.0.0.1", AT_NET_LOOPBACK },
		{ "::ffff:169.254.169.254", AT_NET_METADATA },
		{ "::ffff:10.0.0.1", AT_NET_PRIVATE },
		{ "::ffff:198.18.0.2", AT_NET_PUBLIC },
		{ "64:ff9b::127.0.0.1", AT_NET_LOOPBACK },
		{ "64:ff9b::a9fe:a9fe", AT_NET_METADATA },
		{ "64:ff9b::c0a8:101", AT_NET_PRIVATE },
		{ "2002:7f00:1::1", AT_NET_LOOPBACK },
		{ "2002:a9fe:a9fe::", AT_NET_METADATA },
		{ "2002:c612:2::1", AT_NET_PUBLIC },
		/* Teredo: server 65.54.227.120, client ~(80ff:fffe) = 127.0.0.1 */
		{ "2001:0:4136:e378:8000:63bf:80ff:fffe", AT_NET_LOOPBACK },
		/* Teredo: server 127.0.0.1, client public */
		{ "2001:0:7f00:1:8000:63bf:f7f7:f7f7", AT_NET_LOOPBACK },
		{ "2001:0:4136:e378:8000:63bf:f7f7:f7f7", AT_NET_PUBLIC },
		/* IPv4-compatible: deprecated, refused whatever it embeds */
		{ "::127.0.0.1", AT_NET_RESERVED },
		{ "::8.8.8.8", AT_NET_RESERVED },
	};
	(void)state;
	check(c, sizeof(c) / sizeof(c[0]), NULL);
}

static void test_addr__the_hosts_own_addresses_are_refused(void **state)
{
	struct in6_addr own_v[3];
	struct at_net_hostaddrs own = { own_v, 3 };
	static const struct addr_case c[] = {
		{ "198.18.0.1", AT_NET_HOST_OWN },
		{ "::ffff:198.18.0.1", AT_NET_HOST_OWN },
		{ "2606:4700::5", AT_NET_HOST_OWN },
		{ "10.9.8.7", AT_NET_HOST_OWN },
		{ "198.18.0.2", AT_NET_PUBLIC },
		{ "10.9.8.6", AT_NET_PRIVATE },
	};
	(void)state;
	parse("10.9.8.7", &own_v[2]);
	parse("198.18.0.1", &own_v[0]);
	parse("2606:4700::5", &own_v[1]);
	check(c, sizeof(c) / sizeof(c[0]), &own);
	assert_false(at_net_class_allowed(AT_NET_HOST_OWN, false));
}

static void test_addr__every_address_getifaddrs_lists_is_refused(void **state)
{
	struct at_net_hostaddrs own = AT_NET_HOSTADDRS_INIT;
	struct at_error err = AT_ERROR_INIT;
	struct in6_addr lo;
	bool has_lo = false;

	(void)state;
	assert_int_equal(at_net_hostaddrs_load(&own, &err), 0);
	parse("127.0.0.1", &lo);
	for (size_t i = 0; i < own.n; i++) {
		char buf[INET6_ADDRSTRLEN];
		at_net_addr_format(&own.v[i], buf, sizeof(buf));
		if (at_net_class_allowed(at_net_classify(&own.v[i], &own), false))
			fail_msg("host address %s would be dialled", buf);
		has_lo = has_lo || memcmp(&own.v[i], &lo, sizeof(lo)) == 0;
	}
	assert_true(has_lo);
	at_net_hostaddrs_release(&own);
	at_net_hostaddrs_release(&own);
}

static void test_addr__socket_addresses_and_formatting(void **state)
{
	struct sockaddr_in in = { .sin_family = AF_INET };
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6 };
	struct sockaddr un = { .sa_family = AF_UNIX };
	struct in6_addr a;
	char buf[INET6_ADDRSTRLEN];

	(void)state;
	inet_pton(AF_INET, "169.254.169.254", &in.sin_addr);
	assert_int_equal(at_net_classify_sa((struct sockaddr *)&in, NULL), AT_NET_METADATA);
	inet_pton(AF_INET6, "::ffff:127.0.0.1", &in6.sin6_addr);
	assert_int_equal(at_net_classify_sa((struct sockaddr *)&in6, NULL), AT_NET_LOOPBACK);
	assert_int_equal(at_net_classify_sa(&un, NULL), AT_NET_RESERVED);
	at_net_addr_from_sa((struct sockaddr *)&in, &a);
	at_net_addr_format(&a, buf, sizeof(buf));
	assert_string_equal(buf, "169.254.169.254");
	parse("2001:db8::1", &a);
	at_net_addr_format(&a, buf, sizeof(buf));
	assert_string_equal(buf, "2001:db8::1");
	for (int c = 0; c < AT_NET_CLASS_COUNT; c++)
		assert_non_null(strstr(at_net_class_name((enum at_net_class)c), "address"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_addr__every_refused_class_is_recognised),
		cmocka_unit_test(test_addr__private_ranges_are_refused_only_on_request),
		cmocka_unit_test(test_addr__public_addresses_are_dialled),
		cmocka_unit_test(test_addr__hidden_ipv4_addresses_are_judged_by_what_they_reach),
		cmocka_unit_test(test_addr__the_hosts_own_addresses_are_refused),
		cmocka_unit_test(test_addr__every_address_getifaddrs_lists_is_refused),
		cmocka_unit_test(test_addr__socket_addresses_and_formatting),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
