/*
 * Unit tests for net/wire.c: what the proxy reads from the sandbox.
 *
 * The client is the attacker: it sends heads that try to smuggle a second
 * target (folded lines, bare LF, user info, https without CONNECT), SOCKS
 * names with a NUL, and ClientHellos that hide or split their server name.
 * Each must be refused or read for what it is.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "net/wire.h"

static int parse(const char *s, struct at_wire_http *req)
{
	return at_wire_http_parse(s, strlen(s), req);
}

static void test_wire__connect_and_absolute_uris_are_read(void **state)
{
	struct at_wire_http req;

	(void)state;
	assert_int_equal(parse("CONNECT a.example.com:443 HTTP/1.1\r\nHost: x\r\n\r\nEXTRA", &req),
			 AT_WIRE_OK);
	assert_true(req.connect);
	assert_string_equal(req.host, "a.example.com");
	assert_int_equal(req.port, 443);
	assert_int_equal(req.head_len, strlen("CONNECT a.example.com:443 HTTP/1.1\r\nHost: x\r\n\r\n"));
	assert_int_equal(parse("CONNECT [2001:db8::1]:22 HTTP/1.0\r\n\r\n", &req), AT_WIRE_OK);
	assert_string_equal(req.host, "[2001:db8::1]");
	assert_int_equal(req.port, 22);
	assert_int_equal(parse("GET http://b.example.com/x?y HTTP/1.1\r\nA: b\r\n\r\n", &req),
			 AT_WIRE_OK);
	assert_false(req.connect);
	assert_string_equal(req.host, "b.example.com");
	assert_int_equal(req.port, 80);
	assert_int_equal(parse("POST HTTP://b.example.com:8080 HTTP/1.1\r\n\r\n", &req), AT_WIRE_OK);
	assert_int_equal(req.port, 8080);
	assert_int_equal(parse("GET http://b.example.com/", &req), AT_WIRE_MORE);
}

static void test_wire__smuggling_heads_are_refused(void **state)
{
	static const char *const bad[] = {
		"CONNECT a.example.com HTTP/1.1\r\n\r\n",              /* no port */
		"CONNECT a.example.com:0 HTTP/1.1\r\n\r\n",
		"CONNECT :5 HTTP/1.0\r\n\r\n",                        /* no host (found by fuzz_wire) */
		"GET http://:8080/ HTTP/1.1\r\n\r\n",
		"GET https://a.example.com/ HTTP/1.1\r\n\r\n",
		"GET ftp://a.example.com/ HTTP/1.1\r\n\r\n",
		"GET /relative HTTP/1.1\r\nHost: a.example.com\r\n\r\n",
		"GET http://user@evil.com@a.example.com/ HTTP/1.1\r\n\r\n",
		"GET http://a.example.com/ HTTP/1.1\r\nA: b\r\n folded\r\n\r\n",
		"GET http://a.example.com/ HTTP/1.1\r\nA: b\nB: c\r\n\r\n",
		"GET http://a.example.com/ HTTP/1.1\r\nno colon\r\n\r\n",
		"GET  http://a.example.com/ HTTP/1.1\r\n\r\n",
		"GET http://a.example.com/ HTTP/2\r\n\r\n",
		"G(T http://a.example.com/ HTTP/1.1\r\n\r\n",
		"GET http:// HTTP/1.1\r\n\r\n",
		"GET http://a.example.com:99999/ HTTP/1.1\r\n\r\n",
	};
	struct at_wire_http req;
	char big[AT_WIRE_HEAD_MAX + 10];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (parse(bad[i], &req) != AT_WIRE_BAD)
			fail_msg("accepted: %s", bad[i]);
	memset(big, 'a', sizeof(big));
	assert_int_equal(at_wire_http_parse(big, sizeof(big), &req), AT_WIRE_BAD);
}

/*
 * What: a plain-HTTP head that frames its body so that the proxy and a
 * server could disagree where it ends, or that switches protocols, so that
 * bytes the proxy takes for a body reach the server as a second request.
 * Must: refused, each.
 */
