/*
 * term.h - the hosts whose TLS the proxy terminates, and what it holds for
 * them: the secrets it puts into their requests and the rules each request
 * must pass (docs/security.md, "Secrets and request rules").
 *
 * A host is terminated when a secret is bound to it or it has request
 * rules; every other allowed host stays an end-to-end tunnel. For a
 * terminated host, a CONNECT (or SOCKS5) is answered by the proxy itself:
 * it takes the client's TLS with a certificate for that host made by the
 * task's CA (net/tls.h), opens its own TLS to the real host (verified
 * against the system's trust store, the name checked), and judges each
 * request on the connection by itself (net/http1.h): the CONNECT host, the
 * TLS server name and the request's Host must be one name; the method and
 * path must pass the host's rules; a secret's placeholder is replaced by
 * its value only in a request to a host the secret is bound to, and such a
 * host takes no credential but the placeholder. A secret's value is never
 * sent to the sandbox: what a response echoes of it is replaced by the
 * placeholder (the two have the same length).
 *
 * The structures are the caller's (app/secrets.c), read-only while the
 * proxy runs; values point into a vault (core/vault.h).
 */
#ifndef AT_NET_TERM_H
#define AT_NET_TERM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/strlist.h"
#include "net/rules.h"

#define AT_NET_SECRETS_MAX 32
#define AT_NET_SECRET_NAME_MAX 64
#define AT_NET_SECRET_MAX 4096   /* the longest value */

/* Where a secret may stand in a request (config "header"). */
enum at_net_cred {
	AT_NET_CRED_ANY,          /* Authorization (any scheme), x-api-key, or a header of the
				     secret's own: the placeholder whole, or as Basic's password */
	AT_NET_CRED_HEADER,       /* only the header named */
	AT_NET_CRED_BEARER,       /* only "Authorization: Bearer PLACEHOLDER" */
	AT_NET_CRED_BASIC,        /* only HTTP basic auth's password (git over HTTPS) */
};

struct at_net_secret {
	char name[AT_NET_SECRET_NAME_MAX + 1];
	const char *value;        /* in a vault */
	size_t len;
	char *placeholder;        /* len bytes too, NUL-terminated (owned by the caller) */
	enum at_net_cred where;
	char header[AT_NET_SECRET_NAME_MAX + 1];  /* lower case; CRED_HEADER */
};

struct at_net_term_host {
	char host[AT_NET_HOST_MAX + 1];  /* canonical (net/rules.h) */
	uint32_t secrets;         /* bit i: secrets[i] is bound here */
	struct at_strlist methods;  /* allowed methods; none: any */
	struct at_strlist paths;    /* allowed path prefixes; none: any */
	bool rules;               /* methods or paths were given */
};

struct at_net_term {
	struct at_net_secret secrets[AT_NET_SECRETS_MAX];
	size_t nsecrets;
	struct at_net_term_host *hosts;
	size_t nhosts;
	struct at_net_ca *ca;     /* net/tls.h: the task's CA, made or loaded by the caller */
};

/* The terminated host named host (canonical), or NULL. */
const struct at_net_term_host *at_net_term_find(const struct at_net_term *t, const char *host);

#endif
