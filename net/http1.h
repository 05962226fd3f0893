/*
 * http1.h - one HTTP/1.1 request on a terminated connection (net/term.h),
 * judged and rewritten before a byte of it goes upstream; and where a
 * request's body and a response end. Parsing is http_parser's (Debian's
 * libhttp-parser, the parser Node.js used for a decade): nothing here reads
 * HTTP by hand but the checks the parser leaves to its caller.
 *
 * Pure functions over bytes from the sandbox: no I/O.
 */
#ifndef AT_NET_HTTP1_H
#define AT_NET_HTTP1_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <http_parser.h>

#include "net/term.h"

#define AT_HTTP1_HEAD_MAX 16384
#define AT_HTTP1_PATH_MAX 512

/*
 * The end of a request head at the start of buf: 1 with *len its length
 * (the blank line included), 0 while more may come, -1 when the bytes can
 * never be a head: a NUL, a bare CR or LF, another control character but a
 * tab, a folded line (one starting with a space or tab), or no end within
 * AT_HTTP1_HEAD_MAX bytes.
 */
int at_http1_head_end(const char *buf, size_t n, size_t *len);

struct at_http1_req {
	char method[24];
	char path[AT_HTTP1_PATH_MAX + 1];  /* the target without its query, for the record */
	int status;               /* 0: forward it; else 400 or 403, why says it */
	char why[320];
	char *head;               /* to send upstream (malloc'd), head_len bytes */
	size_t head_len;
	bool body;                /* a body follows (Content-Length > 0 or chunked) */
	bool head_request;        /* HEAD: its response has no body */
	bool expect_continue;     /* the client waits for a 100 (the header is not sent on) */
	int secret;               /* the secret put in, or -1 */
	int stray;                /* a secret whose placeholder went unchanged (to a host it
				     is not bound to, or outside the credential), or -1 */
};

/*
 * Judge the head (head_len bytes of buf, as at_http1_head_end found) of a
 * request on a connection that CONNECT named host:port (h: that host's
 * entry) and whose TLS named host too. On a verdict to forward, req->head
 * is the head to send: the placeholder in the credential judged below
 * replaced by its value, there only (the header's value, Bearer's token,
 * Basic's password; any other placeholder goes as it is, noted in stray),
 * an Expect: 100-continue dropped, and on a host a secret is bound to,
 * Accept-Encoding dropped (a compressed response could hide an echoed
 * value from the scrub). Refused (400: malformed or ambiguous; 403:
 * against a rule) are: a head http_parser refuses; a header name that is
 * not a token (a space before its colon, which http_parser lets through);
 * a version other than 1.0 and 1.1; a target that is not a path
 * ("*" for OPTIONS aside); CONNECT; a Host header missing, repeated, or
 * naming another host or port; Content-Length and Transfer-Encoding
 * together, either repeated, a coding other than "chunked"; Upgrade,
 * HTTP2-Settings or "Connection: upgrade" (WebSocket, h2c); a method or
 * path outside the host's rules (a path with rules must be normal: no
 * "..", ".", "//", backslash or encoded dot, slash or backslash); on a host
 * a secret is bound to, a credential (Authorization, Proxy-Authorization,
 * x-api-key, Cookie, the secret's header) that is not a bound secret's
 * placeholder where that secret may stand, or more than one. -1 only
 * when out of memory.
 */
int at_http1_judge(const struct at_net_term *t, const struct at_net_term_host *h,
		   const char *host, uint16_t port, const char *buf, size_t head_len,
		   struct at_http1_req *req);

void at_http1_req_release(struct at_http1_req *req);

/*
 * Following one message's bytes (a request's body, or a whole response):
 * at_http1_msg_init for a request whose head was judged (req, the head
 * already fed) or for the response to a request (head_request: no body).
 * at_http1_msg_feed takes the next n bytes: *used of them belong to the
 * message; 1 when it ended there, 0 when more is to come, -1 when they
 * break its framing. A response without a length ends at the connection's
 * end: at_http1_msg_eof then says whether that was its end.
 */
struct at_http1_msg {
	http_parser p;
	bool done, head_request;
	int status;               /* a response's status, once read */
	bool interim;             /* the response read was a 1xx: another follows */
	/* Set split, and a feed of a response stops where a head ends (head_end then
	 * set, for the caller to clear; chunked: its body is chunked), and the data of
	 * a body goes to sink (sink_len bytes; room for the bytes fed) as it is read. */
	bool split, head_end, chunked;
	char *sink;
	size_t sink_len;
};

int at_http1_msg_request(struct at_http1_msg *m, const char *head, size_t head_len);
void at_http1_msg_response(struct at_http1_msg *m, bool head_request);
int at_http1_msg_feed(struct at_http1_msg *m, const char *buf, size_t n, size_t *used);
bool at_http1_msg_eof(struct at_http1_msg *m);

#endif
