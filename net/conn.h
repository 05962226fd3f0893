/*
 * conn.h - one proxied connection, internal to net/ (proxy.c runs the loop,
 * conn.c the protocol and the relay).
 *
 * A connection goes REQUEST (reading what the client asks for) -> RESOLVING
 * (a resolver job holds it: it cannot be freed until the job comes back) ->
 * CONNECTING (each dialable address in turn) -> RELAY (two halves, each a
 * pipe spliced from one socket to the other; both sockets edge-triggered
 * for reading and writing, registered once; plain HTTP's request half is
 * copied instead, to forward exactly one request). Only the loop thread touches a
 * connection. A closed connection is recorded, its descriptors closed, and
 * it is freed after the current batch of events (a later event of the batch
 * may still name it).
 */
#ifndef AT_NET_CONN_H
#define AT_NET_CONN_H

#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "net/proxy.h"
#include "net/resolve.h"
#include "net/wire.h"

#define AT_CONN_BUF (AT_WIRE_HEAD_MAX + 1024)  /* a request head, or a first TLS record */

enum at_conn_state { AT_CONN_REQUEST, AT_CONN_RESOLVING, AT_CONN_CONNECTING, AT_CONN_RELAY };

enum at_tag_kind { AT_TAG_LISTEN, AT_TAG_CLIENT, AT_TAG_UPSTREAM, AT_TAG_WAKE, AT_TAG_RESOLVED };

struct at_tag {
	enum at_tag_kind kind;
	void *obj;
};

struct at_half {
	int *from, *to;
	bool *readable, *writable;  /* of from and to: set by an edge, cleared by EAGAIN */
	int pipe[2];
	size_t inpipe;             /* bytes in the pipe, not yet written to `to` */
	size_t cap;                /* the pipe's size */
	bool grown;                /* asked for PIPE_SIZE already */
	char *pend;                /* bytes to write to `to` before the pipe's */
	size_t pend_len, pend_off;
	bool hold;                 /* do not read `from` (the TLS check reads it) */
	bool eof, done;
	uint64_t bytes;
	/*
	 * Plain HTTP's request half: copied (recv into fbuf, sent from pend), not
	 * spliced, exactly the body its head declared; what follows the body is
	 * read and dropped, never sent (the next request is another connection's).
	 */
	bool framed;
	bool broken;               /* framed: the body broke its framing */
	struct at_wire_body body;
	char *fbuf;                /* framed: the connection's buf */
	size_t fcap;
};

struct at_proxy;

struct at_conn {
	struct at_proxy *p;
	struct at_conn *prev, *next;
	struct at_tag ctag, utag;
	int cfd, ufd;
	bool crd, cwr, urd, uwr;   /* in the relay: may cfd/ufd be read/written without EAGAIN */
	uint32_t cev, uev;         /* the interests registered with epoll (0: not registered) */
	enum at_conn_state st;
	enum at_net_proto proto;
	bool dead, quiet;          /* quiet: nothing was read, nothing to record */
	bool publish;              /* dialled through opts.socket (AT_NET_LISTEN_PUBLISH) */
	bool busy;                 /* in the proxy's busy list */
	struct at_conn *busy_next;
	int socks_step;            /* 0 greeting, 1 request */
	char *buf;                 /* what the client sent before the relay */
	size_t len, bufcap;
	bool peek;                 /* waiting for the start of the stream (TLS check) */
	char host[AT_NET_HOST_MAX + 1];
	uint16_t port;
	char addr[INET6_ADDRSTRLEN];
	char target[AT_NET_HOST_MAX + 10];  /* "host:port" for messages */
	const char *rule;
	bool allowed;
	char reason[256];
	const struct at_net_term_host *term;  /* its TLS is the proxy's (net/term.h) */
	struct sockaddr_in6 cand[AT_RESOLVE_ADDRS];
	int ncand, icand;
	int64_t start_ms, start_mono_ms, deadline_ms;  /* deadline: monotonic, 0 none */
	struct at_half up, down;
};

struct at_proxy {
	struct at_net_proxy_opts opts;
	struct at_net_listener *listeners;
	struct at_tag *ltags;
	bool listening;
	int ep, wake_fd, resolved_fd;
	struct at_tag wake_tag, resolved_tag;
	struct at_resolver *resolver;
	struct at_conn *conns, *graveyard;
	struct at_conn *busy;      /* relays stopped by the round limit, pumped again next */
	unsigned nconns;
	int64_t retry_accept_ms;   /* accept paused by EMFILE until then; 0 none */
	pthread_mutex_t term_lock; /* the terminated connections' list and their sockets */
	struct at_term_conn *terms;
	atomic_uint terms_live;    /* terminated connections whose thread still runs */
};

/* At most this many terminated connections at once: each is a thread of agenttask's. */
#define AT_TERM_MAX 64

/* What a terminated connection takes over from the loop: its two sockets, and what to record. */
struct at_term_handoff {
	int cfd, ufd;             /* the thread's from now on: closed on failure too */
	enum at_net_proto proto;
	const char *host, *addr, *rule;
	uint16_t port;
	int64_t start_ms, start_mono_ms;
};

/* term.c: a connected, answered CONNECT or SOCKS5 to host h goes on in a thread of its own. */
void at_term_start(struct at_proxy *p, const struct at_net_term_host *h,
		   const struct at_term_handoff *ho);
/* term.c: end every terminated connection and join its thread. */
void at_term_stop_all(struct at_proxy *p);

/* conn.c; at_conn_new owns fd (closed on failure, NULL) */
struct at_conn *at_conn_new(struct at_proxy *p, int fd, const struct at_net_listener *l);
void at_conn_event(struct at_conn *c, bool client, uint32_t events);
void at_conn_resolved(struct at_resolve_job *job);
void at_conn_timeout(struct at_conn *c);
/* Pump again the relays the round limit stopped (before the graveyard is buried). */
void at_conn_pump_busy(struct at_proxy *p);
void at_conn_close(struct at_conn *c);
void at_conn_free(struct at_conn *c);

/* conn.c (proxy.c uses it too): register interest `want` for fd (0 removes it). */
void at_proxy_interest(struct at_proxy *p, int fd, struct at_tag *tag, uint32_t *cur,
		       uint32_t want);

#endif
