/*
 * addr.h - which addresses the proxy may dial.
 *
 * The proxy dials only an address it has judged here, after resolving a name
 * on the host, and never resolves again. The classes it never dials, whatever
 * the name, the rule or the literal:
 *   loopback, unspecified ("this network", 0.0.0.0/8 and ::),
 *   link-local (169.254.0.0/16, fe80::/10), the cloud metadata addresses
 *   (list and sources in addr.c), multicast, broadcast, the host's own
 *   interface addresses (and their broadcast addresses, even in a private
 *   range), and what is reserved and reaches no ordinary host (240.0.0.0/4,
 *   192.0.0.0/24, the IPv6 discard prefix, deprecated IPv4-compatible
 *   ::a.b.c.d).
 * Private ranges (RFC 1918, 100.64.0.0/10 shared address space, fc00::/7,
 * deprecated site-local fec0::/10) are refused only when asked.
 *
 * Addresses that carry an IPv4 address are judged by it, since that is where
 * their packets end up: IPv4-mapped ::ffff:a.b.c.d (the kernel sends it as
 * IPv4), NAT64 64:ff9b::/96 (a translator forwards it), 6to4 2002::/16 (a
 * relay delivers to the embedded address). Teredo 2001::/32 is judged by both
 * the server and the (obfuscated) client address it embeds. The local-use
 * NAT64 prefix 64:ff9b:1::/48 embeds its address at a length the operator
 * chose, so it counts as private.
 *
 * 198.18.0.0/15 (benchmarking) and the documentation ranges (192.0.2.0/24,
 * 198.51.100.0/24, 203.0.113.0/24, 2001:db8::/32) are dialled: they reach no
 * service of the host's, the tests' remote hosts use the first, and some
 * networks (this project's own build machines) put real services in the
 * others. Refusing them would break such setups and protect nothing.
 */
#ifndef AT_NET_ADDR_H
#define AT_NET_ADDR_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#include "core/error.h"

enum at_net_class {
	AT_NET_PUBLIC = 0,
	AT_NET_PRIVATE,       /* refused with deny_private only */
	AT_NET_LOOPBACK,
	AT_NET_UNSPECIFIED,
	AT_NET_LINK_LOCAL,
	AT_NET_METADATA,
	AT_NET_MULTICAST,
	AT_NET_BROADCAST,
	AT_NET_HOST_OWN,      /* an address of one of the host's interfaces */
	AT_NET_RESERVED,      /* cannot be routed on the internet */
	AT_NET_CLASS_COUNT
};

/* The host's own addresses, as getifaddrs(3) lists them (IPv4 as IPv4-mapped). */
struct at_net_hostaddrs {
	struct in6_addr *v;
	size_t n;
};

#define AT_NET_HOSTADDRS_INIT { NULL, 0 }

/* Read the host's interface and broadcast addresses; AT_ESYS. Replaces what *h held. */
int at_net_hostaddrs_load(struct at_net_hostaddrs *h, struct at_error *err);
void at_net_hostaddrs_release(struct at_net_hostaddrs *h);

/* The class of an address (IPv4 given as IPv4-mapped); own may be NULL. */
enum at_net_class at_net_classify(const struct in6_addr *a, const struct at_net_hostaddrs *own);

/* The class of a socket address (AF_INET or AF_INET6; anything else is RESERVED). */
enum at_net_class at_net_classify_sa(const struct sockaddr *sa,
				     const struct at_net_hostaddrs *own);

/* May the proxy dial an address of this class? */
bool at_net_class_allowed(enum at_net_class c, bool deny_private);

/* "loopback", "a cloud metadata address", ... for messages. */
const char *at_net_class_name(enum at_net_class c);

/* IPv4 as IPv4-mapped; IPv6 as is. */
void at_net_addr_from_sa(const struct sockaddr *sa, struct in6_addr *out);

/* "1.2.3.4" for IPv4-mapped addresses, "2001:db8::1" otherwise. */
void at_net_addr_format(const struct in6_addr *a, char *buf, size_t size);

#endif
