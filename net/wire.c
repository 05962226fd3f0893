#include "net/wire.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static int http_bad(struct at_wire_http *req, const char *why)
{
	req->why = why;
	return AT_WIRE_BAD;
}

/* Where the authority of an absolute URI (after "scheme://") ends. */
static size_t authority_len(const char *t, size_t tlen)
{
	size_t i = 0;

	while (i < tlen && t[i] != '/' && t[i] != '?' && t[i] != '#')
		i++;
	return i;
}

static bool token_char(char c)
{
	return c > ' ' && c < 0x7f && !strchr("()<>@,;:\\\"/[]?={}", c);
}

/* Every header line ends in CRLF, starts with a token and a colon; no folding. */
static bool headers_ok(const char *buf, size_t start, size_t end)
{
	size_t off = start;

	while (off < end) {
		const char *nl = memchr(buf + off, '\n', end - off);
		size_t i = off;
		if (!nl || nl == buf + off || nl[-1] != '\r')
			return false;
		if (nl == buf + off + 1)
			return (size_t)(nl - buf) + 1 == end;  /* the blank line */
		while (i < (size_t)(nl - buf) && token_char(buf[i]))
			i++;
		if (i == off || buf[i] != ':')
			return false;
		off = (size_t)(nl - buf) + 1;
	}
	return false;
}

static int parse_target(const char *t, size_t tlen, struct at_wire_http *req)
{
	char authority[AT_NET_HOST_MAX + 16];
	size_t alen;

	if (req->connect) {
		if (tlen >= sizeof(authority))
			return http_bad(req, "host name too long");
		memcpy(authority, t, tlen);
		authority[tlen] = '\0';
		if (!at_net_split_authority(authority, req->host, &req->port) || !req->port)
			return http_bad(req, "CONNECT needs host:port");
		return AT_WIRE_OK;
	}
	if (tlen < 7 || strncasecmp(t, "http://", 7) != 0)
		return http_bad(req, tlen >= 8 && strncasecmp(t, "https://", 8) == 0
					     ? "https goes through CONNECT"
					     : "the proxy takes absolute http:// URIs only");
	t += 7;
	tlen -= 7;
	alen = authority_len(t, tlen);
	if (alen == 0 || alen >= sizeof(authority) || memchr(t, '@', alen))
		return http_bad(req, "malformed URI authority");
	memcpy(authority, t, alen);
	authority[alen] = '\0';
	if (!at_net_split_authority(authority, req->host, &req->port))
		return http_bad(req, "malformed URI authority");
	if (!req->port)
		req->port = 80;
	return AT_WIRE_OK;
}

/* A control character other than a tab, or a CR or LF that is not one of a CRLF. */
static bool has_control(const char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)buf[i];
		if (c == '\r' ? i + 1 == len || buf[i + 1] != '\n'
		    : c == '\n' ? i == 0 || buf[i - 1] != '\r'
				: (c < ' ' && c != '\t') || c == 0x7f)
			return true;
	}
	return false;
}

static bool name_is(const char *line, size_t nlen, const char *name)
{
	return strlen(name) == nlen && strncasecmp(line, name, nlen) == 0;
}

/* Content-Length: digits alone, at most 18 of them (it fits, with room). */
static bool parse_length(const char *v, size_t n, uint64_t *out)
{
	uint64_t x = 0;

	if (n == 0 || n > 18)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9')
			return false;
		x = x * 10 + (uint64_t)(v[i] - '0');
	}
	*out = x;
	return true;
}

/*
 * How a plain-HTTP request's body is framed, from its header lines
 * (buf[start, end), checked by headers_ok): one Content-Length or one
 * "Transfer-Encoding: chunked", never both, never a protocol switch.
 */
static int parse_framing(const char *buf, size_t start, size_t end, bool http10,
			 struct at_wire_http *req)
{
	bool have_len = false, have_te = false;
	size_t off = start;

