/*
 * term.c - a terminated connection (net/term.h), in a thread of its own:
 * TLS with the client under the task's CA, TLS to the real host, and each
 * request judged (net/http1.h), forwarded with its body, and answered with
 * the upstream's response, one after the other. Blocking I/O: the proxy's
 * stop shuts both sockets down, which ends any read, and joins the thread.
 */
#include "net/conn.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/x509v3.h>

#include "core/util.h"
#include "net/http1.h"
#include "net/tls.h"

#define IO_BUF 65536
#define HANDSHAKE_TIMEOUT_S 30

struct at_term_conn {
	struct at_proxy *p;
	const struct at_net_term_host *h;
	struct at_term_conn *next;
	pthread_t thread;
	int cfd, ufd;
	SSL *cs, *us;
	enum at_net_proto proto;
	char host[AT_NET_HOST_MAX + 1];
	uint16_t port;
	char addr[INET6_ADDRSTRLEN];
	const char *rule;
	bool allowed;
	char reason[320];
	uint64_t up, down;
	int64_t start_ms, start_mono_ms;
	/* the bytes read from the client and not yet used (the next request's) */
	char *in;
	size_t in_len;
	char *out;                /* a response's bytes, held back to scrub values */
	size_t out_len;
	size_t scrub_tail;        /* the longest value, less one: bytes held back */
};

const struct at_net_term_host *at_net_term_find(const struct at_net_term *t, const char *host)
{
	for (size_t i = 0; t && i < t->nhosts; i++)
		if (strcmp(t->hosts[i].host, host) == 0)
			return &t->hosts[i];
	return NULL;
}

