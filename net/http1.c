#include "net/http1.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/evp.h>

#define HEADERS_MAX 128
#define PASSWORD SIZE_MAX

int at_http1_head_end(const char *buf, size_t n, size_t *len)
{
	for (size_t i = 0; i < n && i < AT_HTTP1_HEAD_MAX; i++) {
		unsigned char c = (unsigned char)buf[i];
		if (c == '\r') {
			if (i + 1 < n && buf[i + 1] != '\n')
				return -1;      /* a bare CR */
			continue;
		}
		if (c == '\n') {
			if (i == 0 || buf[i - 1] != '\r')
				return -1;      /* a bare LF */
			if (i + 1 < n && (buf[i + 1] == ' ' || buf[i + 1] == '\t'))
				return -1;      /* a folded line (obs-fold): one header read as two */
			if (i >= 3 && buf[i - 2] == '\n' && buf[i - 3] == '\r') {
				*len = i + 1;
				return 1;
			}
			continue;
		}
		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return -1;
	}
	return n >= AT_HTTP1_HEAD_MAX ? -1 : 0;
}

struct hdr {
	const char *name, *val;
	size_t nlen, vlen;
};

struct head {
	struct hdr h[HEADERS_MAX];
	size_t n;
	bool in_value, overflow;
	const struct hdr *cred;   /* the credential judged: its placeholder at cred_at (PASSWORD: */
	size_t cred_at;           /* Basic's password), the only place the value is put */
	const char *url;
	size_t ulen;
};

static int on_url(http_parser *p, const char *at, size_t len)
{
	struct head *hd = p->data;

	if (!hd->url)
		hd->url = at;
	hd->ulen = (size_t)(at + len - hd->url);
	return 0;
}

static int on_field(http_parser *p, const char *at, size_t len)
{
	struct head *hd = p->data;

	if (hd->n && !hd->in_value) {
		hd->h[hd->n - 1].nlen = (size_t)(at + len - hd->h[hd->n - 1].name);
		return 0;
	}
	if (hd->n == HEADERS_MAX) {
		hd->overflow = true;
		return 1;
	}
	hd->h[hd->n++] = (struct hdr){ at, at, len, 0 };
	hd->in_value = false;
	return 0;
}

static int on_value(http_parser *p, const char *at, size_t len)
{
	struct head *hd = p->data;
	struct hdr *h = &hd->h[hd->n - 1];

	if (!hd->in_value)
		h->val = at;
	hd->in_value = true;
	h->vlen = (size_t)(at + len - h->val);
	return 0;
}

static int on_complete(http_parser *p)
{
	http_parser_pause(p, 1);
	return 0;
}

static bool is(const struct hdr *h, const char *name)
{
	return h->nlen == strlen(name) && strncasecmp(h->name, name, h->nlen) == 0;
}

/* RFC 9110's token: http_parser (not built strict) also lets a space into a name, which a server
 * that trims it ("Authorization : ...") would read as a header the judge never saw. */
static bool token(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || (s[i] && strchr("!#$%&'*+-.^_`|~", s[i]))))
			return false;
	return n > 0;
}

static void trim(struct hdr *h)
{
	while (h->vlen && (h->val[h->vlen - 1] == ' ' || h->val[h->vlen - 1] == '\t'))
		h->vlen--;
}

static size_t count(const struct head *hd, const char *name, const struct hdr **last)
{
	size_t n = 0;

	for (size_t i = 0; i < hd->n; i++)
		if (is(&hd->h[i], name)) {
			n++;
			if (last)
				*last = &hd->h[i];
		}
	return n;
}

