/*
 * fuzz_wire.c - the proxy's parsers of what the sandbox sends (net/wire.c):
 * a plain-HTTP or CONNECT request head, the framing of a request's body,
 * SOCKS5 greetings and requests, and a TLS ClientHello's server name.
 *
 * The first byte picks the parser, the rest is the sandbox's bytes. Besides
 * crashes: a complete head or message lies within the bytes and was a valid
 * prefix one byte earlier; a body is framed the same fed whole or byte by
 * byte, and ends at the same place (else a proxy and a server could
 * disagree on where the next request starts: smuggling); a head the proxy
 * forwards is rewritten within its buffer, ending the upstream connection.
 */
#include "tests/fuzz/fuzz.h"

#include <string.h>

#include "net/wire.h"

static void http(const char *buf, size_t n)
{
	static char out[AT_WIRE_HEAD_MAX + 1024];
	struct at_wire_http req, again;
	size_t used = 0, used1 = 0, i, len;
	struct at_wire_body whole, bytewise;
	int rc, rc1 = AT_WIRE_MORE;

	if (at_wire_http_parse(buf, n, &req) != AT_WIRE_OK)
		return;
	AT_FUZZ_CHECK(req.head_len > 0 && req.head_len <= n);
	AT_FUZZ_CHECK(req.host[0] != '\0' && !memchr(req.host, '\r', strlen(req.host)));
	AT_FUZZ_CHECK(at_wire_http_parse(buf, req.head_len - 1, &again) == AT_WIRE_MORE);
	if (req.connect)
		return;
	len = at_wire_http_rewrite(buf, &req, out, sizeof(out));
	AT_FUZZ_CHECK(len < sizeof(out));
	if (len > 0)
		AT_FUZZ_CHECK(memmem(out, len, "Connection: close\r\n", 19) != NULL);
	/* The body after the head, fed whole and byte by byte. */
	whole = req.body;
	bytewise = req.body;
	rc = at_wire_body_feed(&whole, buf + req.head_len, n - req.head_len, &used);
	/* Byte by byte, then no byte at all (a body of none ends at once). */
	for (i = req.head_len; i <= n && rc1 == AT_WIRE_MORE; i++) {
		size_t u = 0, k = i < n ? 1 : 0;

		rc1 = at_wire_body_feed(&bytewise, buf + i, k, &u);
		used1 += rc1 == AT_WIRE_OK ? u : k;
	}
	if (rc == AT_WIRE_MORE) {   /* all of it was the body's; then no byte more */
		size_t u = 0;

		rc = at_wire_body_feed(&whole, buf + n, 0, &u);
		used = n - req.head_len + u;
	}
	if (rc != AT_WIRE_MORE || rc1 != AT_WIRE_MORE) {
		AT_FUZZ_CHECK(rc == rc1);
		if (rc == AT_WIRE_OK)
			AT_FUZZ_CHECK(used == used1 && used <= n - req.head_len);
	}
}

static void socks(const uint8_t *buf, size_t n)
{
	struct at_wire_socks req;
	size_t len;
	bool noauth;

	if (at_wire_socks_greeting(buf, n, &len, &noauth) == AT_WIRE_OK)
		AT_FUZZ_CHECK(len >= 2 && len <= n);
	if (at_wire_socks_request(buf, n, &req) == AT_WIRE_OK) {
		AT_FUZZ_CHECK(req.len <= n && req.host[0] != '\0');
		AT_FUZZ_CHECK(strlen(req.host) < sizeof(req.host));
	}
}

static void tls(const uint8_t *buf, size_t n)
{
	char name[AT_NET_HOST_MAX + 1];
	bool is_tls;

	if (at_wire_tls_sni(buf, n, &is_tls, name) == AT_WIRE_OK && is_tls)
		AT_FUZZ_CHECK(strlen(name) <= AT_NET_HOST_MAX);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	switch (data[0] % 3) {
	case 0:
		http((const char *)data + 1, size - 1);
		break;
	case 1:
		socks(data + 1, size - 1);
		break;
	default:
		tls(data + 1, size - 1);
		break;
	}
	return 0;
}