static void test_wire__ambiguous_framing_is_refused(void **state)
{
	static const char *const bad[] = {
		"Content-Length: 5\r\nTransfer-Encoding: chunked",
		"Transfer-Encoding: chunked\r\nContent-Length: 5",
		"Content-Length: 5\r\nContent-Length: 5",
		"Content-Length: 5\r\ncontent-length: 6",
		"Content-Length: 5, 5", "Content-Length: +5", "Content-Length: -1",
		"Content-Length: 0x5", "Content-Length:", "Content-Length: 1234567890123456789",
		"Transfer-Encoding: gzip, chunked", "Transfer-Encoding: chunked, chunked",
		"Transfer-Encoding: identity", "Transfer-Encoding: chunked;q=1",
		"Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked",
		"Transfer-Encoding:\x0b" "chunked", "Transfer-Encoding:\r\n chunked",
		"X: a\rTransfer-Encoding: chunked", "X: a\x7f", "X: a\x01",
		"Upgrade: websocket", "upgrade: h2c", "HTTP2-Settings: AAMAAABkAAQAAP__",
	};
	char head[256];
	struct at_wire_http req;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(head, sizeof(head), "POST http://a.example.com/ HTTP/1.1\r\n%s\r\n\r\n",
			 bad[i]);
		if (parse(head, &req) != AT_WIRE_BAD)
			fail_msg("accepted: %s", bad[i]);
	}
	/* a NUL, which strlen would not see */
	static const char nul[] = "GET http://a.example.com/ HTTP/1.1\r\nX: a\0b\r\n\r\n";
	assert_int_equal(at_wire_http_parse(nul, sizeof(nul) - 1, &req), AT_WIRE_BAD);
	assert_int_equal(parse("POST http://a.example.com/ HTTP/1.0\r\nTransfer-Encoding: chunked"
			       "\r\n\r\n", &req), AT_WIRE_BAD);
	assert_int_equal(parse("GET http://a.example.com/ HTTP/1.2\r\n\r\n", &req), AT_WIRE_BAD);
}

/* Feed a whole body in pieces of `step` bytes: the result, and where it ended. */
static int feed(struct at_wire_body *b, const char *s, size_t step, size_t *end)
{
	size_t n = strlen(s), off = 0, used;
	int rc = AT_WIRE_MORE;

	while (off < n && rc == AT_WIRE_MORE) {
		size_t k = n - off < step ? n - off : step;
		rc = at_wire_body_feed(b, s + off, k, &used);
		off += used;
	}
	*end = off;
	return rc;
}

/*
 * What: bytes after a declared body (the next request, pipelined or
 * smuggled), and chunked framing bent to hide where the body ends.
 * Must: the body ends exactly where its framing says, however the bytes
 * come in; broken framing is refused.
 */
static void test_wire__a_body_ends_where_its_framing_says(void **state)
{
	static const char *const bad_chunks[] = {
		"0x5\r\nhello\r\n0\r\n\r\n", "5 ;x\r\nhello\r\n0\r\n\r\n", "-5\r\n",
		"5\r\nhelloXX", "5\nhello\r\n", "5\r\nhello\n0\r\n\r\n", ";x\r\n",
		"5;a\x01\r\n", "0\r\n folded: t\r\n\r\n", "0\r\nX: a\rb\r\n\r\n",
		"0\r\n\rX", "0\r\n: v\r\n\r\n", "11111111111111111\r\n",
	};
	const char *chunked = "5;ext=\"1\"\r\nhello\r\nA\r\n0123456789\r\n0\r\nX-T: 1\r\n\r\n";
	struct at_wire_http req;
	struct at_wire_body b;
	size_t end, step;

	(void)state;
	assert_int_equal(parse("POST http://a.example.com/ HTTP/1.1\r\nContent-Length: 5\r\n\r\n",
			       &req), AT_WIRE_OK);
	assert_int_equal(req.body.kind, AT_WIRE_BODY_LENGTH);
	for (step = 1; step < 12; step++) {
		b = req.body;
		assert_int_equal(feed(&b, "helloGET /two HTTP/1.1\r\n\r\n", step, &end), AT_WIRE_OK);
		assert_int_equal(end, 5);
	}
	assert_int_equal(parse("GET http://a.example.com/ HTTP/1.1\r\n\r\n", &req), AT_WIRE_OK);
	assert_true(req.body.done);
	assert_int_equal(at_wire_body_feed(&req.body, "GET /two", 8, &end), AT_WIRE_OK);
	assert_int_equal(end, 0);
	assert_int_equal(parse("POST http://a.example.com/ HTTP/1.1\r\nContent-Length: 0\r\n\r\n",
			       &req), AT_WIRE_OK);
	assert_true(req.body.done);

	assert_int_equal(parse("POST http://a.example.com/ HTTP/1.1\r\nTransfer-Encoding:  Chunked "
			       "\r\n\r\n", &req), AT_WIRE_OK);
	assert_int_equal(req.body.kind, AT_WIRE_BODY_CHUNKED);
	for (step = 1; step < 64; step++) {
		char both[256];
		snprintf(both, sizeof(both), "%sGET /two HTTP/1.1\r\n\r\n", chunked);
		b = req.body;
		assert_int_equal(feed(&b, both, step, &end), AT_WIRE_OK);
		assert_int_equal(end, strlen(chunked));
	}
	for (size_t i = 0; i < sizeof(bad_chunks) / sizeof(bad_chunks[0]); i++) {
		b = req.body;
		if (feed(&b, bad_chunks[i], 1, &end) != AT_WIRE_BAD)
			fail_msg("accepted: %s", bad_chunks[i]);
	}
}