static int refuse(struct at_http1_req *r, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int refuse(struct at_http1_req *r, int status, const char *fmt, ...)
{
	va_list ap;

	r->status = status;
	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
	return 0;
}

/* A header value may hold anything printable; messages show at most 64 bytes of it, escaped. */
static void show(char *out, size_t size, const char *s, size_t n)
{
	size_t o = 0;

	for (size_t i = 0; i < n && o + 5 < size && i < 64; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c < 0x7f && c != '\'' && c != '\\')
			out[o++] = (char)c;
		else
			o += (size_t)snprintf(out + o, size - o, "\\x%02x", c);
	}
	out[o] = '\0';
}

/* Find needle (len m) in s (len n). */
static const char *find(const char *s, size_t n, const char *needle, size_t m)
{
	if (!m)
		return NULL;
	for (size_t i = 0; i + m <= n; i++)
		if (s[i] == needle[0] && memcmp(s + i, needle, m) == 0)
			return s + i;
	return NULL;
}

static bool bound(const struct at_net_term_host *h, size_t i)
{
	return h && (h->secrets & (UINT32_C(1) << i));
}

/* "Basic TOKEN": the decoded "user:password" into out (NUL-terminated); its length, or -1. */
static int basic_decode(const struct hdr *h, unsigned char *out, size_t size)
{
	const char *tok;
	size_t tlen;
	int n;

	if (h->vlen < 6 || strncasecmp(h->val, "basic ", 6) != 0)
		return -1;
	tok = h->val + 6;
	tlen = h->vlen - 6;
	while (tlen && *tok == ' ')
		tok++, tlen--;
	if (!tlen || tlen % 4 || tlen / 4 * 3 + 1 > size)
		return -1;
	n = EVP_DecodeBlock(out, (const unsigned char *)tok, (int)tlen);
	if (n < 0)
		return -1;
	/* EVP_DecodeBlock counts the padding's bytes as zeros */
	for (size_t pad = tlen; pad && tok[pad - 1] == '='; pad--)
		n--;
	out[n] = '\0';
	return memchr(out, '\0', (size_t)n) ? -1 : n;
}

/* The secret (bound to h) whose placeholder stands whole where credential header c may hold it,
 * at *at in its value (PASSWORD: Basic's password); -1 none. */
static int cred_secret(const struct at_net_term *t, const struct at_net_term_host *h,
		       const struct hdr *c, size_t *at)
{
	unsigned char dec[AT_HTTP1_HEAD_MAX];
	int dn = is(c, "authorization") ? basic_decode(c, dec, sizeof(dec)) : -1;
	const char *sp = memchr(c->val, ' ', c->vlen);

	for (size_t i = 0; i < t->nsecrets; i++) {
		const struct at_net_secret *s = &t->secrets[i];
		bool whole = c->vlen == s->len && memcmp(c->val, s->placeholder, s->len) == 0;
		bool token = sp && (size_t)(c->val + c->vlen - sp - 1) == s->len &&
			     memcmp(sp + 1, s->placeholder, s->len) == 0;
		const unsigned char *colon = dn > 0 ? memchr(dec, ':', (size_t)dn) : NULL;
		bool pass = colon && (size_t)(dec + dn - colon - 1) == s->len &&
			    memcmp(colon + 1, s->placeholder, s->len) == 0;

		bool ok = false;

		if (!bound(h, i))
			continue;
		switch (s->where) {
		case AT_NET_CRED_HEADER:
			ok = is(c, s->header) && (whole || token || pass);
			break;
		case AT_NET_CRED_BEARER:
			ok = is(c, "authorization") && token && strncasecmp(c->val, "bearer ", 7) == 0;
			whole = pass = false;
			break;
		case AT_NET_CRED_BASIC:
			ok = pass;
			whole = token = false;
			break;
		case AT_NET_CRED_ANY:
			ok = (is(c, "x-api-key") && whole) || (is(c, "authorization") && (token || pass)) ||
			     (s->header[0] && is(c, s->header) && whole);
			break;
		}
		if (ok) {
			*at = whole ? 0 : token ? (size_t)(sp + 1 - c->val) : PASSWORD;
			return (int)i;
		}
	}
	return -1;
}

