#include "net/rules.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* An IP literal, IPv4 stored IPv4-mapped so that both families compare alike. */
static bool parse_ip(const char *s, struct in6_addr *out)
{
	struct in_addr v4;

	if (inet_pton(AF_INET, s, &v4) == 1) {
		memset(out, 0, sizeof(*out));
		out->s6_addr[10] = 0xff;
		out->s6_addr[11] = 0xff;
		memcpy(&out->s6_addr[12], &v4, 4);
		return true;
	}
	if (inet_pton(AF_INET6, s, out) == 1)
		return true;
	return false;
}

static bool copy_str(char *out, size_t size, const char *s)
{
	size_t len = strlen(s);

	if (len >= size)
		return false;
	memcpy(out, s, len + 1);
	return true;
}

/* One DNS label: letters, digits, '-' (not first or last) and '_', 1..63 bytes. */
static bool label_ok(const char *s, size_t len)
{
	if (len == 0 || len > 63 || s[0] == '-' || s[len - 1] == '-')
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (!isalnum(c) && c != '-' && c != '_')
			return false;
	}
	return true;
}

static bool all_digits(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return len > 0;
}

/*
 * A DNS name in lower case, one trailing dot dropped. A last label of digits
 * is refused, and so is whatever inet_aton() reads as an address: the
 * resolver would take "127.1" or "0x7f000001" as a literal, and a rule
 * for a name must never match one.
 */
static bool name_canon(const char *s, char out[AT_NET_HOST_MAX + 1])
{
	size_t len = strlen(s), start = 0;
	struct in_addr ignored;

	if (len > 0 && s[len - 1] == '.')
		len--;
	if (len == 0 || len > AT_NET_HOST_MAX)
		return false;
	for (size_t i = 0; i <= len; i++) {
		if (i < len && s[i] != '.')
			continue;
		if (!label_ok(s + start, i - start))
			return false;
		if (i == len && all_digits(s + start, i - start))
			return false;
		start = i + 1;
	}
	for (size_t i = 0; i < len; i++)
		out[i] = (char)tolower((unsigned char)s[i]);
	out[len] = '\0';
	return inet_aton(out, &ignored) == 0;
}

bool at_net_host_canon(const char *host, char out[AT_NET_HOST_MAX + 1], struct in6_addr *ip,
		       bool *is_ip)
{
	size_t len = strlen(host);
	char buf[INET6_ADDRSTRLEN + 2];

	if (len >= 2 && host[0] == '[' && host[len - 1] == ']') {
		if (len - 2 >= sizeof(buf))
			return false;
		memcpy(buf, host + 1, len - 2);
		buf[len - 2] = '\0';
		if (!strchr(buf, ':') || inet_pton(AF_INET6, buf, ip) != 1)
			return false;
		*is_ip = true;
		return copy_str(out, AT_NET_HOST_MAX + 1, buf);
	}
	if (parse_ip(host, ip)) {
		*is_ip = true;
		return copy_str(out, AT_NET_HOST_MAX + 1, host);
	}
	*is_ip = false;
	return name_canon(host, out);
}

/* "1".."65535", decimal digits only. */
static bool parse_port(const char *s, uint16_t *out)
{
	unsigned long v = 0;
	size_t len = strlen(s);

	if (!all_digits(s, len) || len > 5)
		return false;
	v = strtoul(s, NULL, 10);
	if (v == 0 || v > 65535)
		return false;
	*out = (uint16_t)v;
	return true;
}

static int malformed(struct at_error *err, const char *pattern, const char *why)
{
	return at_error_set(err, AT_EUSAGE, "malformed host pattern '%s': %s", pattern, why);
}

/* Split "host:port", "[v6]:port", "[v6]" or a bare IPv6 literal into host and port text. */
static bool split_port(const char *pattern, char *host, size_t size, const char **port)
{
	const char *colon;

	*port = NULL;
	if (pattern[0] == '[') {
		const char *close = strchr(pattern, ']');
		if (!close || (close[1] != '\0' && close[1] != ':'))
			return false;
		if (close[1] == ':')
			*port = close + 2;
		if ((size_t)(close - pattern) + 2 > size)
			return false;
		memcpy(host, pattern, (size_t)(close - pattern) + 1);
		host[close - pattern + 1] = '\0';
		return true;
	}
	colon = strchr(pattern, ':');
	if (colon && strchr(colon + 1, ':'))
		return copy_str(host, size, pattern);  /* a bare IPv6 literal */
	if (colon) {
		*port = colon + 1;
		if ((size_t)(colon - pattern) >= size)
			return false;
		memcpy(host, pattern, (size_t)(colon - pattern));
		host[colon - pattern] = '\0';
		return true;
	}
	return copy_str(host, size, pattern);
}

