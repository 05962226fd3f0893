#include "net/addr.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct prefix4 {
	uint32_t net;
	unsigned len;
	enum at_net_class c;
};

#define V4(a, b, c, d) (((uint32_t)(a) << 24) | ((uint32_t)(b) << 16) | ((uint32_t)(c) << 8) | (d))

/*
 * IPv4, first match wins: the metadata addresses before the ranges holding
 * them, so that a message names the worse thing.
 *
 * Cloud metadata services (sources: each provider's documentation):
 *   169.254.169.254  AWS EC2 IMDS, Google Compute Engine, Azure IMDS, OpenStack,
 *                    Oracle Cloud, DigitalOcean, Hetzner, Scaleway's old one
 *   169.254.169.123  AWS Time Sync (same host path as IMDS)
 *   169.254.170.2    AWS ECS task metadata and credentials endpoint
 *   169.254.170.23   AWS EKS Pod Identity agent (credentials)
 *   169.254.0.23     Tencent Cloud metadata.tencentyun.com
 *   100.100.100.200  Alibaba Cloud ECS metadata (inside 100.64.0.0/10)
 *   192.0.0.192      Oracle Cloud Infrastructure Classic metadata
 *   168.63.129.16    Azure WireServer (host agent; a public address)
 * Link-local ones are refused as link-local anyway; 100.100.100.200,
 * 192.0.0.192 and 168.63.129.16 are why the list exists.
 */
static const struct prefix4 v4_table[] = {
	{ V4(169, 254, 169, 254), 32, AT_NET_METADATA },
	{ V4(169, 254, 169, 123), 32, AT_NET_METADATA },
	{ V4(169, 254, 170, 2), 32, AT_NET_METADATA },
	{ V4(169, 254, 170, 23), 32, AT_NET_METADATA },
	{ V4(169, 254, 0, 23), 32, AT_NET_METADATA },
	{ V4(100, 100, 100, 200), 32, AT_NET_METADATA },
	{ V4(192, 0, 0, 192), 32, AT_NET_METADATA },
	{ V4(168, 63, 129, 16), 32, AT_NET_METADATA },
	{ V4(255, 255, 255, 255), 32, AT_NET_BROADCAST },
	{ V4(0, 0, 0, 0), 8, AT_NET_UNSPECIFIED },        /* RFC 1122 "this network" */
	{ V4(127, 0, 0, 0), 8, AT_NET_LOOPBACK },
	{ V4(169, 254, 0, 0), 16, AT_NET_LINK_LOCAL },    /* RFC 3927 */
	{ V4(224, 0, 0, 0), 4, AT_NET_MULTICAST },
	{ V4(240, 0, 0, 0), 4, AT_NET_RESERVED },         /* RFC 1112 class E */
	{ V4(192, 0, 0, 0), 24, AT_NET_RESERVED },        /* RFC 6890 IETF protocol assignments */
	{ V4(10, 0, 0, 0), 8, AT_NET_PRIVATE },           /* RFC 1918 */
	{ V4(172, 16, 0, 0), 12, AT_NET_PRIVATE },
	{ V4(192, 168, 0, 0), 16, AT_NET_PRIVATE },
	{ V4(100, 64, 0, 0), 10, AT_NET_PRIVATE },        /* RFC 6598 shared (CGNAT) */
};

struct prefix6 {
	uint8_t net[16];
	unsigned len;
	enum at_net_class c;
};

/*
 * IPv6 metadata addresses:
 *   fd00:ec2::254   AWS EC2 IMDS over IPv6 (Nitro instances)
 *   fd00:ec2::23    AWS EKS Pod Identity agent over IPv6
 *   fd20:ce::254    Google Compute Engine metadata over IPv6
 * All three are in fc00::/7, which is only refused as private on request:
 * hence the list.
 */