static void test_wire__rewrite_sends_the_uris_host_and_no_proxy_headers(void **state)
{
	const char *in = "GET http://b.example.com:8080/p?q=1 HTTP/1.1\r\nHost: evil.com\r\n"
			 "Proxy-Authorization: x\r\nproxy-connection: keep-alive\r\nAccept: */*\r\n"
			 "Connection: keep-alive\r\nKeep-Alive: 5\r\n\r\n";
	struct at_wire_http req;
	char out[1024];
	size_t n;

	(void)state;
	assert_int_equal(parse(in, &req), AT_WIRE_OK);
	n = at_wire_http_rewrite(in, &req, out, sizeof(out));
	assert_true(n > 0);
	out[n] = '\0';
	assert_string_equal(out, "GET /p?q=1 HTTP/1.1\r\nHost: b.example.com:8080\r\n"
				 "Accept: */*\r\nConnection: close\r\n\r\n");
	in = "GET http://b.example.com HTTP/1.0\r\n\r\n";
	assert_int_equal(parse(in, &req), AT_WIRE_OK);
	n = at_wire_http_rewrite(in, &req, out, sizeof(out));
	out[n] = '\0';
	assert_string_equal(out, "GET / HTTP/1.0\r\nHost: b.example.com\r\nConnection: close\r\n\r\n");
	assert_int_equal(at_wire_http_rewrite(in, &req, out, 10), 0);
}

static void test_wire__socks5(void **state)
{
	static const uint8_t greet[] = { 5, 2, 2, 0 };
	static const uint8_t greet_auth[] = { 5, 1, 2 };
	static const uint8_t by_name[] = { 5, 1, 0, 3, 7, 'a', '.', 'b', '.', 'c', 'o', 'm', 1, 187 };
	static const uint8_t by_v4[] = { 5, 1, 0, 1, 198, 18, 0, 2, 0, 80 };
	static const uint8_t by_v6[] = { 5, 1, 0, 4, 0x20, 1, 0xd, 0xb8, 0, 0, 0, 0,
					 0, 0, 0, 0, 0, 0, 0, 1, 0, 22 };
	static const uint8_t nul_name[] = { 5, 1, 0, 3, 3, 'a', 0, 'b', 0, 80 };
	struct at_wire_socks req;
	size_t len;
	bool noauth;

	(void)state;
	assert_int_equal(at_wire_socks_greeting(greet, 4, &len, &noauth), AT_WIRE_OK);
	assert_true(noauth);
	assert_int_equal(len, 4);
	assert_int_equal(at_wire_socks_greeting(greet, 3, &len, &noauth), AT_WIRE_MORE);
	assert_int_equal(at_wire_socks_greeting(greet_auth, 3, &len, &noauth), AT_WIRE_OK);
	assert_false(noauth);
	assert_int_equal(at_wire_socks_request(by_name, sizeof(by_name), &req), AT_WIRE_OK);
	assert_string_equal(req.host, "a.b.com");
	assert_int_equal(req.port, 443);
	assert_int_equal(req.len, sizeof(by_name));
	assert_int_equal(at_wire_socks_request(by_name, sizeof(by_name) - 1, &req), AT_WIRE_MORE);
	assert_int_equal(at_wire_socks_request(by_v4, sizeof(by_v4), &req), AT_WIRE_OK);
	assert_string_equal(req.host, "198.18.0.2");
	assert_int_equal(at_wire_socks_request(by_v6, sizeof(by_v6), &req), AT_WIRE_OK);
	assert_string_equal(req.host, "[2001:db8::1]");
	assert_int_equal(at_wire_socks_request(nul_name, sizeof(nul_name), &req), AT_WIRE_BAD);
}