static bool is_cred(const struct at_net_term *t, const struct at_net_term_host *h,
		    const struct hdr *c)
{
	static const char *const names[] = { "authorization", "proxy-authorization", "x-api-key",
					     "cookie", NULL };

	for (size_t i = 0; names[i]; i++)
		if (is(c, names[i]))
			return true;
	for (size_t i = 0; i < t->nsecrets; i++)
		if (bound(h, i) && t->secrets[i].header[0] && is(c, t->secrets[i].header))
			return true;
	return false;
}

/* The credentials of a request to a host secrets are bound to: one at most, a placeholder. */
static int judge_creds(const struct at_net_term *t, const struct at_net_term_host *h,
		       struct head *hd, const char *host, struct at_http1_req *r)
{
	const struct hdr *first = NULL;
	char a[80], b[80];

	for (size_t i = 0; i < hd->n; i++) {
		const struct hdr *c = &hd->h[i];
		if (!is_cred(t, h, c))
			continue;
		show(a, sizeof(a), c->name, c->nlen);
		if (first) {
			show(b, sizeof(b), first->name, first->nlen);
			return refuse(r, 403, "a request to '%s' carries a second credential ('%s' "
				      "after '%s')", host, a, b);
		}
		first = hd->cred = c;
		r->secret = cred_secret(t, h, c, &hd->cred_at);
		if (r->secret < 0)
			return refuse(r, 403, "the credential in '%s' of a request to '%s' is not the "
				      "placeholder of a secret bound to it", a, host);
	}
	return 0;
}

static bool normal_path(const char *p, size_t n)
{
	static const char *const bad[] = { "/../", "/./", "//", "\\", "%2e", "%2f", "%5c", NULL };
	char buf[AT_HTTP1_PATH_MAX + 2];

	if (n > AT_HTTP1_PATH_MAX)
		return false;
	memcpy(buf, p, n);
	buf[n] = '/';        /* a trailing "/.." or "/." is caught as "/../" */
	buf[n + 1] = '\0';
	for (size_t i = 0; bad[i]; i++)
		if (strcasestr(buf, bad[i]))
			return false;
	return true;
}

static int judge_rules(const struct at_net_term_host *h, const char *host, struct at_http1_req *r)
{
	size_t i;
	bool ok = h->methods.n == 0;

	for (i = 0; i < h->methods.n && !ok; i++)
		ok = strcmp(h->methods.v[i], r->method) == 0;
	if (!ok)
		return refuse(r, 403, "%s to '%s' is refused: the request rules of '%s' allow "
			      "only some methods", r->method, host, host);
	if (h->paths.n == 0)
		return 0;
	if (!normal_path(r->path, strlen(r->path)))
		return refuse(r, 403, "the path of a request to '%s' is not normal ('..', '.', "
			      "'//', a backslash or an encoded dot or slash), and '%s' has path rules",
			      host, host);
	for (i = 0; i < h->paths.n; i++)
		if (strncmp(r->path, h->paths.v[i], strlen(h->paths.v[i])) == 0)
			return 0;
	return refuse(r, 403, "the path of a request to '%s' is under none of the path "
		      "prefixes of its request rules", host);
}

static int judge_host(const struct head *hd, const char *host, uint16_t port,
		      struct at_http1_req *r)
{
	const struct hdr *hh = NULL;
	char val[AT_NET_HOST_MAX + 16], name[AT_NET_HOST_MAX + 3], canon[AT_NET_HOST_MAX + 1];
	char shown[80];
	struct in6_addr ip;
	uint16_t hport;
	bool is_ip;

