/*
 * proxy.h - the allowlist proxy, served on listening sockets its caller made.
 *
 * The proxy never makes the sockets the sandbox connects to: the caller
 * creates them (in the sandbox's network namespace, see sandbox/) and hands
 * them over. The proxy makes only the sockets it dials, in its own (the
 * host's) namespace. A PROXY listener speaks, on the same port, HTTP CONNECT
 * (https and any other TCP), plain HTTP with absolute http:// URIs, and
 * SOCKS5 (CONNECT, with names or addresses; the first byte tells which). A
 * FORWARD listener sends every connection to the host's 127.0.0.1:port; a
 * PUBLISH listener (on the host, for a port published from a sandbox) to
 * 127.0.0.1:port through a socket its caller makes in the sandbox's
 * namespace (opts.socket).
 *
 * A request is allowed when a rule matches the host and port the client
 * named; the name is then resolved on the host (net/resolve), every address
 * is judged (net/addr), and one that may be dialled is dialled: never a
 * second lookup. A refusal is an HTTP 403 (or a SOCKS5 "not allowed by
 * ruleset") whose text names the host and the rule or address class; a
 * failure to reach an allowed host is a 502 (SOCKS5: unreachable/refused).
 * A CONNECT (or SOCKS5) stream that starts with a TLS ClientHello must name
 * the host that was allowed: a hello for another name, or for none when the
 * host was named (domain fronting onto a shared address, or its default
 * host), closes the connection. Only a host named as an IP literal takes a
 * hello without a name.
 *
 * Plain HTTP: one request per connection, the client's and upstream's
 * ("Connection: close"): exactly the body its head declares is forwarded,
 * what follows is dropped, and the connection ends with the response. The
 * Host header is replaced by the URI's, Proxy-* headers dropped; ambiguous
 * framing and protocol upgrades are a 400 (net/wire.h).
 *
 * Threads: one event-loop thread (epoll, non-blocking sockets, splice()
 * through a pipe per direction), the resolver's workers, and a thread per
 * terminated connection (net/term.h). The record callbacks run on the loop
 * thread and on the terminated connections' threads: they must lock. at_net_proxy_stop() ends every
 * connection (recording it), joins every thread and closes every descriptor,
 * the listeners included: nothing of the proxy outlives it.
 *
 * Descriptors: a relayed connection holds six. The proxy raises the soft
 * RLIMIT_NOFILE of the process (to at most its hard limit) to hold
 * max_conns; a process made after at_net_proxy_start() inherits that.
 */
#ifndef AT_NET_PROXY_H
#define AT_NET_PROXY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "net/rules.h"
#include "net/term.h"

enum at_net_listen_kind {
	AT_NET_LISTEN_PROXY,      /* HTTP CONNECT, HTTP absolute URIs, SOCKS5 */
	AT_NET_LISTEN_FORWARD,    /* every connection to the host's 127.0.0.1:port */
	AT_NET_LISTEN_PUBLISH,    /* every connection to 127.0.0.1:port through a socket of
				     opts.socket (made in another namespace: a published port) */
};

struct at_net_listener {
	int fd;                   /* listening TCP socket; the proxy owns it from start */
	enum at_net_listen_kind kind;
	uint16_t port;            /* FORWARD: the host's port */
};

enum at_net_proto {
	AT_NET_PROTO_CONNECT,
	AT_NET_PROTO_HTTP,
	AT_NET_PROTO_SOCKS5,
	AT_NET_PROTO_FORWARD,
	AT_NET_PROTO_UNKNOWN,     /* the request could not be read */
};

/* One connection, when it ends. Strings are valid during the callback only. */
struct at_net_record {
	enum at_net_proto proto;
	const char *host;         /* canonical as the client named it; "" if unreadable */
	uint16_t port;
	const char *addr;         /* the address dialled, or the one refused; "" if none */
	bool allowed;             /* passed the rules and the address check */
	const char *rule;         /* the pattern that matched (even if the address was then
				     refused); NULL for FORWARD or when none did */
	const char *reason;       /* why it was refused or failed; NULL if it did not */
	uint64_t bytes_up;        /* sandbox to remote */
	uint64_t bytes_down;      /* remote to sandbox */
	int64_t start_ms;         /* wall clock, ms since the epoch */
	int64_t duration_ms;
	bool terminated;          /* the proxy took its TLS (net/term.h): its requests are
				     recorded one by one as well */
};

typedef void (*at_net_record_fn)(const struct at_net_record *rec, void *ctx);

/* One request on a terminated connection (net/term.h), when it is answered or refused. */
struct at_net_request {
	const char *host;
	const char *method;
	const char *path;         /* without the query */
	int status;               /* the upstream's, or the proxy's refusal; 0: no response */
	const char *refused;      /* why the proxy refused it or it failed; NULL if neither */
	uint64_t bytes_up, bytes_down;
	int64_t start_ms, duration_ms;
	const char *secret;       /* the secret put into it, or NULL */
	const char *stray;        /* a secret whose placeholder it carried unchanged (to a
				     host that secret is not bound to), or NULL */
};

typedef void (*at_net_request_fn)(const struct at_net_request *req, void *ctx);

struct at_net_proxy_opts {
	const struct at_net_listener *listeners;
	size_t nlisteners;
	const struct at_net_rules *rules;  /* read only, must outlive the proxy */
	bool deny_private;        /* refuse private ranges too */
	bool no_sni_check;        /* skip the ClientHello check */
	at_net_record_fn record;  /* may be NULL */
	at_net_request_fn request;  /* may be NULL; called with record_ctx, on any thread */
	void *record_ctx;
	const struct at_net_term *term;  /* hosts whose TLS is terminated (net/term.h), or NULL */
	unsigned max_conns;       /* 0: 1024 at once; more wait in the listen queue */
	unsigned connect_timeout_ms;  /* each address tried; 0: 10 s */
	/*
	 * PUBLISH listeners: an unconnected, non-blocking TCP IPv4 socket to
	 * connect() with (its namespace decides where 127.0.0.1 is), the
	 * proxy's to close; -1 with errno. Called on the loop thread.
	 */
	int (*socket)(void *ctx);
	void *socket_ctx;
};

#define AT_NET_PROXY_OPTS_INIT { 0 }

struct at_net_proxy;

/*
 * Start serving. The listeners' descriptors belong to the proxy from this
 * call on, and are closed on failure too. AT_ESYS on failure.
 */
int at_net_proxy_start(const struct at_net_proxy_opts *opts, struct at_net_proxy **out,
		       struct at_error *err);

/* Stop, end every connection, join every thread, close everything. NULL-safe. */
void at_net_proxy_stop(struct at_net_proxy *p);

const char *at_net_proto_name(enum at_net_proto p);

#endif
