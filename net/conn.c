#include "net/conn.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"

void at_proxy_interest(struct at_proxy *p, int fd, struct at_tag *tag, uint32_t *cur,
		       uint32_t want)
{
	struct epoll_event ev = { .events = want, .data.ptr = tag };
	int op;

	if (want == *cur || fd < 0)
		return;
	op = *cur == 0 ? EPOLL_CTL_ADD : want == 0 ? EPOLL_CTL_DEL : EPOLL_CTL_MOD;
	if (epoll_ctl(p->ep, op, fd, &ev) == 0)
		*cur = want;
}

/*
 * Out of epoll, then closed. A close alone does not take a descriptor out
 * of epoll while another copy of it is open, and a process forked meanwhile
 * (a published port's socket maker, a spawn) holds copies until it closes
 * or execs: events for a connection already freed would come.
 */
static void unwatch_close(struct at_proxy *p, int *fd, struct at_tag *tag, uint32_t *cur)
{
	at_proxy_interest(p, *fd, tag, cur, 0);
	*cur = 0;
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

#define REQUEST_TIMEOUT_MS 30000
#define LINGER_MS 10000          /* plain HTTP: how long a client may stay after the response */
#define PUMP_ROUNDS 16
#define PIPE_SIZE (1 << 20)      /* what F_SETPIPE_SZ asks for; pipe-max-size by default */
#define GROW_AFTER (256 << 10)

static int64_t wall_ms(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

static void start_connect(struct at_conn *c);

struct at_conn *at_conn_new(struct at_proxy *p, int fd, const struct at_net_listener *l)
{
	struct at_conn *c = calloc(1, sizeof(*c));

	if (!c) {
		close(fd);
		return NULL;
	}
	c->p = p;
	c->cfd = fd;
	c->ufd = -1;
	c->up.pipe[0] = c->up.pipe[1] = c->down.pipe[0] = c->down.pipe[1] = -1;
	c->up.from = c->down.to = &c->cfd;
	c->up.to = c->down.from = &c->ufd;
	c->up.readable = &c->crd;
	c->down.writable = &c->cwr;
	c->up.writable = &c->uwr;
	c->down.readable = &c->urd;
	c->ctag = (struct at_tag){ AT_TAG_CLIENT, c };
	c->utag = (struct at_tag){ AT_TAG_UPSTREAM, c };
	c->start_ms = wall_ms();
	c->start_mono_ms = at_mono_ms();
	c->quiet = true;
	c->next = p->conns;
	if (p->conns)
		p->conns->prev = c;
	p->conns = c;
	p->nconns++;
	if (l->kind == AT_NET_LISTEN_FORWARD || l->kind == AT_NET_LISTEN_PUBLISH) {
		struct sockaddr_in6 *a = &c->cand[0];
		c->proto = AT_NET_PROTO_FORWARD;
		c->publish = l->kind == AT_NET_LISTEN_PUBLISH;
		c->quiet = false;
		c->allowed = true;
		c->port = l->port;
		memcpy(c->host, "127.0.0.1", 10);
		a->sin6_family = AF_INET6;
		a->sin6_port = htons(l->port);
		inet_pton(AF_INET6, "::ffff:127.0.0.1", &a->sin6_addr);
		c->ncand = 1;
		c->st = AT_CONN_CONNECTING;
		start_connect(c);
		return c;
	}
	c->proto = AT_NET_PROTO_UNKNOWN;
	c->buf = malloc(AT_CONN_BUF);
	c->bufcap = AT_CONN_BUF;
	if (!c->buf) {
		at_conn_close(c);
		return NULL;
	}
	c->st = AT_CONN_REQUEST;
	c->deadline_ms = c->start_mono_ms + REQUEST_TIMEOUT_MS;
	at_proxy_interest(p, c->cfd, &c->ctag, &c->cev, EPOLLIN);
	return c;
}

static void record(struct at_conn *c)
{
	struct at_net_record r = {
		.proto = c->proto,
		.host = c->host,
		.port = c->port,
		.addr = c->addr,
		.allowed = c->allowed,
		.rule = c->rule,
		.reason = c->reason[0] ? c->reason : NULL,
		.bytes_up = c->up.bytes,
		.bytes_down = c->down.bytes,
		.start_ms = c->start_ms,
		.duration_ms = at_mono_ms() - c->start_mono_ms,
	};
	if (c->p->opts.record && !c->quiet)
		c->p->opts.record(&r, c->p->opts.record_ctx);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

void at_conn_close(struct at_conn *c)
{
	struct at_proxy *p = c->p;

	if (c->dead)
		return;
	c->dead = true;
	record(c);
	unwatch_close(p, &c->cfd, &c->ctag, &c->cev);
	unwatch_close(p, &c->ufd, &c->utag, &c->uev);
	for (int i = 0; i < 2; i++) {
		close_fd(&c->up.pipe[i]);
		close_fd(&c->down.pipe[i]);
	}
	if (c->prev)
		c->prev->next = c->next;
	else
		p->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	p->nconns--;
	/* freed after this batch of events, or at once when no job holds it */
	c->next = p->graveyard;
	p->graveyard = c;
}

void at_conn_free(struct at_conn *c)
{
	free(c->buf);
	if (c->up.pend != c->buf)
		free(c->up.pend);
	free(c);
}

/* "host:port", "[v6]:port": how messages name what the client asked for. */
static const char *target(struct at_conn *c)
{
	snprintf(c->target, sizeof(c->target), strchr(c->host, ':') ? "[%s]:%u" : "%s:%u", c->host,
		 c->port);
	return c->target;
}

static void set_reason(struct at_conn *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_reason(struct at_conn *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->reason, sizeof(c->reason), fmt, ap);
	va_end(ap);
}

/* Send a short reply at once; a client that cannot take it loses it. */
static void send_now(struct at_conn *c, const void *buf, size_t len)
{
	if (send(c->cfd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
		/* nothing to do: the connection is about to close or will fail */
	}
}

static void socks_reply(struct at_conn *c, uint8_t code)
{
	uint8_t r[10] = { 5, code, 0, 1 };

	send_now(c, r, sizeof(r));
}

/* Refuse or fail with the reason already set: 403/400/502, or a SOCKS code. */
static void refuse(struct at_conn *c, int http_status, uint8_t socks_code)
{
	char msg[512];
	const char *text = http_status == 403 ? "Forbidden"
			 : http_status == 400 ? "Bad Request"
			 : http_status == 504 ? "Gateway Timeout"
			 : http_status == 503 ? "Service Unavailable" : "Bad Gateway";
	int body = (int)strlen(c->reason) + 12;

	if (c->proto == AT_NET_PROTO_SOCKS5) {
		socks_reply(c, socks_code);
	} else if (c->proto != AT_NET_PROTO_FORWARD) {
		int n = snprintf(msg, sizeof(msg),
				 "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\n"
				 "Content-Length: %d\r\nConnection: close\r\n\r\nagenttask: %s\n",
				 http_status, text, body, c->reason);
		send_now(c, msg, (size_t)n < sizeof(msg) ? (size_t)n : sizeof(msg) - 1);
	}
	at_conn_close(c);
}

/* Check the host and port the client named; allowed ones go to the resolver. */
static void decide(struct at_conn *c, const char *host, uint16_t port)
{
	struct at_resolve_job *job;
	struct in6_addr ignored;
	bool is_ip;

	c->quiet = false;
	c->deadline_ms = 0;
	if (!at_net_host_canon(host, c->host, &ignored, &is_ip)) {
		c->host[0] = '\0';
		set_reason(c, "the requested host is not a host name or IP address");
		refuse(c, 400, 2);
		return;
	}
	c->port = port;
	c->rule = NULL;
	const struct at_net_rule *r = at_net_rules_match(c->p->opts.rules, c->host, port);
	if (!r) {
		set_reason(c, "'%s' is not allowed: no allowed-host pattern matches it", target(c));
		refuse(c, 403, 2);
		return;
	}
	c->rule = r->text;
	c->term = at_net_term_find(c->p->opts.term, c->host);
	if (c->term && c->proto == AT_NET_PROTO_HTTP) {
		set_reason(c, "plain HTTP to '%s' is refused: the proxy holds a secret or request "
			   "rules for it, which only go over https", target(c));
		refuse(c, 403, 2);
		return;
	}
	job = calloc(1, sizeof(*job));
	if (!job) {
		set_reason(c, "out of memory");
		refuse(c, 502, 1);
		return;
	}
	job->owner = c;
	memcpy(job->host, c->host, sizeof(job->host));
	job->port = port;
	job->deny_private = c->p->opts.deny_private;
	c->st = AT_CONN_RESOLVING;
	at_proxy_interest(c->p, c->cfd, &c->ctag, &c->cev, 0);
	if (at_resolver_submit(c->p->resolver, job, NULL) < 0) {
		free(job);
		set_reason(c, "cannot start a lookup");
		refuse(c, 502, 1);
	}
}

void at_conn_resolved(struct at_resolve_job *job)
{
	struct at_conn *c = job->owner;

	if (job->naddrs == 0 && job->refused != AT_NET_PUBLIC) {
		c->allowed = false;
		memcpy(c->addr, job->refused_addr, sizeof(c->addr));
		set_reason(c, "'%s' (allowed by '%s') is refused: it resolves to %s, %s, "
			   "which is never dialled", target(c), c->rule, job->refused_addr,
			   at_net_class_name(job->refused));
		refuse(c, 403, 2);
	} else if (job->naddrs == 0) {
		set_reason(c, "cannot resolve '%s': %s", c->host,
			   job->gai_error ? gai_strerror(job->gai_error) : "no address");
		refuse(c, 502, 4);
	} else {
		c->allowed = true;
		memcpy(c->cand, job->addrs, sizeof(c->cand));
		c->ncand = job->naddrs;
		c->icand = 0;
		c->st = AT_CONN_CONNECTING;
		start_connect(c);
	}
	free(job);
}

/*
 * A socket for an address: IPv4-mapped ones are dialled as IPv4. A published
 * port's (always 127.0.0.1) through the caller's socket, made in the
 * sandbox's namespace.
 */
static int dial(const struct at_conn *c, const struct sockaddr_in6 *a)
{
	struct sockaddr_in in = { .sin_family = AF_INET, .sin_port = a->sin6_port };
	const struct sockaddr *sa = (const struct sockaddr *)a;
	socklen_t len = sizeof(*a);
	int fd, one = 1;

	if (IN6_IS_ADDR_V4MAPPED(&a->sin6_addr)) {
		memcpy(&in.sin_addr, &a->sin6_addr.s6_addr[12], 4);
		sa = (const struct sockaddr *)&in;
		len = sizeof(in);
	}
	if (c->publish && (sa->sa_family != AF_INET || !c->p->opts.socket)) {
		errno = EAFNOSUPPORT;
		return -1;
	}
	fd = c->publish ? c->p->opts.socket(c->p->opts.socket_ctx)
			: socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, sa, len) < 0 && errno != EINPROGRESS) {
		int saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	return fd;
}

/* Try the addresses from icand on; the last failure is the reason. */
static void start_connect(struct at_conn *c)
{
	while (c->icand < c->ncand) {
		const struct sockaddr_in6 *a = &c->cand[c->icand++];
		at_net_addr_format(&a->sin6_addr, c->addr, sizeof(c->addr));
		unwatch_close(c->p, &c->ufd, &c->utag, &c->uev);
		c->ufd = dial(c, a);
		if (c->ufd >= 0) {
			c->deadline_ms = at_mono_ms() + c->p->opts.connect_timeout_ms;
			at_proxy_interest(c->p, c->ufd, &c->utag, &c->uev, EPOLLOUT);
			return;
		}
		set_reason(c, "cannot connect to '%s' at %s: %s", target(c), c->addr,
			   strerror(errno));
	}
	refuse(c, 502, 5);
}

/*
 * A half's pipe starts at the kernel's default size and grows to PIPE_SIZE
 * once the half has moved GROW_AFTER bytes: most connections (npm opens
 * dozens) move little, and an ordinary user's pipes beyond
 * pipe-user-pages-soft (64 MiB in all) get one page each, so 256 idle
 * connections must not take 1 MiB pipes up front.
 */
static bool make_pipe(struct at_half *h)
{
	int sz;

	if (pipe2(h->pipe, O_NONBLOCK | O_CLOEXEC) < 0)
		return false;
	sz = fcntl(h->pipe[1], F_GETPIPE_SZ);
	h->cap = sz > 0 ? (size_t)sz : 4096;
	return true;
}

static void grow_pipe(struct at_half *h)
{
	int sz;

	h->grown = true;
	sz = fcntl(h->pipe[1], F_SETPIPE_SZ, PIPE_SIZE);
	if (sz > 0 && (size_t)sz > h->cap)
		h->cap = (size_t)sz;
}

static void relay_pump(struct at_conn *c);

/* A terminated host's connection leaves the loop for a thread of its own (term.c), which records it. */
static void hand_over(struct at_conn *c)
{
	struct at_term_handoff ho = {
		.cfd = c->cfd, .ufd = c->ufd, .proto = c->proto, .host = c->host, .addr = c->addr,
		.rule = c->rule, .port = c->port, .start_ms = c->start_ms,
		.start_mono_ms = c->start_mono_ms,
	};

	at_proxy_interest(c->p, c->cfd, &c->ctag, &c->cev, 0);
	at_proxy_interest(c->p, c->ufd, &c->utag, &c->uev, 0);
	c->cfd = c->ufd = -1;
	c->quiet = true;
	at_term_start(c->p, c->term, &ho);
	at_conn_close(c);
}

/*
 * The relay's sockets are registered once, edge-triggered, for both
 * directions: no epoll_ctl per chunk. Every event pumps both halves until
 * neither moves (each stop is an EAGAIN that a later edge ends), or the
 * round limit, after which the connection waits in the busy list.
 */
static void start_relay(struct at_conn *c)
{
	static const char established[] = "HTTP/1.1 200 Connection established\r\n\r\n";
	const uint32_t ev = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
	int one = 1;

	c->st = AT_CONN_RELAY;
	c->deadline_ms = 0;
	c->reason[0] = '\0';
	/* each terminated connection is a thread of agenttask's, outside the run's limits */
	if (c->term && atomic_load(&c->p->terms_live) >= AT_TERM_MAX) {
		set_reason(c, "more than %d connections at once to hosts the proxy terminates",
			   AT_TERM_MAX);
		refuse(c, 503, 1);
		return;
	}
	if (c->term) {
		if (c->proto == AT_NET_PROTO_CONNECT)
			send_now(c, established, sizeof(established) - 1);
		else
			socks_reply(c, 0);
		hand_over(c);
		return;
	}
	if (!make_pipe(&c->up) || !make_pipe(&c->down)) {
		set_reason(c, "cannot make a pipe: %s", strerror(errno));
		refuse(c, 502, 1);
		return;
	}
	setsockopt(c->cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (c->proto == AT_NET_PROTO_CONNECT)
		send_now(c, established, sizeof(established) - 1);
	else if (c->proto == AT_NET_PROTO_SOCKS5)
		socks_reply(c, 0);
	if ((c->proto == AT_NET_PROTO_CONNECT || c->proto == AT_NET_PROTO_SOCKS5) &&
	    !c->p->opts.no_sni_check) {
		c->peek = true;
		c->up.hold = true;
	} else if (c->len) {
		c->up.pend = c->buf;
		c->up.pend_len = c->len;
	}
	if (c->proto == AT_NET_PROTO_HTTP) {
		c->up.framed = true;
		c->up.fbuf = c->buf;
		c->up.fcap = c->bufcap;
	}
	at_proxy_interest(c->p, c->cfd, &c->ctag, &c->cev, ev);
	at_proxy_interest(c->p, c->ufd, &c->utag, &c->uev, ev);
	c->crd = c->cwr = c->urd = c->uwr = true;  /* until an EAGAIN says otherwise */
	relay_pump(c);
}

/*
 * errno after a failed call on a non-blocking descriptor: 0 it would block
 * (*ready cleared, when given: an edge will say when it would not), 1 try
 * again (EINTR: no edge would come), -1 an error that ends the connection.
 */
static int blocked(bool *ready)
{
	if (errno == EINTR)
		return 1;
	if (errno != EAGAIN)
		return -1;
	if (ready)
		*ready = false;
	return 0;
}

/* recv(2) for a framed half: > 0 bytes, 0 blocked or at the end (h->eof), -1 an error. */
static ssize_t framed_recv(struct at_half *h, size_t want, int flags)
{
	ssize_t n = recv(*h->from, h->fbuf, want, flags | MSG_DONTWAIT);

	if (n == 0)
		h->eof = true;
	if (n >= 0)
		return n;
	return blocked(h->readable) < 0 ? -1 : 0;
}

/*
 * A framed half's read: the body's next bytes into pend, no byte past its
 * end (a chunked body is peeked first, to take exactly its own); after the
 * end, whatever comes is dropped. 1 moved, 0 blocked, -1 an error.
 */
static int framed_read(struct at_half *h)
{
	struct at_wire_body probe = h->body;
	size_t want = h->fcap, used;
	ssize_t n;

	if (h->body.done) {
		n = framed_recv(h, h->fcap, 0);  /* dropped */
		return n < 0 ? -1 : n > 0 || h->eof;
	}
	if (h->body.kind == AT_WIRE_BODY_LENGTH && h->body.left < want)
		want = (size_t)h->body.left;
	if (h->body.kind == AT_WIRE_BODY_CHUNKED) {
		if ((n = framed_recv(h, want, MSG_PEEK)) <= 0)
			return (int)n;
		if (at_wire_body_feed(&probe, h->fbuf, (size_t)n, &used) == AT_WIRE_BAD) {
			h->broken = true;
			return -1;
		}
		want = used;
	}
	if ((n = framed_recv(h, want, 0)) <= 0)
		return (int)n;
	if (at_wire_body_feed(&h->body, h->fbuf, (size_t)n, &used) == AT_WIRE_BAD) {
		h->broken = true;
		return -1;
	}
	h->pend = h->fbuf;
	h->pend_len = used;
	h->pend_off = 0;
	return 1;
}

/* One step of a half: 1 moved bytes, 0 blocked or finished, -1 an error that ends it. */
static int step(struct at_half *h)
{
	ssize_t n;
	int moved = 0;

	if (h->done)
		return 0;
	if (h->pend_off < h->pend_len) {
		if (!*h->writable)
			return 0;
		n = send(*h->to, h->pend + h->pend_off, h->pend_len - h->pend_off,
			 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0)
			return blocked(h->writable);
		h->pend_off += (size_t)n;
		h->bytes += (uint64_t)n;
		return 1;
	}
	/*
	 * Read while the pipe has room, even when `to` is full, so the sender
	 * keeps going. EAGAIN with bytes in the pipe may mean a full pipe (its
	 * slots, not its bytes): `from` stays readable then.
	 */
	if (h->framed) {
		if (*h->readable && !h->eof && (moved = framed_read(h)) < 0)
			return -1;
	} else if (*h->readable && !h->eof && !h->hold && h->inpipe < h->cap) {
		n = splice(*h->from, NULL, h->pipe[1], NULL, h->cap - h->inpipe,
			   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n == 0)
			h->eof = true;
		else if (n > 0)
			h->inpipe += (size_t)n, moved = 1;
		else if ((moved = blocked(h->inpipe ? NULL : h->readable)) < 0)
			return -1;
	}
	if (h->inpipe && *h->writable) {
		int again;
		n = splice(h->pipe[0], NULL, *h->to, NULL, h->inpipe,
			   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n > 0) {
			h->inpipe -= (size_t)n;
			h->bytes += (uint64_t)n;
			moved = 1;
		} else if (n < 0 && (again = blocked(h->writable)) < 0) {
			return -1;
		} else if (n < 0) {
			moved |= again;
		}
	}
	if (!h->grown && h->bytes >= GROW_AFTER)
		grow_pipe(h);
	if (h->eof && !h->inpipe) {
		shutdown(*h->to, SHUT_WR);
		h->done = true;
	}
	return moved;
}

/* Move what can be moved both ways; a connection still moving after PUMP_ROUNDS waits its turn. */
static void relay_pump(struct at_conn *c)
{
	struct at_proxy *p = c->p;

	for (int round = 0; round < PUMP_ROUNDS; round++) {
		int up = step(&c->up), down = step(&c->down);
		if (up < 0 || down < 0) {
			if (c->up.broken)
				set_reason(c, "malformed request: a chunked body that breaks its framing");
			at_conn_close(c);
			return;
		}
		/* plain HTTP: the response has ended, and with it the connection */
		if (c->up.framed && c->down.done && !c->deadline_ms)
			c->deadline_ms = at_mono_ms() + LINGER_MS;
		if (c->up.done && c->down.done) {
			at_conn_close(c);
			return;
		}
		if (!up && !down)
			return;
	}
	if (!c->busy) {
		c->busy = true;
		c->busy_next = p->busy;
		p->busy = c;
	}
}

void at_conn_pump_busy(struct at_proxy *p)
{
	struct at_conn *c = p->busy, *next;

	p->busy = NULL;
	for (; c; c = next) {
		next = c->busy_next;
		c->busy = false;
		if (!c->dead)
			relay_pump(c);
	}
}

/* Was the host named as an IP literal (and allowed as one)? */
static bool host_is_ip(const struct at_conn *c)
{
	char canon[AT_NET_HOST_MAX + 1];
	struct in6_addr ip;
	bool is_ip;

	return at_net_host_canon(c->host, canon, &ip, &is_ip) && is_ip;
}

/*
 * Is the TLS server name the host that was allowed? A hello without one
 * passes only for a host allowed as an IP literal: to a name, it would let
 * the server on that (perhaps shared) address pick its default host.
 */
static bool sni_matches(const struct at_conn *c, const char *sni)
{
	char canon[AT_NET_HOST_MAX + 1];
	struct in6_addr ip;
	bool is_ip;

	if (!sni[0])
		return host_is_ip(c);
	return at_net_host_canon(sni, canon, &ip, &is_ip) && !is_ip &&
	       strcmp(canon, c->host) == 0;
}

/* The start of a CONNECT stream: if it is a TLS ClientHello, it must name the allowed host. */
static void peek_read(struct at_conn *c)
{
	char sni[AT_NET_HOST_MAX + 1];
	bool is_tls;
	ssize_t n = recv(c->cfd, c->buf + c->len, AT_CONN_BUF - c->len, MSG_DONTWAIT);
	int rc;

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n < 0) {
		at_conn_close(c);
		return;
	}
	c->len += (size_t)n;
	rc = at_wire_tls_sni((const uint8_t *)c->buf, c->len, &is_tls, sni);
	if (n > 0 && rc == AT_WIRE_MORE && c->len < AT_CONN_BUF)
		return;
	if (rc == AT_WIRE_OK && is_tls && !sni_matches(c, sni)) {
		c->allowed = false;
		if (sni[0])
			set_reason(c, "TLS names a server other than '%s'", c->host);
		else
			set_reason(c, "TLS names no server, and '%s' was allowed by name", c->host);
		at_conn_close(c);
		return;
	}
	if (rc == AT_WIRE_BAD || (rc == AT_WIRE_MORE && is_tls)) {
		c->allowed = false;
		set_reason(c, "unreadable TLS ClientHello for '%s'", c->host);
		at_conn_close(c);
		return;
	}
	c->peek = false;
	c->up.hold = false;
	c->up.pend = c->buf;
	c->up.pend_len = c->len;
	c->up.eof = n == 0;
}

static void relay_event(struct at_conn *c, bool client, uint32_t ev)
{
	const uint32_t in = EPOLLIN | EPOLLRDHUP | EPOLLERR | EPOLLHUP, out = EPOLLOUT | EPOLLERR | EPOLLHUP;

	if (ev & in)
		*(client ? &c->crd : &c->urd) = true;
	if (ev & out)
		*(client ? &c->cwr : &c->uwr) = true;
	if (client && c->peek && (ev & (EPOLLIN | EPOLLRDHUP | EPOLLERR | EPOLLHUP))) {
		peek_read(c);
		if (c->dead)
			return;
	}
	relay_pump(c);  /* the other half too: an edge is never reported twice */
}

static void connect_event(struct at_conn *c)
{
	int soerr = 0;
	socklen_t len = sizeof(soerr);

	if (getsockopt(c->ufd, SOL_SOCKET, SO_ERROR, &soerr, &len) < 0)
		soerr = errno;
	if (soerr) {
		set_reason(c, "cannot connect to '%s' at %s: %s", target(c), c->addr,
			   strerror(soerr));
		start_connect(c);
		return;
	}
	start_relay(c);
}

void at_conn_timeout(struct at_conn *c)
{
	if (c->st == AT_CONN_CONNECTING) {
		set_reason(c, "cannot connect to '%s' at %s: timed out", target(c),
			   c->addr);
		if (c->icand < c->ncand)
			start_connect(c);
		else
			refuse(c, 504, 4);
	} else if (c->st == AT_CONN_REQUEST) {
		set_reason(c, "no complete request in %d s", REQUEST_TIMEOUT_MS / 1000);
		refuse(c, 400, 1);
	} else if (c->st == AT_CONN_RELAY) {
		at_conn_close(c);  /* a plain-HTTP client lingering after its response */
	}
}

/* The forwarded part of a request: what follows its head, kept for the relay. */
static void consume(struct at_conn *c, size_t n)
{
	memmove(c->buf, c->buf + n, c->len - n);
	c->len -= n;
}

static void http_request(struct at_conn *c)
{
	struct at_wire_http req;
	int rc = at_wire_http_parse(c->buf, c->len, &req);

	if (rc == AT_WIRE_MORE)
		return;
	c->proto = req.connect ? AT_NET_PROTO_CONNECT : AT_NET_PROTO_HTTP;
	if (rc == AT_WIRE_BAD) {
		c->quiet = false;
		set_reason(c, "malformed request: %s", req.why);
		refuse(c, 400, 1);
		return;
	}
	if (!req.connect) {
		/* the body's first bytes, and nothing that follows it */
		size_t body = 0;
		size_t room = req.head_len + AT_NET_HOST_MAX + 64 + (c->len - req.head_len);
		char *out = NULL;
		size_t n = 0;
		if (at_wire_body_feed(&req.body, c->buf + req.head_len, c->len - req.head_len,
				      &body) == AT_WIRE_BAD) {
			c->quiet = false;
			set_reason(c, "malformed request: a chunked body that breaks its framing");
			refuse(c, 400, 1);
			return;
		}
		if (room < AT_CONN_BUF)
			room = AT_CONN_BUF;  /* the relay reads the rest of the body into it */
		out = malloc(room);
		n = out ? at_wire_http_rewrite(c->buf, &req, out, room) : 0;
		if (!n) {
			free(out);
			c->quiet = false;
			set_reason(c, "cannot rewrite the request");
			refuse(c, 400, 1);
			return;
		}
		memcpy(out + n, c->buf + req.head_len, body);
		c->len = n + body;
		free(c->buf);
		c->buf = out;
		c->bufcap = room;
		c->up.body = req.body;
	} else {
		consume(c, req.head_len);
	}
	decide(c, req.host, req.port);
}

static void socks_request(struct at_conn *c)
{
	const uint8_t *b = (const uint8_t *)c->buf;
	struct at_wire_socks req;
	size_t len;
	bool noauth;
	int rc;

	c->proto = AT_NET_PROTO_SOCKS5;
	if (c->socks_step == 0) {
		rc = at_wire_socks_greeting(b, c->len, &len, &noauth);
		if (rc == AT_WIRE_MORE)
			return;
		if (rc == AT_WIRE_BAD || !noauth) {
			static const uint8_t no[2] = { 5, 0xff };
			send_now(c, no, 2);
			at_conn_close(c);
			return;
		}
		static const uint8_t yes[2] = { 5, 0 };
		send_now(c, yes, 2);
		consume(c, len);
		c->socks_step = 1;
	}
	rc = at_wire_socks_request(b, c->len, &req);
	if (rc == AT_WIRE_MORE)
		return;
	if (rc == AT_WIRE_BAD || req.cmd != 1) {
		c->quiet = false;
		set_reason(c, "unsupported SOCKS5 request");
		refuse(c, 400, rc == AT_WIRE_BAD ? 1 : 7);
		return;
	}
	consume(c, req.len);
	decide(c, req.host, req.port);
}

static void request_read(struct at_conn *c)
{
	ssize_t n = recv(c->cfd, c->buf + c->len, AT_CONN_BUF - c->len, MSG_DONTWAIT);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		if (c->len)
			set_reason(c, "the client closed before its request was complete");
		c->quiet = c->len == 0;
		at_conn_close(c);
		return;
	}
	c->len += (size_t)n;
	if ((uint8_t)c->buf[0] == 5)
		socks_request(c);
	else
		http_request(c);
	if (!c->dead && c->st == AT_CONN_REQUEST && c->len == AT_CONN_BUF) {
		c->quiet = false;
		set_reason(c, "malformed request: too long");
		refuse(c, 400, 1);
	}
}

void at_conn_event(struct at_conn *c, bool client, uint32_t events)
{
	if (c->dead)
		return;
	switch (c->st) {
	case AT_CONN_REQUEST:
		if (client)
			request_read(c);
		break;
	case AT_CONN_RESOLVING:
		break;
	case AT_CONN_CONNECTING:
		if (!client)
			connect_event(c);
		break;
	case AT_CONN_RELAY:
		relay_event(c, client, events);
		break;
	}
}

