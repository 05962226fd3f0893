/*
 * fuzz_http1.c - what the proxy reads from the sandbox on a terminated
 * connection (net/http1.c): a request head judged and rewritten, and where
 * a request's body ends.
 *
 * The first byte picks the host the connection is for (one a secret is
 * bound to, one with path rules and a secret sent as basic auth, one with
 * method rules); the rest is the sandbox's bytes. Besides crashes: a head
 * that is forwarded is itself a whole, valid head; a secret's value is put
 * in once, for the one credential judged, and only for a secret bound to
 * the host, and nowhere else; a request the judge refuses carries no head; and a body is
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

/* How many times s (len bytes) occurs in buf (n bytes), not overlapping. */
static size_t count_of(const char *buf, size_t n, const char *s, size_t len)
{
	size_t c = 0;

	for (const char *at = buf; (at = memmem(at, (size_t)(buf + n - at), s, len)); at += len)
		c++;
	return c;
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
		const struct at_net_secret *sec = &term.secrets[i];
		size_t had = count_of(buf, head_len, sec->value, sec->len);
		size_t has = count_of(req.head, req.head_len, sec->value, sec->len);

		/* the value goes in once, where the one judged credential stands (as itself,
		 * or inside Basic's base64), and nowhere else; a dropped header (Expect,
		 * Accept-Encoding) may take away what the sandbox itself wrote */
		if ((int)i == req.secret)
			AT_FUZZ_CHECK((h->secrets & (1u << i)) && has <= had + 1 &&
				      (has >= 1 || strcasestr(req.head, "basic ")));
		else
			AT_FUZZ_CHECK(has <= had);
	}
	at_http1_req_release(&req);
	body(buf, n, head_len);
	return 0;
}