	if (count(hd, "host", &hh) != 1)
		return refuse(r, 400, "a request must have exactly one Host header");
	show(shown, sizeof(shown), hh->val, hh->vlen);
	if (hh->vlen >= sizeof(val))
		return refuse(r, 403, "Host '%s' is not '%s'", shown, host);
	memcpy(val, hh->val, hh->vlen);
	val[hh->vlen] = '\0';
	if (!at_net_split_authority(val, name, &hport) ||
	    !at_net_host_canon(name, canon, &ip, &is_ip) || strcmp(canon, host) != 0 ||
	    (hport && hport != port))
		return refuse(r, 403, "Host '%s' is not '%s', the host this connection was "
			      "allowed for", shown, host);
	return 0;
}

static int judge_framing(const struct head *hd, http_parser *p, struct at_http1_req *r)
{
	const struct hdr *te = NULL, *h;
	size_t ncl = count(hd, "content-length", NULL), nte = count(hd, "transfer-encoding", &te);

	if (ncl > 1 || nte > 1 || (ncl && nte))
		return refuse(r, 400, "ambiguous framing: Content-Length and Transfer-Encoding "
			      "together, or either twice");
	if (te && !(te->vlen == 7 && strncasecmp(te->val, "chunked", 7) == 0))
		return refuse(r, 400, "a Transfer-Encoding other than 'chunked'");
	if (count(hd, "upgrade", NULL) || count(hd, "http2-settings", NULL))
		return refuse(r, 400, "a protocol upgrade (WebSocket, h2c) is refused on a "
			      "terminated host");
	for (size_t i = 0; i < hd->n; i++) {
		h = &hd->h[i];
		if (is(h, "connection") && find(h->val, h->vlen, "pgrade", 6))
			return refuse(r, 400, "a protocol upgrade (Connection: upgrade) is refused");
	}
	r->body = te != NULL || (ncl && p->content_length > 0 && p->content_length != ULLONG_MAX);
	return 0;
}

/* A placeholder left as it is (outside the credential, or to a host it is not bound to): noted. */
static void note_stray(const struct at_net_term *t, const char *s, size_t n, struct at_http1_req *r)
{
	for (size_t i = 0; i < t->nsecrets; i++)
		if (find(s, n, t->secrets[i].placeholder, t->secrets[i].len))
			r->stray = (int)i;
}

/* Authorization: Basic whose password is the placeholder: decoded, the value put in, encoded. */
static size_t basic_put(const struct at_net_secret *sec, const struct hdr *c, char *out, size_t room)
{
	unsigned char dec[AT_HTTP1_HEAD_MAX];
	int dn = basic_decode(c, dec, sizeof(dec));
	int n;

	if (dn < (int)sec->len || room < 6 + ((size_t)dn + 2) / 3 * 4 + 1)
		return 0;
	memcpy(dec + dn - sec->len, sec->value, sec->len);
	memcpy(out, "Basic ", 6);
	n = EVP_EncodeBlock((unsigned char *)out + 6, dec, dn);
	OPENSSL_cleanse(dec, sizeof(dec));
	return n < 0 ? 0 : 6 + (size_t)n;
}

/* The value goes where the credential stands, and nowhere else: a placeholder beside it (in a
 * header the host echoes, perhaps base64'd or URL-encoded where the response's scrub cannot
 * find it, or as Basic's user name) goes as it is. */