static const struct prefix6 v6_table[] = {
	{ { 0xfd, 0x00, 0x0e, 0xc2, [15] = 0x54, [14] = 0x02 }, 128, AT_NET_METADATA },
	{ { 0xfd, 0x00, 0x0e, 0xc2, [15] = 0x23 }, 128, AT_NET_METADATA },
	{ { 0xfd, 0x20, 0x00, 0xce, [15] = 0x54, [14] = 0x02 }, 128, AT_NET_METADATA },
	{ { [15] = 1 }, 128, AT_NET_LOOPBACK },
	{ { 0 }, 128, AT_NET_UNSPECIFIED },
	{ { 0 }, 96, AT_NET_RESERVED },                   /* IPv4-compatible, RFC 4291 deprecated */
	{ { 0xfe, 0x80 }, 10, AT_NET_LINK_LOCAL },
	{ { 0xff }, 8, AT_NET_MULTICAST },
	{ { 0x01 }, 64, AT_NET_RESERVED },                /* 100::/64 discard, RFC 6666 */
	{ { 0x00, 0x64, 0xff, 0x9b, 0x00, 0x01 }, 48, AT_NET_PRIVATE },  /* local NAT64, RFC 8215 */
	{ { 0xfe, 0xc0 }, 10, AT_NET_PRIVATE },           /* site-local, RFC 3879 deprecated */
	{ { 0xfc }, 7, AT_NET_PRIVATE },                  /* unique local, RFC 4193 */
};

static bool prefix6_match(const uint8_t *a, const uint8_t *net, unsigned len)
{
	unsigned whole = len / 8, rest = len % 8;

	if (memcmp(a, net, whole) != 0)
		return false;
	if (rest == 0)
		return true;
	uint8_t mask = (uint8_t)(0xff << (8 - rest));
	return (a[whole] & mask) == (net[whole] & mask);
}

static uint32_t be32_at(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static void mapped_from_v4(uint32_t v4, struct in6_addr *out)
{
	memset(out, 0, sizeof(*out));
	out->s6_addr[10] = 0xff;
	out->s6_addr[11] = 0xff;
	out->s6_addr[12] = (uint8_t)(v4 >> 24);
	out->s6_addr[13] = (uint8_t)(v4 >> 16);
	out->s6_addr[14] = (uint8_t)(v4 >> 8);
	out->s6_addr[15] = (uint8_t)v4;
}

static bool host_own(const struct in6_addr *a, const struct at_net_hostaddrs *own)
{
	for (size_t i = 0; own && i < own->n; i++)
		if (memcmp(&own->v[i], a, sizeof(*a)) == 0)
			return true;
	return false;
}

/* A private or public address of the host's own is the host's. */
static enum at_net_class own_or(enum at_net_class c, const struct in6_addr *a,
				const struct at_net_hostaddrs *own)
{
	if ((c == AT_NET_PUBLIC || c == AT_NET_PRIVATE) && host_own(a, own))
		return AT_NET_HOST_OWN;
	return c;
}

static enum at_net_class classify_v4(uint32_t v4, const struct at_net_hostaddrs *own)
{
	enum at_net_class c = AT_NET_PUBLIC;
	struct in6_addr mapped;

	for (size_t i = 0; i < sizeof(v4_table) / sizeof(v4_table[0]); i++) {
		const struct prefix4 *p = &v4_table[i];
		uint32_t mask = p->len ? ~(uint32_t)0 << (32 - p->len) : 0;
		if ((v4 & mask) == p->net) {
			c = p->c;
			break;
		}
	}
	mapped_from_v4(v4, &mapped);
	return own_or(c, &mapped, own);
}

/* The worse of two classes: anything refused beats PRIVATE, which beats PUBLIC. */
static enum at_net_class worse(enum at_net_class a, enum at_net_class b)
{
	if (a == AT_NET_PUBLIC)
		return b;
	if (b == AT_NET_PUBLIC || b == AT_NET_PRIVATE)
		return a;
	return a == AT_NET_PRIVATE ? b : a;
}

/* The IPv4 address a 6to4, NAT64 or Teredo address delivers to, judged as such. */
static bool embedded_v4(const uint8_t *b, const struct at_net_hostaddrs *own,
			enum at_net_class *out)
{
	static const uint8_t nat64[12] = { 0x00, 0x64, 0xff, 0x9b };

	if (memcmp(b, nat64, 12) == 0) {
		*out = classify_v4(be32_at(b + 12), own);
		return true;
	}
	if (b[0] == 0x20 && b[1] == 0x02) {
		*out = classify_v4(be32_at(b + 2), own);
		return true;
	}
	if (b[0] == 0x20 && b[1] == 0x01 && b[2] == 0 && b[3] == 0) {
		*out = worse(classify_v4(be32_at(b + 4), own),
			     classify_v4(~be32_at(b + 12), own));
		return true;
	}
	return false;
}

enum at_net_class at_net_classify(const struct in6_addr *a, const struct at_net_hostaddrs *own)
{
	const uint8_t *b = a->s6_addr;
	enum at_net_class c;

	if (IN6_IS_ADDR_V4MAPPED(a))
		return classify_v4(be32_at(b + 12), own);
	for (size_t i = 0; i < sizeof(v6_table) / sizeof(v6_table[0]); i++)
		if (prefix6_match(b, v6_table[i].net, v6_table[i].len))
			return own_or(v6_table[i].c, a, own);
	if (embedded_v4(b, own, &c))
		return own_or(c, a, own);
	return own_or(AT_NET_PUBLIC, a, own);
}

void at_net_addr_from_sa(const struct sockaddr *sa, struct in6_addr *out)
{
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
		mapped_from_v4(ntohl(in->sin_addr.s_addr), out);
	} else {
		*out = ((const struct sockaddr_in6 *)sa)->sin6_addr;
	}
}