	while (off + 2 < end) {
		const char *line = buf + off, *nl = memchr(line, '\n', end - off);
		const char *colon = memchr(line, ':', (size_t)(nl - line));
		const char *v = colon + 1, *ve = nl - 1;  /* the value, OWS trimmed */
		size_t nlen = (size_t)(colon - line);

		while (v < ve && (*v == ' ' || *v == '\t'))
			v++;
		while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t'))
			ve--;
		if (name_is(line, nlen, "content-length")) {
			if (have_len)
				return http_bad(req, "two Content-Length headers");
			if (!parse_length(v, (size_t)(ve - v), &req->body.left))
				return http_bad(req, "a Content-Length that is not a number");
			have_len = true;
		} else if (name_is(line, nlen, "transfer-encoding")) {
			if (have_te)
				return http_bad(req, "two Transfer-Encoding headers");
			if ((size_t)(ve - v) != 7 || strncasecmp(v, "chunked", 7) != 0)
				return http_bad(req, "a Transfer-Encoding other than chunked");
			have_te = true;
		} else if (name_is(line, nlen, "upgrade") || name_is(line, nlen, "http2-settings")) {
			return http_bad(req, "a protocol upgrade (WebSocket, h2c) over plain HTTP");
		}
		off = (size_t)(nl - buf) + 1;
	}
	if (have_len && have_te)
		return http_bad(req, "both Content-Length and Transfer-Encoding");
	if (have_te && http10)
		return http_bad(req, "Transfer-Encoding in an HTTP/1.0 request");
	req->body.kind = have_te ? AT_WIRE_BODY_CHUNKED
		       : have_len ? AT_WIRE_BODY_LENGTH : AT_WIRE_BODY_NONE;
	if (have_te)
		req->body.left = 0;
	req->body.done = !have_te && req->body.left == 0;
	return AT_WIRE_OK;
}

int at_wire_http_parse(const char *buf, size_t len, struct at_wire_http *req)
{
	const char *nl, *sp1, *sp2, *end;
	size_t head_len;

	memset(req, 0, sizeof(*req));
	end = len >= 4 ? memmem(buf, len, "\r\n\r\n", 4) : NULL;
	if (!end)
		return len >= AT_WIRE_HEAD_MAX ? http_bad(req, "request head too long")
					       : AT_WIRE_MORE;
	head_len = (size_t)(end - buf) + 4;
	nl = memchr(buf, '\n', head_len);
	if (!nl || nl == buf || nl[-1] != '\r')
		return http_bad(req, "malformed request line");
	sp1 = memchr(buf, ' ', (size_t)(nl - buf));
	sp2 = sp1 ? memchr(sp1 + 1, ' ', (size_t)(nl - sp1 - 1)) : NULL;
	if (!sp1 || !sp2 || sp1 == buf || sp2 == sp1 + 1 || (size_t)(nl - 1 - sp2 - 1) != 8 ||
	    strncmp(sp2 + 1, "HTTP/1.", 7) != 0 || (sp2[8] != '0' && sp2[8] != '1'))
		return http_bad(req, "malformed request line");
	if (has_control(buf, head_len))
		return http_bad(req, "a control character (NUL, a bare CR or LF) in the head");
	for (const char *p = buf; p < sp1; p++)
		if (!token_char(*p))
			return http_bad(req, "malformed request line");
	for (const char *p = sp1 + 1; p < sp2; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f)
			return http_bad(req, "malformed request line");
	if (!headers_ok(buf, (size_t)(nl - buf) + 1, head_len))
		return http_bad(req, "malformed header line");
	req->connect = (size_t)(sp1 - buf) == 7 && memcmp(buf, "CONNECT", 7) == 0;
	req->head_len = head_len;
	if (!req->connect &&
	    parse_framing(buf, (size_t)(nl - buf) + 1, head_len, sp2[8] == '0', req) != AT_WIRE_OK)
		return AT_WIRE_BAD;
	return parse_target(sp1 + 1, (size_t)(sp2 - sp1 - 1), req);
}