/* A ClientHello record with the given server name ("" for no extension). */
static size_t hello(uint8_t *b, const char *sni, bool split)
{
	size_t nlen = strlen(sni), p = 0, hs, rec;

	b[p++] = 0x16; b[p++] = 3; b[p++] = 1; p += 2;      /* record header, length later */
	rec = p;
	b[p++] = 1; p += 3;                                  /* ClientHello, length later */
	hs = p;
	b[p++] = 3; b[p++] = 3;
	memset(b + p, 0x11, 32); p += 32;                    /* random */
	b[p++] = 0;                                          /* session id */
	b[p++] = 0; b[p++] = 2; b[p++] = 0x13; b[p++] = 1;   /* one cipher suite */
	b[p++] = 1; b[p++] = 0;                              /* null compression */
	size_t ext_len_at = p;
	p += 2;
	b[p++] = 0; b[p++] = 0x17; b[p++] = 0; b[p++] = 0;  /* extended_master_secret */
	if (nlen) {
		b[p++] = 0; b[p++] = 0;                      /* server_name */
		b[p++] = 0; b[p++] = (uint8_t)(nlen + 5);
		b[p++] = 0; b[p++] = (uint8_t)(nlen + 3);
		b[p++] = 0; b[p++] = 0; b[p++] = (uint8_t)nlen;
		memcpy(b + p, sni, nlen); p += nlen;
	}
	b[ext_len_at] = (uint8_t)((p - ext_len_at - 2) >> 8);
	b[ext_len_at + 1] = (uint8_t)(p - ext_len_at - 2);
	b[hs - 3] = 0; b[hs - 2] = (uint8_t)((p - hs) >> 8); b[hs - 1] = (uint8_t)(p - hs);
	size_t rlen = split ? (p - rec) / 2 : p - rec;      /* split: the record ends mid-hello */
	b[rec - 2] = (uint8_t)(rlen >> 8); b[rec - 1] = (uint8_t)rlen;
	return split ? rec + rlen : p;
}

static void test_wire__tls_server_name_is_read_or_refused(void **state)
{
	uint8_t b[600];
	char name[AT_NET_HOST_MAX + 1];
	bool is_tls;
	size_t n;

	(void)state;
	n = hello(b, "registry.example.org", false);
	assert_int_equal(at_wire_tls_sni(b, n, &is_tls, name), AT_WIRE_OK);
	assert_true(is_tls);
	assert_string_equal(name, "registry.example.org");
	for (size_t k = 0; k < n; k++)
		assert_int_equal(at_wire_tls_sni(b, k, &is_tls, name), AT_WIRE_MORE);
	n = hello(b, "", false);
	assert_int_equal(at_wire_tls_sni(b, n, &is_tls, name), AT_WIRE_OK);
	assert_string_equal(name, "");
	n = hello(b, "registry.example.org", true);
	assert_int_equal(at_wire_tls_sni(b, n, &is_tls, name), AT_WIRE_BAD);
	assert_int_equal(at_wire_tls_sni((const uint8_t *)"SSH-2.0-x\r\n", 11, &is_tls, name),
			 AT_WIRE_OK);
	assert_false(is_tls);
	n = hello(b, "a.example.org", false);
	b[5] = 2;  /* a ServerHello where a ClientHello belongs */
	assert_int_equal(at_wire_tls_sni(b, n, &is_tls, name), AT_WIRE_BAD);
	n = hello(b, "a.example.org", false);
	b[n - 14] = 0x7f;  /* the name's length runs past its extension */
	assert_int_equal(at_wire_tls_sni(b, n, &is_tls, name), AT_WIRE_BAD);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wire__connect_and_absolute_uris_are_read),
		cmocka_unit_test(test_wire__smuggling_heads_are_refused),
		cmocka_unit_test(test_wire__ambiguous_framing_is_refused),
		cmocka_unit_test(test_wire__a_body_ends_where_its_framing_says),
		cmocka_unit_test(test_wire__rewrite_sends_the_uris_host_and_no_proxy_headers),
		cmocka_unit_test(test_wire__socks5),
		cmocka_unit_test(test_wire__tls_server_name_is_read_or_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