bool at_net_split_authority(const char *s, char host[AT_NET_HOST_MAX + 3], uint16_t *port)
{
	const char *port_text;

	*port = 0;
	if (!split_port(s, host, AT_NET_HOST_MAX + 3, &port_text) || !host[0])
		return false;
	return !port_text || parse_port(port_text, port);
}

static int parse_host(const char *pattern, const char *host, struct at_net_rule *r,
		      struct at_error *err)
{
	bool is_ip = false;

	if (host[0] == '*') {
		if (host[1] != '.' || !name_canon(host + 2, r->host) || !strchr(r->host, '.'))
			return malformed(err, pattern, "a wildcard is '*.' and a domain of two "
					 "labels or more");
		r->kind = AT_NET_RULE_SUFFIX;
		return 0;
	}
	if (!at_net_host_canon(host, r->host, &r->ip, &is_ip))
		return malformed(err, pattern, "not a host name or IP address");
	r->kind = is_ip ? AT_NET_RULE_IP : AT_NET_RULE_NAME;
	return 0;
}

int at_net_rule_parse(const char *pattern, struct at_net_rule *out, struct at_error *err)
{
	struct at_net_rule r;
	char host[AT_NET_HOST_MAX + 4];
	const char *port;

	memset(&r, 0, sizeof(r));
	if (!copy_str(r.text, sizeof(r.text), pattern))
		return at_error_set(err, AT_EUSAGE, "malformed host pattern '%.64s...': too long",
				    pattern);
	if (!split_port(pattern, host, sizeof(host), &port))
		return malformed(err, pattern, "not a host name or IP address");
	if (port && !parse_port(port, &r.port))
		return malformed(err, pattern, "a port is a number from 1 to 65535");
	if (parse_host(pattern, host, &r, err) < 0)
		return err->code;
	*out = r;
	return 0;
}

int at_net_rules_add(struct at_net_rules *rules, const char *pattern, struct at_error *err)
{
	struct at_net_rule r;

	if (at_net_rule_parse(pattern, &r, err) < 0)
		return err->code;
	if (rules->n == rules->cap) {
		size_t cap = rules->cap ? rules->cap * 2 : 8;
		struct at_net_rule *v = reallocarray(rules->v, cap, sizeof(*v));
		if (!v)
			return at_error_sys(err, AT_ESYS, "out of memory");
		rules->v = v;
		rules->cap = cap;
	}
	rules->v[rules->n++] = r;
	return 0;
}

void at_net_rules_release(struct at_net_rules *rules)
{
	if (!rules)
		return;
	free(rules->v);
	rules->v = NULL;
	rules->n = rules->cap = 0;
}

static bool port_ok(const struct at_net_rule *r, uint16_t port)
{
	if (r->port)
		return r->port == port;
	return port == 80 || port == 443;
}

static bool host_ok(const struct at_net_rule *r, const char *host, const struct in6_addr *ip,
		    bool is_ip)
{
	size_t hlen, rlen;

	switch (r->kind) {
	case AT_NET_RULE_IP:
		return is_ip && memcmp(ip, &r->ip, sizeof(*ip)) == 0;
	case AT_NET_RULE_NAME:
		return !is_ip && strcmp(host, r->host) == 0;
	case AT_NET_RULE_SUFFIX:
		hlen = strlen(host);
		rlen = strlen(r->host);
		return !is_ip && hlen > rlen + 1 && host[hlen - rlen - 1] == '.' &&
		       strcmp(host + hlen - rlen, r->host) == 0;
	}
	return false;
}

const struct at_net_rule *at_net_rules_match(const struct at_net_rules *rules, const char *host,
					     uint16_t port)
{
	char canon[AT_NET_HOST_MAX + 1];
	struct in6_addr ip;
	bool is_ip;

	if (!at_net_host_canon(host, canon, &ip, &is_ip))
		return NULL;
	for (size_t i = 0; i < rules->n; i++)
		if (port_ok(&rules->v[i], port) && host_ok(&rules->v[i], canon, &ip, is_ip))
			return &rules->v[i];
	return NULL;
}