static int rebuild(const struct at_net_term *t, const struct at_net_term_host *h,
		   const struct head *hd, const char *buf, struct at_http1_req *r)
{
	const char *eol = memchr(buf, '\n', AT_HTTP1_HEAD_MAX);
	size_t cap = 2 * AT_HTTP1_HEAD_MAX + 64, o = (size_t)(eol - buf) + 1;
	char *out = malloc(cap);

	if (!out)
		return -1;
	memcpy(out, buf, o);
	for (size_t i = 0; i < hd->n; i++) {
		const struct hdr *c = &hd->h[i];
		size_t b;
		/* A host a secret is bound to answers uncompressed: the proxy can then find
		 * an echoed value in the response and put the placeholder back. */
		if (is(c, "expect") || is(c, "proxy-connection") ||
		    (h->secrets && is(c, "accept-encoding")))
			continue;
		memcpy(out + o, c->name, c->nlen);
		o += c->nlen;
		out[o++] = ':';
		out[o++] = ' ';
		if (c == hd->cred && r->secret >= 0) {
			const struct at_net_secret *sec = &t->secrets[r->secret];
			if (hd->cred_at == PASSWORD) {
				if (!(b = basic_put(sec, c, out + o, cap - o - 4))) {
					free(out);
					return -1;
				}
			} else {
				memcpy(out + o, c->val, c->vlen);
				memcpy(out + o + hd->cred_at, sec->value, sec->len);
				b = c->vlen;
			}
		} else {
			memcpy(out + o, c->val, c->vlen);
			b = c->vlen;
			note_stray(t, c->val, c->vlen, r);
		}
		o += b;
		out[o++] = '\r';
		out[o++] = '\n';
	}
	out[o++] = '\r';
	out[o++] = '\n';
	r->head = out;
	r->head_len = o;
	return 0;
}

static const http_parser_settings head_settings = {
	.on_url = on_url,
	.on_header_field = on_field,
	.on_header_value = on_value,
	.on_message_complete = on_complete,
};

int at_http1_judge(const struct at_net_term *t, const struct at_net_term_host *h,
		   const char *host, uint16_t port, const char *buf, size_t head_len,
		   struct at_http1_req *r)
{
	struct head *hd = calloc(1, sizeof(*hd));
	http_parser p;
	size_t i, n;
	int rc = 0;

	memset(r, 0, sizeof(*r));
	r->secret = r->stray = -1;
	if (!hd)
		return -1;
	http_parser_init(&p, HTTP_REQUEST);
	p.data = hd;
	n = http_parser_execute(&p, &head_settings, buf, head_len);
	if (HTTP_PARSER_ERRNO(&p) != HPE_OK && HTTP_PARSER_ERRNO(&p) != HPE_PAUSED) {
		refuse(r, 400, "malformed request: %s", hd->overflow ? "too many headers" :
		       http_errno_description(HTTP_PARSER_ERRNO(&p)));
		goto out;
	}
	(void)n;
	snprintf(r->method, sizeof(r->method), "%s", http_method_str(p.method));
	for (i = 0; i < hd->n; i++) {
		trim(&hd->h[i]);
		if (memchr(hd->h[i].val, '\r', hd->h[i].vlen) || memchr(hd->h[i].val, '\n', hd->h[i].vlen)) {
			refuse(r, 400, "malformed request: a header value across lines");
			goto out;
		}
		if (!token(hd->h[i].name, hd->h[i].nlen)) {
			refuse(r, 400, "malformed request: a header name with a space or another "
			       "byte a name cannot hold");
			goto out;
		}
	}
	if (!hd->url || !(p.http_major == 1 && p.http_minor <= 1)) {
		refuse(r, 400, "malformed request: HTTP/1.0 or HTTP/1.1 only");
		goto out;
	}
	i = strcspn(hd->url, "?# ");
	if (i > hd->ulen)
		i = hd->ulen;
	if (i > AT_HTTP1_PATH_MAX) {
		refuse(r, 400, "malformed request: a path longer than %d bytes", AT_HTTP1_PATH_MAX);
		goto out;
	}
	memcpy(r->path, hd->url, i);
	r->path[i] = '\0';
	r->head_request = p.method == HTTP_HEAD;
	if (p.method == HTTP_CONNECT) {
		refuse(r, 400, "CONNECT inside a terminated connection");
		goto out;
	}
	if (r->path[0] != '/' && !(p.method == HTTP_OPTIONS && strcmp(r->path, "*") == 0)) {
		refuse(r, 400, "malformed request: the target is not a path");
		goto out;
	}
	for (i = 0; i < hd->n; i++)
		if (is(&hd->h[i], "expect") && hd->h[i].vlen == 12 &&
		    strncasecmp(hd->h[i].val, "100-continue", 12) == 0)
			r->expect_continue = true;
	if (judge_framing(hd, &p, r) || r->status || judge_host(hd, host, port, r) || r->status ||
	    judge_rules(h, host, r) || r->status || (h->secrets && judge_creds(t, h, hd, host, r)) ||
	    r->status)
		goto out;
	note_stray(t, hd->url, hd->ulen, r);  /* a placeholder in the target: as it is */
	rc = rebuild(t, h, hd, buf, r);
out:
	free(hd);
	return rc;
}