#define CHUNK_LINE_MAX 4096

enum chunk_state {
	CH_SIZE0, CH_SIZE, CH_EXT, CH_SIZE_LF, CH_DATA, CH_DATA_CR, CH_DATA_LF,
	CH_TRAILER, CH_TNAME, CH_TVALUE, CH_TLF, CH_END_LF,
};

static int hex_digit(char c)
{
	return c >= '0' && c <= '9' ? c - '0'
	     : c >= 'a' && c <= 'f' ? c - 'a' + 10
	     : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static bool is_control(char c)
{
	return ((unsigned char)c < ' ' && c != '\t') || c == 0x7f;
}

/* One byte of chunked framing outside chunk data: the next state, or -1. */
static int chunk_byte(struct at_wire_body *b, char c)
{
	int d = hex_digit(c);

	switch (b->state) {
	case CH_SIZE0:
		b->left = 0;
		b->line = 0;
		/* fall through */
	case CH_SIZE:
		if (d >= 0 && b->left <= (UINT64_MAX >> 4) && ++b->line <= 16) {
			b->left = b->left * 16 + (uint64_t)d;
			return CH_SIZE;
		}
		return b->state == CH_SIZE && c == ';' ? CH_EXT
		     : b->state == CH_SIZE && c == '\r' ? CH_SIZE_LF : -1;
	case CH_EXT:
		if (++b->line > CHUNK_LINE_MAX || is_control(c))
			return c == '\r' && b->line <= CHUNK_LINE_MAX ? CH_SIZE_LF : -1;
		return CH_EXT;
	case CH_SIZE_LF:
		return c != '\n' ? -1 : b->left ? CH_DATA : CH_TRAILER;
	case CH_DATA_CR:
		return c == '\r' ? CH_DATA_LF : -1;
	case CH_DATA_LF:
		return c == '\n' ? CH_SIZE0 : -1;
	}
	/* the trailer section: header lines, then CRLF */
	if (++b->trailers > AT_WIRE_HEAD_MAX)
		return -1;
	switch (b->state) {
	case CH_TRAILER:
		return c == '\r' ? CH_END_LF : token_char(c) ? CH_TNAME : -1;
	case CH_TNAME:
		return c == ':' ? CH_TVALUE : token_char(c) ? CH_TNAME : -1;
	case CH_TVALUE:
		return c == '\r' ? CH_TLF : is_control(c) ? -1 : CH_TVALUE;
	case CH_TLF:
		return c == '\n' ? CH_TRAILER : -1;
	default:  /* CH_END_LF */
		return -1;
	}
}

int at_wire_body_feed(struct at_wire_body *b, const char *buf, size_t n, size_t *used)
{
	size_t i = 0;

	if (b->done) {
		*used = 0;
		return AT_WIRE_OK;
	}
	if (b->kind == AT_WIRE_BODY_LENGTH) {
		size_t take = b->left < n ? (size_t)b->left : n;
		b->left -= take;
		b->done = b->left == 0;
		*used = b->done ? take : n;
		return b->done ? AT_WIRE_OK : AT_WIRE_MORE;
	}
	while (i < n) {
		if (b->state == CH_DATA) {
			size_t take = b->left < n - i ? (size_t)b->left : n - i;
			i += take;
			b->left -= take;
			if (!b->left)
				b->state = CH_DATA_CR;
			continue;
		}
		if (b->state == CH_END_LF) {
			if (buf[i++] != '\n')
				return AT_WIRE_BAD;
			b->done = true;
			*used = i;
			return AT_WIRE_OK;
		}
		if ((b->state = chunk_byte(b, buf[i++])) < 0)
			return AT_WIRE_BAD;
	}
	*used = n;
	return AT_WIRE_MORE;
}

static bool dropped_header(const char *line, size_t len)
{
	static const char *const names[] = { "host", "connection", "proxy-connection",
					     "keep-alive", "proxy-authorization" };
	const char *colon = memchr(line, ':', len);
	size_t nlen = colon ? (size_t)(colon - line) : 0;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == nlen && strncasecmp(line, names[i], nlen) == 0)
			return true;
	return false;
}