enum at_net_class at_net_classify_sa(const struct sockaddr *sa,
				     const struct at_net_hostaddrs *own)
{
	struct in6_addr a;

	if (sa->sa_family != AF_INET && sa->sa_family != AF_INET6)
		return AT_NET_RESERVED;
	at_net_addr_from_sa(sa, &a);
	return at_net_classify(&a, own);
}

bool at_net_class_allowed(enum at_net_class c, bool deny_private)
{
	return c == AT_NET_PUBLIC || (c == AT_NET_PRIVATE && !deny_private);
}

const char *at_net_class_name(enum at_net_class c)
{
	static const char *const names[AT_NET_CLASS_COUNT] = {
		[AT_NET_PUBLIC] = "a public address",
		[AT_NET_PRIVATE] = "a private address",
		[AT_NET_LOOPBACK] = "a loopback address",
		[AT_NET_UNSPECIFIED] = "the unspecified address",
		[AT_NET_LINK_LOCAL] = "a link-local address",
		[AT_NET_METADATA] = "a cloud metadata address",
		[AT_NET_MULTICAST] = "a multicast address",
		[AT_NET_BROADCAST] = "a broadcast address",
		[AT_NET_HOST_OWN] = "an address of this host",
		[AT_NET_RESERVED] = "a reserved address",
	};
	return (unsigned)c < AT_NET_CLASS_COUNT ? names[c] : "an unknown address";
}

void at_net_addr_format(const struct in6_addr *a, char *buf, size_t size)
{
	if (IN6_IS_ADDR_V4MAPPED(a))
		inet_ntop(AF_INET, &a->s6_addr[12], buf, (socklen_t)size);
	else
		inet_ntop(AF_INET6, a, buf, (socklen_t)size);
}

static int hostaddrs_push(struct at_net_hostaddrs *h, size_t *cap, const struct sockaddr *sa)
{
	if (!sa || (sa->sa_family != AF_INET && sa->sa_family != AF_INET6))
		return 0;
	if (h->n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;
		struct in6_addr *v = reallocarray(h->v, ncap, sizeof(*v));
		if (!v)
			return -1;
		h->v = v;
		*cap = ncap;
	}
	at_net_addr_from_sa(sa, &h->v[h->n++]);
	return 0;
}

int at_net_hostaddrs_load(struct at_net_hostaddrs *h, struct at_error *err)
{
	struct at_net_hostaddrs fresh = AT_NET_HOSTADDRS_INIT;
	struct ifaddrs *list, *i;
	size_t cap = 0;

	if (getifaddrs(&list) < 0)
		return at_error_sys(err, AT_ESYS, "cannot list the host's addresses");
	for (i = list; i; i = i->ifa_next) {
		const struct sockaddr *bcast =
			(i->ifa_flags & IFF_BROADCAST) ? i->ifa_broadaddr : NULL;
		if (hostaddrs_push(&fresh, &cap, i->ifa_addr) < 0 ||
		    hostaddrs_push(&fresh, &cap, bcast) < 0) {
			freeifaddrs(list);
			free(fresh.v);
			return at_error_sys(err, AT_ESYS, "out of memory");
		}
	}
	freeifaddrs(list);
	at_net_hostaddrs_release(h);
	*h = fresh;
	return 0;
}

void at_net_hostaddrs_release(struct at_net_hostaddrs *h)
{
	if (!h)
		return;
	free(h->v);
	h->v = NULL;
	h->n = 0;
}
