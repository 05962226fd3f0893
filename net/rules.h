/*
 * rules.h - the allowlist of `--allow-host` and a policy check's `allow_hosts`.
 *
 * A pattern is one of
 *   host           a DNS name: ports 80 and 443
 *   host:port      that name, that port only
 *   *.domain       every name below domain (not domain itself): 80 and 443
 *   *.domain:port  the same, that port only
 *   IP, IP:port    an IPv4 literal, or an IPv6 one in brackets ([::1]:443;
 *                  a bare IPv6 literal is taken whole, without a port)
 *
 * Names are compared case-insensitively, one trailing dot ignored. An IP
 * literal matches only a request that names that address as a literal, and a
 * name matches only a request that names it: a pattern never matches by what
 * a name resolves to. A wildcard must cover at least two labels ("*.com" and
 * "*" are refused: the first is a whole top-level domain, the second is
 * `--net`), and a name whose last label is a number (or any spelling that
 * inet_aton(3) would read as an address, such as "127.1" or "0x7f000001") is
 * not a name. The rules say nothing about addresses: net/addr refuses the
 * classes that are never dialled, whatever a rule allows.
 *
 * The list owns copies of its patterns. Matching is by the caller's thread;
 * a list that is no longer changed may be read by several threads.
 */
#ifndef AT_NET_RULES_H
#define AT_NET_RULES_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

#define AT_NET_HOST_MAX 253  /* the longest DNS name, without the trailing dot */

enum at_net_rule_kind {
	AT_NET_RULE_NAME,      /* exactly this name */
	AT_NET_RULE_SUFFIX,    /* any name strictly below this one */
	AT_NET_RULE_IP,        /* this address, given as a literal */
};

struct at_net_rule {
	enum at_net_rule_kind kind;
	char host[AT_NET_HOST_MAX + 1];  /* lower case; for SUFFIX without the "*." */
	struct in6_addr ip;    /* kind IP: the address (IPv4 as IPv4-mapped) */
	uint16_t port;         /* 0: ports 80 and 443 */
	char text[AT_NET_HOST_MAX + 16];  /* the pattern as given, for messages */
};

struct at_net_rules {
	struct at_net_rule *v;
	size_t n, cap;
};

#define AT_NET_RULES_INIT { NULL, 0, 0 }

/* Parse one pattern into *out. AT_EUSAGE naming the pattern when it is malformed. */
int at_net_rule_parse(const char *pattern, struct at_net_rule *out, struct at_error *err);

/* Parse and append; AT_EUSAGE (list unchanged) or AT_ESYS (out of memory). */
int at_net_rules_add(struct at_net_rules *rules, const char *pattern, struct at_error *err);

void at_net_rules_release(struct at_net_rules *rules);

/*
 * The rule that allows a request for host:port, or NULL. host is what the
 * client named: a DNS name or an IP literal (IPv6 with or without brackets).
 * A host that is neither a valid name nor a literal matches nothing.
 */
const struct at_net_rule *at_net_rules_match(const struct at_net_rules *rules, const char *host,
					     uint16_t port);

/*
 * A requested host in canonical form: a valid name in lower case without a
 * trailing dot, or an IP literal (stored in *ip, IPv4 as IPv4-mapped, with
 * *is_ip set). false for anything else; out is then unspecified.
 */
bool at_net_host_canon(const char *host, char out[AT_NET_HOST_MAX + 1], struct in6_addr *ip,
		       bool *is_ip);

/*
 * Split "host", "host:port", "[v6]" or "[v6]:port" (or a bare IPv6 literal,
 * without a port) into host (brackets kept) and port (0 when none). false
 * when the host is empty, the port is not 1-65535 or the text does not fit;
 * the host is not checked further (at_net_host_canon does that).
 */
bool at_net_split_authority(const char *s, char host[AT_NET_HOST_MAX + 3], uint16_t *port);

#endif