void at_http1_req_release(struct at_http1_req *r)
{
	if (r->head) {
		OPENSSL_cleanse(r->head, r->head_len);
		free(r->head);
	}
	r->head = NULL;
}

/* ---- where a message ends ---- */

static int msg_complete(http_parser *p)
{
	struct at_http1_msg *m = p->data;

	if (p->type == HTTP_RESPONSE && p->status_code / 100 == 1 && p->status_code != 101) {
		m->interim = true;   /* 100 Continue, 103 Early Hints: the final one follows */
		return 0;
	}
	m->done = true;
	http_parser_pause(p, 1);
	return 0;
}

static int msg_headers(http_parser *p)
{
	struct at_http1_msg *m = p->data;

	m->status = (int)p->status_code;
	/* a response to HEAD, and 1xx/204/304, have no body; 101 is never asked for */
	if (p->type == HTTP_RESPONSE && m->head_request)
		return 1;
	if (p->type == HTTP_RESPONSE && m->split) {
		m->head_end = true;
		m->chunked = (p->flags & F_CHUNKED) != 0;
		http_parser_pause(p, 1);
	}
	return 0;
}

static int msg_body(http_parser *p, const char *at, size_t len)
{
	struct at_http1_msg *m = p->data;

	if (m->sink) {
		memcpy(m->sink + m->sink_len, at, len);
		m->sink_len += len;
	}
	return 0;
}

static const http_parser_settings msg_settings = {
	.on_headers_complete = msg_headers,
	.on_body = msg_body,
	.on_message_complete = msg_complete,
};

int at_http1_msg_request(struct at_http1_msg *m, const char *head, size_t head_len)
{
	size_t used;

	memset(m, 0, sizeof(*m));
	http_parser_init(&m->p, HTTP_REQUEST);
	m->p.data = m;
	return at_http1_msg_feed(m, head, head_len, &used);
}

void at_http1_msg_response(struct at_http1_msg *m, bool head_request)
{
	memset(m, 0, sizeof(*m));
	http_parser_init(&m->p, HTTP_RESPONSE);
	m->p.data = m;
	m->head_request = head_request;
}

int at_http1_msg_feed(struct at_http1_msg *m, const char *buf, size_t n, size_t *used)
{
	*used = 0;
	if (m->done)
		return 1;
	if (n == 0)      /* to http_parser, no bytes is the connection's end: at_http1_msg_eof */
		return 0;
	*used = http_parser_execute(&m->p, &msg_settings, buf, n);
	if (HTTP_PARSER_ERRNO(&m->p) == HPE_PAUSED && !m->done) {
		/* paused where a head ends (split), before its last LF: that LF is the head's */
		http_parser_pause(&m->p, 0);
		if (*used < n && buf[*used] == '\n')
			*used += http_parser_execute(&m->p, &msg_settings, buf + *used, 1);
	}
	if (HTTP_PARSER_ERRNO(&m->p) == HPE_PAUSED)
		return 1;
	if (HTTP_PARSER_ERRNO(&m->p) != HPE_OK)
		return -1;
	return m->done;
}

bool at_http1_msg_eof(struct at_http1_msg *m)
{
	if (!m->done)
		http_parser_execute(&m->p, &msg_settings, NULL, 0);
	return m->done;
}
