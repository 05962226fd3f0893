/*
 * wire.h - the proxy's parsers: an HTTP request head, SOCKS5 greetings and
 * requests, and the server name of a TLS ClientHello.
 *
 * Pure functions over bytes the sandbox sent: no allocation, no I/O, every
 * length checked against the buffer. Each returns AT_WIRE_MORE while the
 * bytes so far are a valid prefix, AT_WIRE_OK when complete, AT_WIRE_BAD when
 * they can never be valid.
 */
#ifndef AT_NET_WIRE_H
#define AT_NET_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net/rules.h"

enum at_wire { AT_WIRE_OK = 0, AT_WIRE_MORE = 1, AT_WIRE_BAD = -1 };

#define AT_WIRE_HEAD_MAX 16384   /* the longest request head the proxy reads */

enum at_wire_body_kind {
	AT_WIRE_BODY_NONE,            /* neither Content-Length nor Transfer-Encoding */
	AT_WIRE_BODY_LENGTH,          /* Content-Length */
	AT_WIRE_BODY_CHUNKED,         /* Transfer-Encoding: chunked */
};

/* Where a request's body ends, followed byte by byte (at_wire_body_feed). */
struct at_wire_body {
	enum at_wire_body_kind kind;
	uint64_t left;                /* LENGTH: bytes to come; CHUNKED: of this chunk's data */
	int state;                    /* CHUNKED: the place in the framing */
	size_t line;                  /* CHUNKED: bytes of the current size or trailer line */
	size_t trailers;              /* CHUNKED: bytes of trailer lines so far */
	bool done;                    /* the body has ended */
};

struct at_wire_http {
	bool connect;                 /* CONNECT host:port (else an absolute http:// URI) */
	char host[AT_NET_HOST_MAX + 3];  /* as written, brackets kept for IPv6 */
	uint16_t port;                /* CONNECT's, or the URI's (80 by default) */
	size_t head_len;              /* bytes of the head, its blank line included */
	struct at_wire_body body;     /* not CONNECT: how its body is framed */
	const char *why;              /* AT_WIRE_BAD: what is wrong, for the 400 */
};

/*
 * Parse the head of a request to the proxy: "CONNECT host:port HTTP/1.x" or
 * "METHOD http://host[:port]/path HTTP/1.x", then headers, then a blank
 * line. An https:// URI, another scheme, an origin-form target, a user name
 * in the URI, folded or bare-LF header lines, and a control character (NUL,
 * a bare CR, anything below 0x20 but a tab, DEL) anywhere in the head are
 * AT_WIRE_BAD.
 *
 * A plain-HTTP request must say where it ends so that the proxy and the
 * server cannot disagree (RFC 9112 6.3, 11.2): a Content-Length of digits
 * alone, or a Transfer-Encoding of exactly "chunked" (HTTP/1.1 only), or
 * neither (no body). Both at once, either twice, a list of lengths or of
 * codings, another coding, and a request to switch protocols (Upgrade,
 * HTTP2-Settings: WebSocket, h2c) are AT_WIRE_BAD.
 */
int at_wire_http_parse(const char *buf, size_t len, struct at_wire_http *req);

/*
 * The next n bytes of a body framed as *b says: AT_WIRE_MORE when all n
 * belong to it and more are to come, AT_WIRE_OK when the body ends after
 * the first *used of them (0 for a request without a body), AT_WIRE_BAD
 * when they break its framing (a chunk size that is not hexadecimal
 * digits, a missing CRLF, a bare CR or LF, a control character or a folded
 * line in an extension or a trailer, a size or trailers too long). Bytes
 * after the end are not the body's: the next request's, or an attack's.
 */
int at_wire_body_feed(struct at_wire_body *b, const char *buf, size_t n, size_t *used);

/*
 * The head to send upstream for a plain-HTTP request parsed above: the
 * origin-form target, Host replaced by the URI's authority (RFC 9112 3.2.2:
 * a proxy ignores the client's Host), Connection/Proxy-Connection/Keep-Alive
 * and Proxy-Authorization dropped, and "Connection: close" (one request per
 * upstream connection: the next may name another host). The body framing
 * headers go as they came: the proxy forwards exactly the body they declare.
 * Returns its length, or 0 when it does not fit in size.
 */
size_t at_wire_http_rewrite(const char *buf, const struct at_wire_http *req, char *out,
			    size_t size);

/* SOCKS5 greeting: AT_WIRE_OK with *len its length, *noauth whether method 0 is offered. */
int at_wire_socks_greeting(const uint8_t *buf, size_t n, size_t *len, bool *noauth);

struct at_wire_socks {
	uint8_t cmd;                  /* 1 CONNECT; anything else is refused by the caller */
	char host[AT_NET_HOST_MAX + 3];  /* a name, or an IP literal as text ([v6] bracketed) */
	uint16_t port;
	size_t len;
};

/* SOCKS5 request: VER CMD RSV ATYP ADDR PORT. A name with a NUL is AT_WIRE_BAD. */
int at_wire_socks_request(const uint8_t *buf, size_t n, struct at_wire_socks *req);

/*
 * The server name of the TLS ClientHello at the start of buf: AT_WIRE_OK
 * with name set ("" when the hello names none), AT_WIRE_MORE until the first
 * record is whole, AT_WIRE_BAD when the bytes are TLS but not a ClientHello
 * that one record holds whole (a hello split across records could hide its
 * name). *is_tls false (and AT_WIRE_OK) when the stream is not TLS at all.
 */
int at_wire_tls_sni(const uint8_t *buf, size_t n, bool *is_tls, char name[AT_NET_HOST_MAX + 1]);

#endif