static bool put(char *out, size_t size, size_t *off, const char *s, size_t n)
{
	if (n > size - *off)
		return false;
	memcpy(out + *off, s, n);
	*off += n;
	return true;
}

size_t at_wire_http_rewrite(const char *buf, const struct at_wire_http *req, char *out,
			    size_t size)
{
	const char *nl = memchr(buf, '\n', req->head_len);
	const char *sp1 = memchr(buf, ' ', (size_t)(nl - buf));
	const char *sp2 = memchr(sp1 + 1, ' ', (size_t)(nl - sp1 - 1));
	const char *t = sp1 + 1 + 7, *path;
	char host_line[AT_NET_HOST_MAX + 32];
	size_t off = 0, pos;

	path = t + authority_len(t, (size_t)(sp2 - t));
	if (!put(out, size, &off, buf, (size_t)(sp1 - buf) + 1) ||
	    (*path != '/' && !put(out, size, &off, "/", 1)) ||
	    !put(out, size, &off, path, (size_t)(nl + 1 - path)))
		return 0;
	snprintf(host_line, sizeof(host_line), req->port == 80 ? "Host: %s\r\n" : "Host: %s:%u\r\n",
		 req->host, (unsigned)req->port);
	if (!put(out, size, &off, host_line, strlen(host_line)))
		return 0;
	for (pos = (size_t)(nl - buf) + 1; pos + 2 < req->head_len;) {
		const char *e = memchr(buf + pos, '\n', req->head_len - pos);
		size_t n = (size_t)(e - buf) + 1 - pos;
		if (!dropped_header(buf + pos, n) && !put(out, size, &off, buf + pos, n))
			return 0;
		pos += n;
	}
	if (!put(out, size, &off, "Connection: close\r\n\r\n", 21))
		return 0;
	return off;
}

int at_wire_socks_greeting(const uint8_t *buf, size_t n, size_t *len, bool *noauth)
{
	if (n < 2)
		return n >= 1 && buf[0] != 5 ? AT_WIRE_BAD : AT_WIRE_MORE;
	if (buf[0] != 5 || buf[1] == 0)
		return AT_WIRE_BAD;
	if (n < (size_t)2 + buf[1])
		return AT_WIRE_MORE;
	*noauth = memchr(buf + 2, 0, buf[1]) != NULL;
	*len = (size_t)2 + buf[1];
	return AT_WIRE_OK;
}

int at_wire_socks_request(const uint8_t *buf, size_t n, struct at_wire_socks *req)
{
	size_t alen;
	char ip[INET6_ADDRSTRLEN];

	if (n < 5)
		return n >= 1 && buf[0] != 5 ? AT_WIRE_BAD : AT_WIRE_MORE;
	if (buf[0] != 5 || buf[2] != 0)
		return AT_WIRE_BAD;
	switch (buf[3]) {
	case 1: alen = 4; break;
	case 4: alen = 16; break;
	case 3: alen = (size_t)1 + buf[4]; break;
	default: return AT_WIRE_BAD;
	}
	if (n < 4 + alen + 2)
		return AT_WIRE_MORE;
	req->cmd = buf[1];
	req->len = 4 + alen + 2;
	req->port = (uint16_t)((buf[4 + alen] << 8) | buf[4 + alen + 1]);
	if (buf[3] == 3) {
		if (alen == 1 || memchr(buf + 5, 0, alen - 1))
			return AT_WIRE_BAD;
		memcpy(req->host, buf + 5, alen - 1);
		req->host[alen - 1] = '\0';
	} else if (buf[3] == 1) {
		inet_ntop(AF_INET, buf + 4, req->host, sizeof(req->host));
	} else {
		inet_ntop(AF_INET6, buf + 4, ip, sizeof(ip));
		snprintf(req->host, sizeof(req->host), "[%s]", ip);
	}
	return AT_WIRE_OK;
}

