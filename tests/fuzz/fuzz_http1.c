/*
 * fuzz_http1.c - what the proxy reads from the sandbox on a terminated
 * connection (net/http1.c): a request head judged and rewritten, and where
 * a request's body ends.
 *
 * The first byte picks the host the connection is for (one a secret is
 * bound to, one with path rules and a secret sent as basic auth, one with
 * method rules); the rest is the sandbox's bytes. Besides crashes: a head
 * that is forwarded is itself a whole, valid head (one Host header, the
 * connection's); no header of it still holds the placeholder of a secret
 * bound to that host, and the value of a secret not bound to it never
 * appears; a request the judge refuses carries no head; and a body is
 * framed the same fed whole or byte by byte (else the proxy and the server
 * could disagree on where the next request starts).
 */
#include "tests/fuzz/fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "net/http1.h"

static struct at_net_term term;
static struct at_net_term_host hosts[3];

static void setup(void)
{
	static bool done;
	static char ph0[] = "sk-fake-9876543210zyxwvu", ph1[] = "gh-fake-bbbb";

	if (done)
		return;
	done = true;
	strcpy(term.secrets[0].name, "API_KEY");
	term.secrets[0].value = "sk-real-0123456789abcdef";
	term.secrets[0].len = strlen(ph0);
	term.secrets[0].placeholder = ph0;
	strcpy(term.secrets[1].name, "GH_TOKEN");
	term.secrets[1].value = "gh-real-aaaa";
	term.secrets[1].len = strlen(ph1);
	term.secrets[1].placeholder = ph1;
	term.secrets[1].where = AT_NET_CRED_BASIC;
	term.nsecrets = 2;
	strcpy(hosts[0].host, "api.example.com");
	hosts[0].secrets = 1;
	strcpy(hosts[1].host, "git.example.com");
	hosts[1].secrets = 2;
	at_strlist_push(&hosts[1].paths, "/me/repo.git/");
	strcpy(hosts[2].host, "registry.example.com");
	at_strlist_push(&hosts[2].methods, "GET");
	term.hosts = hosts;
	term.nhosts = 3;
}

/* No header value of head (the lines after the first, after their colon) holds s. */
static void values_free_of(const char *head, size_t n, const char *s, size_t len)
{
	const char *line = memchr(head, '\n', n), *end = head + n;

	while (line && ++line < end) {
		const char *eol = memchr(line, '\n', (size_t)(end - line));
		const char *colon = memchr(line, ':', (size_t)((eol ? eol : end) - line));
		if (colon)
			AT_FUZZ_CHECK(!memmem(colon, (size_t)((eol ? eol : end) - colon), s, len));
		line = eol;
	}
}

static void body(const char *buf, size_t n, size_t head_len)
{
	struct at_http1_msg whole, bytewise;
	size_t used = 0, u, total = 0;
	int rc, rc1 = 0;

	if (at_http1_msg_request(&whole, buf, head_len) != 0 ||
	    at_http1_msg_request(&bytewise, buf, head_len) != 0)
		return;
	rc = at_http1_msg_feed(&whole, buf + head_len, n - head_len, &used);
	for (size_t i = head_len; i < n && rc1 == 0; i++) {
		rc1 = at_http1_msg_feed(&bytewise, buf + i, 1, &u);
		total += u;
	}
	AT_FUZZ_CHECK(used <= n - head_len && total <= n - head_len);
	if (rc == 1 && rc1 == 1)
		AT_FUZZ_CHECK(used == total);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct at_net_term_host *h;
	struct at_http1_req req;
	const char *buf = (const char *)data + 1;
	size_t n, head_len = 0, again = 0;

	if (size < 1)
		return 0;
	setup();
	h = &hosts[data[0] % 3];
	n = size - 1;
	if (at_http1_head_end(buf, n, &head_len) != 1)
		return 0;
	AT_FUZZ_CHECK(head_len <= n && head_len <= AT_HTTP1_HEAD_MAX);
	if (at_http1_judge(&term, h, h->host, 443, buf, head_len, &req) < 0)
		return 0;
	if (req.status) {
		AT_FUZZ_CHECK(req.head == NULL && (req.status == 400 || req.status == 403));
		return 0;
	}
	AT_FUZZ_CHECK(req.head != NULL);
	AT_FUZZ_CHECK(at_http1_head_end(req.head, req.head_len, &again) == 1 &&
		      again == req.head_len);
	for (size_t i = 0; i < term.nsecrets; i++) {
		bool bound = h->secrets & (1u << i);
		if (bound)
			values_free_of(req.head, req.head_len, term.secrets[i].placeholder,
				       term.secrets[i].len);
		else if (!memmem(buf, head_len, term.secrets[i].value, term.secrets[i].len))
			AT_FUZZ_CHECK(!memmem(req.head, req.head_len, term.secrets[i].value,
					      term.secrets[i].len));
	}
	at_http1_req_release(&req);
	body(buf, n, head_len);
	return 0;
}
