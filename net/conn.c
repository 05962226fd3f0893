#include "net/conn.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#define REQUEST_TIMEOUT_MS 30000
#define PIPE_CHUNK (1 << 20)
#define PUMP_ROUNDS 32
#define PIPE_SIZE (1 << 20)

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
	if (l->kind == AT_NET_LISTEN_FORWARD) {
		struct sockaddr_in6 *a = &c->cand[0];
		c->proto = AT_NET_PROTO_FORWARD;
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
	close_fd(&c->cfd);
	close_fd(&c->ufd);
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
			 : http_status == 504 ? "Gateway Timeout" : "Bad Gateway";
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

/* A socket for an address: IPv4-mapped ones are dialled as IPv4. */
static int dial(const struct sockaddr_in6 *a)
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
	fd = socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
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
		close_fd(&c->ufd);
		c->uev = 0;
		c->ufd = dial(a);
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

static bool make_pipe(struct at_half *h)
{
	if (pipe2(h->pipe, O_NONBLOCK | O_CLOEXEC) < 0)
		return false;
	fcntl(h->pipe[1], F_SETPIPE_SZ, PIPE_SIZE);
	return true;
}

static void update_interest(struct at_conn *c);

static void start_relay(struct at_conn *c)
{
	static const char established[] = "HTTP/1.1 200 Connection established\r\n\r\n";
	int one = 1;

	c->st = AT_CONN_RELAY;
	c->deadline_ms = 0;
	c->reason[0] = '\0';
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
	update_interest(c);
}

static uint32_t want_from(const struct at_half *h)
{
	return !h->done && !h->eof && !h->hold && h->inpipe == 0 && h->pend_off == h->pend_len
		       ? EPOLLIN : 0;
}

static uint32_t want_to(const struct at_half *h)
{
	return !h->done && (h->inpipe || h->pend_off < h->pend_len) ? EPOLLOUT : 0;
}

static void update_interest(struct at_conn *c)
{
	uint32_t cw, uw;

	if (c->dead)
		return;
	if (c->up.done && c->down.done) {
		at_conn_close(c);
		return;
	}
	cw = want_from(&c->up) | want_to(&c->down) | (c->peek && !c->up.eof ? EPOLLIN : 0);
	uw = want_from(&c->down) | want_to(&c->up);
	at_proxy_interest(c->p, c->cfd, &c->ctag, &c->cev, cw);
	at_proxy_interest(c->p, c->ufd, &c->utag, &c->uev, uw);
}

/* Move what can be moved from h->from to h->to; false on an error that ends the connection. */
static bool pump(struct at_half *h)
{
	for (int round = 0; round < PUMP_ROUNDS && !h->done; round++) {
		ssize_t n;
		if (h->pend_off < h->pend_len) {
			n = send(*h->to, h->pend + h->pend_off, h->pend_len - h->pend_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);
			if (n < 0)
				return errno == EAGAIN || errno == EINTR;
			h->pend_off += (size_t)n;
			h->bytes += (uint64_t)n;
			continue;
		}
		if (h->inpipe) {
			n = splice(h->pipe[0], NULL, *h->to, NULL, h->inpipe,
				   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
			if (n < 0)
				return errno == EAGAIN || errno == EINTR;
			h->inpipe -= (size_t)n;
			h->bytes += (uint64_t)n;
			continue;
		}
		if (h->eof) {
			shutdown(*h->to, SHUT_WR);
			h->done = true;
			break;
		}
		if (h->hold)
			break;
		n = splice(*h->from, NULL, h->pipe[1], NULL, PIPE_CHUNK,
			   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n == 0)
			h->eof = true;
		else if (n < 0)
			return errno == EAGAIN || errno == EINTR;
		else
			h->inpipe += (size_t)n;
	}
	return true;
}

/* Is the TLS server name the host that was allowed? */
static bool sni_matches(const struct at_conn *c, const char *sni)
{
	char canon[AT_NET_HOST_MAX + 1];
	struct in6_addr ip;
	bool is_ip;

	if (!sni[0])
		return true;
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
		set_reason(c, "TLS names a server other than '%s'", c->host);
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
	bool err = ev & (EPOLLERR | EPOLLHUP);
	bool ok = true;

	if (client && c->peek && (ev & (EPOLLIN | EPOLLERR | EPOLLHUP))) {
		peek_read(c);
		if (c->dead)
			return;
	}
	if (err || (client ? ev & EPOLLIN : ev & EPOLLOUT))
		ok = pump(&c->up);
	if (ok && (err || (client ? ev & EPOLLOUT : ev & EPOLLIN)))
		ok = pump(&c->down);
	if (!ok) {
		at_conn_close(c);
		return;
	}
	update_interest(c);
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
		size_t room = req.head_len + AT_NET_HOST_MAX + 64 + (c->len - req.head_len);
		char *out = malloc(room);
		size_t n = out ? at_wire_http_rewrite(c->buf, &req, out, room) : 0;
		if (!n) {
			free(out);
			c->quiet = false;
			set_reason(c, "cannot rewrite the request");
			refuse(c, 400, 1);
			return;
		}
		memcpy(out + n, c->buf + req.head_len, c->len - req.head_len);
		c->len = n + c->len - req.head_len;
		free(c->buf);
		c->buf = out;
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