static uint32_t be(const uint8_t *p, int bytes)
{
	uint32_t v = 0;

	for (int i = 0; i < bytes; i++)
		v = (v << 8) | p[i];
	return v;
}

/* Skip a field of a length-prefixed vector; false when it runs past end. */
static bool skip_vec(const uint8_t **p, const uint8_t *end, int len_bytes)
{
	if (end - *p < len_bytes)
		return false;
	uint32_t n = be(*p, len_bytes);
	*p += len_bytes;
	if ((uint32_t)(end - *p) < n)
		return false;
	*p += n;
	return true;
}

/* The host_name of a server_name extension's body, or "" for another name type. */
static int sni_ext(const uint8_t *p, const uint8_t *end, char name[AT_NET_HOST_MAX + 1])
{
	uint32_t list, nlen;

	if (end - p < 2 || (list = be(p, 2)) != (uint32_t)(end - p - 2) || list < 3)
		return AT_WIRE_BAD;
	p += 2;
	if (p[0] != 0)
		return AT_WIRE_BAD;
	nlen = be(p + 1, 2);
	if (nlen == 0 || nlen > AT_NET_HOST_MAX || nlen > (uint32_t)(end - p - 3) ||
	    memchr(p + 3, 0, nlen))
		return AT_WIRE_BAD;
	memcpy(name, p + 3, nlen);
	name[nlen] = '\0';
	return AT_WIRE_OK;
}

static int hello_sni(const uint8_t *p, const uint8_t *end, char name[AT_NET_HOST_MAX + 1])
{
	const uint8_t *ext_end;

	/* client_version, random; session_id, cipher_suites, compression_methods */
	if (end - p < 34)
		return AT_WIRE_BAD;
	p += 34;
	if (!skip_vec(&p, end, 1) || !skip_vec(&p, end, 2) || !skip_vec(&p, end, 1))
		return AT_WIRE_BAD;
	if (p == end)
		return AT_WIRE_OK;  /* no extensions: no name */
	if (end - p < 2 || be(p, 2) != (uint32_t)(end - p - 2))
		return AT_WIRE_BAD;
	ext_end = end;
	p += 2;
	while (p < ext_end) {
		uint32_t type, elen;
		if (ext_end - p < 4)
			return AT_WIRE_BAD;
		type = be(p, 2);
		elen = be(p + 2, 2);
		p += 4;
		if ((uint32_t)(ext_end - p) < elen)
			return AT_WIRE_BAD;
		if (type == 0)
			return sni_ext(p, p + elen, name);
		p += elen;
	}
	return AT_WIRE_OK;
}

int at_wire_tls_sni(const uint8_t *buf, size_t n, bool *is_tls, char name[AT_NET_HOST_MAX + 1])
{
	uint32_t rec_len, hs_len;

	name[0] = '\0';
	*is_tls = n >= 1 && buf[0] == 0x16;
	if (n == 0)
		return AT_WIRE_MORE;
	if (!*is_tls)
		return AT_WIRE_OK;
	if (n < 5)
		return AT_WIRE_MORE;
	rec_len = be(buf + 3, 2);
	if (buf[1] != 3 || rec_len < 4 || rec_len > 16384 + 2048)
		return AT_WIRE_BAD;
	if (n < 5 + rec_len)
		return AT_WIRE_MORE;
	if (buf[5] != 1)
		return AT_WIRE_BAD;
	hs_len = be(buf + 6, 3);
	if (hs_len + 4 > rec_len)
		return AT_WIRE_BAD;  /* the hello continues in another record */
	return hello_sni(buf + 9, buf + 9 + hs_len, name);
}