static void reason(struct at_term_conn *tc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void reason(struct at_term_conn *tc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(tc->reason, sizeof(tc->reason), fmt, ap);
	va_end(ap);
}

static bool ssl_write_all(SSL *s, const void *buf, size_t len)
{
	const char *b = buf;

	while (len) {
		int n = SSL_write(s, b, len > INT32_MAX ? INT32_MAX : (int)len);
		if (n <= 0)
			return false;
		b += n;
		len -= (size_t)n;
	}
	return true;
}

/* A refusal or failure, as the response to the client's request; the connection then ends. */
static void reply(struct at_term_conn *tc, int status, const char *why)
{
	char msg[768];
	const char *text = status == 403 ? "Forbidden" : status == 400 ? "Bad Request"
			 : "Bad Gateway";
	int n = snprintf(msg, sizeof(msg),
			 "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\n"
			 "Content-Length: %zu\r\nConnection: close\r\n\r\nagenttask: %s\n",
			 status, text, strlen(why) + 12, why);

	if (n > 0 && (size_t)n < sizeof(msg))
		ssl_write_all(tc->cs, msg, (size_t)n);
}

static void record_request(struct at_term_conn *tc, const struct at_http1_req *rq, int status,
			   const char *why, uint64_t up, uint64_t down, int64_t t0)
{
	const struct at_net_term *t = tc->p->opts.term;
	struct at_net_request r = {
		.host = tc->host,
		.method = rq->method,
		.path = rq->path,
		.status = status,
		.refused = why,
		.bytes_up = up,
		.bytes_down = down,
		.start_ms = t0,
		.duration_ms = at_mono_ms() - tc->start_mono_ms - (t0 - tc->start_ms),
		.secret = rq->secret >= 0 ? t->secrets[rq->secret].name : NULL,
		.stray = rq->stray >= 0 ? t->secrets[rq->stray].name : NULL,
	};

	if (tc->p->opts.request)
		tc->p->opts.request(&r, tc->p->opts.record_ctx);
}

static int64_t now_ms(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

/* More bytes from the client into tc->in: > 0 read, 0 at its end, < 0 failed. */
static int client_read(struct at_term_conn *tc)
{
	int n;

	if (tc->in_len == IO_BUF)
		return -1;
	n = SSL_read(tc->cs, tc->in + tc->in_len, (int)(IO_BUF - tc->in_len));
	if (n > 0)
		tc->in_len += (size_t)n;
	return n > 0 ? n : SSL_get_error(tc->cs, n) == SSL_ERROR_ZERO_RETURN ? 0 : -1;
}

static void take(struct at_term_conn *tc, size_t n)
{
	memmove(tc->in, tc->in + n, tc->in_len - n);
	tc->in_len -= n;
}

/* The request's body, exactly as its framing says, to the upstream. false: the connection ends. */
/* n bytes of a chunked body's data as one chunk (none when n is 0), counted in *count. */
static bool send_chunk(SSL *s, const char *data, size_t n, uint64_t *count)
{
	char size[24];
	int len = snprintf(size, sizeof(size), "%zx\r\n", n);

	if (n && (!ssl_write_all(s, size, (size_t)len) || !ssl_write_all(s, data, n) ||
		  !ssl_write_all(s, "\r\n", 2)))
		return false;
	*count += n ? (size_t)len + n + 2 : 0;
	return true;
}

/* The request's body, as its framing says, to the upstream; a chunked one as its data, in chunks
 * of the proxy's own (tc->out is free until the response): the client's framing could be read
 * one way here and another there (a bare LF in a chunk extension ends the line for nginx, not
 * for http_parser), and hide a second request in what the judge took for data. Trailers are
 * not sent on. false: the connection ends. */
static bool forward_body(struct at_term_conn *tc, struct at_http1_msg *m, int rc, uint64_t *up)
{
	bool chunked = (m->p.flags & F_CHUNKED) != 0;
	size_t used;

	while (rc == 0) {
		if (!tc->in_len && client_read(tc) <= 0)
			return false;
		m->sink = chunked ? tc->out : NULL;
		m->sink_len = 0;
		rc = at_http1_msg_feed(m, tc->in, tc->in_len, &used);
		if (rc < 0) {
			reason(tc, "a request body that breaks its framing");
			return false;
		}
		if (!chunked ? !ssl_write_all(tc->us, tc->in, used) :
		    !send_chunk(tc->us, tc->out, m->sink_len, up) ||
		    (rc == 1 && !ssl_write_all(tc->us, "0\r\n\r\n", 5)))
			return false;
		*up += chunked ? (rc == 1 ? 5 : 0) : used;
		take(tc, used);
	}
	m->sink = NULL;
	return rc > 0;
}

/* Every secret's value in buf (n bytes) replaced by its placeholder (the same length). */
static void scrub(const struct at_net_term *t, char *buf, size_t n)
{
	for (size_t i = 0; i < t->nsecrets; i++) {
		const struct at_net_secret *s = &t->secrets[i];
		for (size_t j = 0; s->len && j + s->len <= n; j++)
			if (buf[j] == s->value[0] && memcmp(buf + j, s->value, s->len) == 0) {
				memcpy(buf + j, s->placeholder, s->len);
				j += s->len - 1;
			}
	}
}

/* Send the held-back response bytes but the last keep (a value may continue past them). */
static bool flush_out(struct at_term_conn *tc, size_t keep)
{
	size_t n;

	scrub(tc->p->opts.term, tc->out, tc->out_len);
	if (tc->out_len <= keep)
		return true;
	n = tc->out_len - keep;
	if (!ssl_write_all(tc->cs, tc->out, n))
		return false;
	tc->down += n;
	memmove(tc->out, tc->out + n, keep);
	tc->out_len = keep;
	return true;
}

/* A chunked body's data held back (tc->out), but the last keep bytes, scrubbed and sent as a
 * chunk of the proxy's own: the upstream's chunks could split a value where the scrub of the
 * bytes as they came would not see it. */
static bool flush_chunk(struct at_term_conn *tc, size_t keep)
{
	size_t n;

	scrub(tc->p->opts.term, tc->out, tc->out_len);
	if (tc->out_len <= keep)
		return true;
	n = tc->out_len - keep;
	if (!send_chunk(tc->cs, tc->out, n, &tc->down))
		return false;
	memmove(tc->out, tc->out + n, keep);
	tc->out_len = keep;
	return true;
}

/* The bytes of one read of the response (n in buf), fed to m and held back in tc->out: a head
 * and a body of known length as they are, a chunked body's data alone. < 0 broken, 1 the
 * message ended, 0 more to come. */
static int take_response(struct at_term_conn *tc, struct at_http1_msg *m, const char *buf,
			 size_t n)
{
	size_t off = 0, used;
	int rc = 0;

	while (rc == 0 && off < n) {
		bool chunked = m->chunked && !m->head_end;

		m->sink = chunked ? tc->out + tc->out_len : NULL;
		m->sink_len = 0;
		if ((rc = at_http1_msg_feed(m, buf + off, n - off, &used)) < 0)
			return rc;
		if (chunked) {
			tc->out_len += m->sink_len;
			if (rc == 1 && (!flush_chunk(tc, 0) || !ssl_write_all(tc->cs, "0\r\n\r\n", 5)))
				return -1;   /* the trailers are not sent on */
			tc->down += rc == 1 ? 5 : 0;
		} else {
			memcpy(tc->out + tc->out_len, buf + off, used);
			tc->out_len += used;
		}
		off += used;
		if (m->head_end) {
			m->head_end = false;
			if (!flush_out(tc, 0))
				return -1;
		}
		if (!used && rc == 0)
			return -1;
	}
	return rc;
}

/* The upstream's response to one request, to the client. 1 keep going, 0 the connection ends. */
static int relay_response(struct at_term_conn *tc, bool head_request, int *status,
			  uint64_t *down)
{
	char buf[16384];
	struct at_http1_msg m;
	uint64_t before = tc->down;
	int n, rc = 0;

	at_http1_msg_response(&m, head_request);
	m.split = true;
	tc->out_len = 0;
	while (rc == 0) {
		n = SSL_read(tc->us, buf, (int)(sizeof(buf) < IO_BUF - tc->out_len ?
						 sizeof(buf) : IO_BUF - tc->out_len));
		if (n <= 0) {
			rc = at_http1_msg_eof(&m) ? 2 : -1;
			break;
		}
		rc = take_response(tc, &m, buf, (size_t)n);
		if (rc < 0)
			break;
		if (!(m.chunked ? flush_chunk : flush_out)(tc, rc ? 0 : tc->scrub_tail))
			return 0;
	}
	if (!(m.chunked && rc != 1 ? flush_chunk : flush_out)(tc, 0))
		return 0;
	*status = m.status;
	*down = tc->down - before;
	if (rc < 0) {
		reason(tc, "the response of '%s' broke its framing, or the connection ended", tc->host);
		return 0;
	}
	return rc == 1 && http_should_keep_alive(&m.p);
}

/* One request: 1 go on with the next, 0 the connection ends. */
static int one_request(struct at_term_conn *tc)
{
	const struct at_net_term *t = tc->p->opts.term;
	struct at_http1_req rq;
	struct at_http1_msg m;
	size_t head_len = 0;
	uint64_t up = 0, down = 0;
	int64_t t0 = now_ms();
	int rc, status = 0;

	while ((rc = at_http1_head_end(tc->in, tc->in_len, &head_len)) == 0)
		if ((rc = client_read(tc)) <= 0)
			return 0;  /* the client is done (or gone) */
	if (rc < 0) {
		memset(&rq, 0, sizeof(rq));
		rq.secret = rq.stray = -1;
		snprintf(rq.method, sizeof(rq.method), "?");
		reply(tc, 400, "malformed request head (a control character, a bare CR or LF, "
		      "or too long)");
		record_request(tc, &rq, 400, "malformed request head", 0, 0, t0);
		return 0;
	}
	if (at_http1_judge(t, tc->h, tc->host, tc->port, tc->in, head_len, &rq) < 0)
		return 0;
	if (rq.status) {
		reply(tc, rq.status, rq.why);
		record_request(tc, &rq, rq.status, rq.why, 0, 0, t0);
		at_http1_req_release(&rq);
		return 0;
	}
	rc = 0;
	if (rq.expect_continue)
		ssl_write_all(tc->cs, "HTTP/1.1 100 Continue\r\n\r\n", 25);
	if (ssl_write_all(tc->us, rq.head, rq.head_len)) {
		int body = at_http1_msg_request(&m, tc->in, head_len);
		up = rq.head_len;
		take(tc, head_len);
		if (body > 0 || (body == 0 && forward_body(tc, &m, body, &up)))
			rc = relay_response(tc, rq.head_request, &status, &down) &&
			     http_should_keep_alive(&m.p);  /* the client's Connection: close too */
	}
	record_request(tc, &rq, status, rc || status ? NULL : tc->reason[0] ? tc->reason :
		       "the connection ended", up, down, t0);
	tc->up += up;
	at_http1_req_release(&rq);
	return rc;
}

static bool handshakes(struct at_term_conn *tc)
{
	struct at_net_ca *ca = tc->p->opts.term->ca;
	struct at_error err = AT_ERROR_INIT;
	struct timeval tv = { HANDSHAKE_TIMEOUT_S, 0 };
	SSL_CTX *sctx = at_net_tls_server(ca, tc->host, &err), *cctx;
	struct at_net_tls_name name = { tc->host, false, false };
	char buf[256];
	long v;

	setsockopt(tc->cfd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (sctx && (tc->cs = SSL_new(sctx)))
		SSL_set_app_data(tc->cs, &name);
	if (!tc->cs || !SSL_set_fd(tc->cs, tc->cfd) || SSL_accept(tc->cs) != 1) {
		tc->allowed = !(name.other || name.none);
		if (name.other)
			reason(tc, "TLS names a server other than '%s'", tc->host);
		else if (name.none)
			reason(tc, "TLS names no server, and '%s' was allowed by name", tc->host);
		else
			reason(tc, "no TLS handshake with the client for '%s': %s", tc->host,
			       sctx ? at_net_tls_error(buf, sizeof(buf)) : err.msg);
		if (tc->cs)
			SSL_set_app_data(tc->cs, NULL);
		return false;
	}
	SSL_set_app_data(tc->cs, NULL);
	/* the upstream's handshake bounded alike; then neither side has a timeout */
	setsockopt(tc->ufd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	tv.tv_sec = 0;
	setsockopt(tc->cfd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	cctx = at_net_tls_client(ca, &err);
	if (!cctx || !(tc->us = SSL_new(cctx)) || !SSL_set_fd(tc->us, tc->ufd) ||
	    !SSL_set_tlsext_host_name(tc->us, tc->host) || !SSL_set1_host(tc->us, tc->host) ||
	    SSL_connect(tc->us) != 1) {
		v = tc->us ? SSL_get_verify_result(tc->us) : X509_V_OK;
		reason(tc, "no TLS to '%s': %s", tc->host,
		       !cctx ? err.msg : v != X509_V_OK ? X509_verify_cert_error_string(v)
						      : at_net_tls_error(buf, sizeof(buf)));
		reply(tc, 502, tc->reason);
		return false;
	}
	setsockopt(tc->ufd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return true;
}

/*
 * Blocking, and without Nagle: a response goes out as several TLS records
 * (its head, its chunks), and a small one held back for the peer's delayed
 * ACK cost a kept connection 40 ms a request.
 */
static void blocking(int fd)
{
	int fl = fcntl(fd, F_GETFL), one = 1;

	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static void *term_main(void *arg)
{
	struct at_term_conn *tc = arg;
	struct at_net_record r;

	blocking(tc->cfd);
	blocking(tc->ufd);
	if (handshakes(tc))
		while (one_request(tc))
			;
	if (tc->cs)
		SSL_shutdown(tc->cs);
	r = (struct at_net_record){
		.proto = tc->proto, .host = tc->host, .port = tc->port, .addr = tc->addr,
		.allowed = tc->allowed, .rule = tc->rule,
		.reason = tc->reason[0] ? tc->reason : NULL,
		.bytes_up = tc->up, .bytes_down = tc->down, .start_ms = tc->start_ms,
		.duration_ms = at_mono_ms() - tc->start_mono_ms, .terminated = true,
	};
	if (tc->p->opts.record)
		tc->p->opts.record(&r, tc->p->opts.record_ctx);
	SSL_free(tc->cs);
	SSL_free(tc->us);
	tc->cs = tc->us = NULL;
	ERR_clear_error();
	pthread_mutex_lock(&tc->p->term_lock);
	close(tc->cfd);
	close(tc->ufd);
	tc->cfd = tc->ufd = -1;
	atomic_fetch_sub(&tc->p->terms_live, 1);
	pthread_mutex_unlock(&tc->p->term_lock);
	free(tc->in);
	OPENSSL_cleanse(tc->out, IO_BUF);
	free(tc->out);
	tc->in = tc->out = NULL;
	return NULL;
}

void at_term_start(struct at_proxy *p, const struct at_net_term_host *h,
		   const struct at_term_handoff *ho)
{
	struct at_term_conn *tc = calloc(1, sizeof(*tc));
	const struct at_net_term *t = p->opts.term;
	pthread_attr_t attr;
	bool ok = false;

	if (tc && (tc->in = malloc(IO_BUF)) && (tc->out = malloc(IO_BUF))) {
		tc->p = p;
		tc->h = h;
		tc->cfd = ho->cfd;
		tc->ufd = ho->ufd;
		tc->proto = ho->proto;
		snprintf(tc->host, sizeof(tc->host), "%s", ho->host);
		snprintf(tc->addr, sizeof(tc->addr), "%s", ho->addr);
		tc->port = ho->port;
		tc->rule = ho->rule;
		tc->allowed = true;
		tc->start_ms = ho->start_ms;
		tc->start_mono_ms = ho->start_mono_ms;
		for (size_t i = 0; i < t->nsecrets; i++)
			if (t->secrets[i].len > tc->scrub_tail + 1)
				tc->scrub_tail = t->secrets[i].len - 1;
		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, 256 << 10);
		pthread_mutex_lock(&p->term_lock);
		atomic_fetch_add(&p->terms_live, 1);
		ok = pthread_create(&tc->thread, &attr, term_main, tc) == 0;
		if (ok) {
			tc->next = p->terms;
			p->terms = tc;
		} else {
			atomic_fetch_sub(&p->terms_live, 1);
		}
		pthread_mutex_unlock(&p->term_lock);
		pthread_attr_destroy(&attr);
	}
	if (!ok) {
		close(ho->cfd);
		close(ho->ufd);
		if (tc) {
			free(tc->in);
			free(tc->out);
		}
		free(tc);
	}
}

void at_term_stop_all(struct at_proxy *p)
{
	struct at_term_conn *tc, *next;

	pthread_mutex_lock(&p->term_lock);
	for (tc = p->terms; tc; tc = tc->next) {
		if (tc->cfd >= 0)
			shutdown(tc->cfd, SHUT_RDWR);
		if (tc->ufd >= 0)
			shutdown(tc->ufd, SHUT_RDWR);
	}
	tc = p->terms;
	p->terms = NULL;
	pthread_mutex_unlock(&p->term_lock);
	for (; tc; tc = next) {
		next = tc->next;
		pthread_join(tc->thread, NULL);
		free(tc);
	}
}
