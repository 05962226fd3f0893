/*
 * Unit tests for net/http1.c: a request on a terminated connection, judged.
 *
 * The client is the attacker. It holds a placeholder, never the secret, and
 * tries to have the value sent where it chooses (another Host, a second
 * request, a header the server reads first), to use the allowed host with a
 * key of its own, to smuggle a body past the judge, or to upgrade the
 * connection out of HTTP. Each must be refused, or forwarded for what it is.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/http1.h"

#define VALUE "sk-real-0123456789abcdef"
#define PH    "sk-fake-9876543210zyxwvu"
#define OTHER_VALUE "gh-real-aaaa"
#define OTHER_PH    "gh-fake-bbbb"

static struct at_net_term term;
static struct at_net_term_host hosts[3];

static int setup(void **state)
{
	(void)state;
	memset(&term, 0, sizeof(term));
	memset(hosts, 0, sizeof(hosts));
	snprintf(term.secrets[0].name, sizeof(term.secrets[0].name), "API_KEY");
	term.secrets[0].value = VALUE;
	term.secrets[0].len = strlen(VALUE);
	term.secrets[0].placeholder = strdup(PH);
	snprintf(term.secrets[1].name, sizeof(term.secrets[1].name), "GH_TOKEN");
	term.secrets[1].value = OTHER_VALUE;
	term.secrets[1].len = strlen(OTHER_VALUE);
	term.secrets[1].placeholder = strdup(OTHER_PH);
	term.secrets[1].where = AT_NET_CRED_BASIC;
	term.nsecrets = 2;
	snprintf(hosts[0].host, sizeof(hosts[0].host), "api.example.com");
	hosts[0].secrets = 1;
	snprintf(hosts[1].host, sizeof(hosts[1].host), "git.example.com");
	hosts[1].secrets = 2;
	at_strlist_push(&hosts[1].paths, "/me/repo.git/");
	hosts[1].rules = true;
	snprintf(hosts[2].host, sizeof(hosts[2].host), "registry.example.com");
	at_strlist_push(&hosts[2].methods, "GET");
	at_strlist_push(&hosts[2].methods, "HEAD");
	hosts[2].rules = true;
	term.hosts = hosts;
	term.nhosts = 3;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(term.secrets[0].placeholder);
	free(term.secrets[1].placeholder);
	at_strlist_release(&hosts[1].paths);
	at_strlist_release(&hosts[2].methods);
	return 0;
}

/* Judge s as a request on a connection to hosts[h]; the head found by at_http1_head_end. */
static int judge(int h, const char *s, struct at_http1_req *r)
{
	size_t len = 0;

	assert_int_equal(at_http1_head_end(s, strlen(s), &len), 1);
	assert_int_equal(at_http1_judge(&term, &hosts[h], hosts[h].host, 443, s, len, r), 0);
	return r->status;
}

static void test_http1__placeholder_becomes_the_value_for_the_bound_host(void **state)
{
	struct at_http1_req r;

	(void)state;
	assert_int_equal(judge(0, "POST /v1/messages HTTP/1.1\r\nHost: api.example.com\r\n"
			 "x-api-key: " PH "\r\nContent-Length: 2\r\n\r\n{}", &r), 0);
	assert_non_null(strstr(r.head, "x-api-key: " VALUE "\r\n"));
	assert_null(strstr(r.head, PH));
	assert_int_equal(r.secret, 0);
	assert_true(r.body);
	assert_string_equal(r.method, "POST");
	assert_string_equal(r.path, "/v1/messages");
	at_http1_req_release(&r);
	/* What: have the bound host compress its answer, so that an echoed value passes the
	 * proxy's scrub unseen. Must: Accept-Encoding is not sent to a bound host. */
	assert_int_equal(judge(0, "GET /v1/models?x=1 HTTP/1.1\r\nHost: API.example.com:443\r\n"
			 "Accept-Encoding: gzip, br\r\n"
			 "Authorization: Bearer " PH "\r\n\r\n", &r), 0);
	assert_null(strcasestr(r.head, "accept-encoding"));
	assert_non_null(strstr(r.head, "Authorization: Bearer " VALUE "\r\n"));
	assert_string_equal(r.path, "/v1/models");
	assert_false(r.body);
	at_http1_req_release(&r);
}

static void test_http1__another_key_to_the_bound_host_is_refused(void **state)
{
	struct at_http1_req r;

	(void)state;
	/* What: upload to the allowed API with the attacker's own key. Must: 403. */
	assert_int_equal(judge(0, "POST /v1/files HTTP/1.1\r\nHost: api.example.com\r\n"
			 "x-api-key: sk-attacker-key-000000000\r\n\r\n", &r), 403);
	assert_non_null(strstr(r.why, "not the placeholder"));
	/* What: the placeholder plus a second credential the server may read first. Must: 403. */
	assert_int_equal(judge(0, "POST /v1/files HTTP/1.1\r\nHost: api.example.com\r\n"
			 "x-api-key: " PH "\r\nAuthorization: Bearer sk-attacker\r\n\r\n", &r), 403);
	assert_non_null(strstr(r.why, "second credential"));
	assert_int_equal(judge(0, "GET / HTTP/1.1\r\nHost: api.example.com\r\n"
			 "x-api-key: " PH "\r\nx-api-key: " PH "\r\n\r\n", &r), 403);
	assert_int_equal(judge(0, "GET / HTTP/1.1\r\nHost: api.example.com\r\n"
			 "Cookie: session=attacker\r\n\r\n", &r), 403);
	/* the placeholder with more after it is not the placeholder */
	assert_int_equal(judge(0, "GET / HTTP/1.1\r\nHost: api.example.com\r\n"
			 "x-api-key: " PH "x\r\n\r\n", &r), 403);
	/* a request without any credential is no use of someone else's key */
	assert_int_equal(judge(0, "GET / HTTP/1.1\r\nHost: api.example.com\r\n\r\n", &r), 0);
	assert_int_equal(r.secret, -1);
	at_http1_req_release(&r);
}

static void test_http1__host_must_be_the_connection_s(void **state)
{
	struct at_http1_req r;

	(void)state;
	/* What: a request for another virtual host on the terminated connection. Must: 403. */
	assert_int_equal(judge(0, "GET / HTTP/1.1\r\nHost: evil.example.com\r\n"
			 "x-api-key: " PH "\r\n\r\n", &r), 403);
	assert_non_null(strstr(r.why, "'evil.example.com' is not 'api.example.com'"));
	assert_int_equal(judge(0, "GET / HTTP/1.1\r\nHost: api.example.com:8443\r\n\r\n", &r), 403);
	assert_int_equal(judge(0, "GET / HTTP/1.1\r\nHost: api.example.com\r\n"
			 "Host: evil.example.com\r\n\r\n", &r), 400);
	assert_int_equal(judge(0, "GET / HTTP/1.1\r\n\r\n", &r), 400);
	/* an absolute target could name another host than Host does */
	assert_int_equal(judge(0, "GET https://evil.example.com/ HTTP/1.1\r\n"
			 "Host: api.example.com\r\n\r\n", &r), 400);
}

static void test_http1__smuggling_and_upgrades_are_refused(void **state)
{
	struct at_http1_req r;

	(void)state;
	/* What: a body both servers read differently (CL.TE, TE.TE). Must: 400. */
	assert_int_equal(judge(0, "POST / HTTP/1.1\r\nHost: api.example.com\r\nContent-Length: 4"
			 "\r\nTransfer-Encoding: chunked\r\n\r\n", &r), 400);
	assert_int_equal(judge(0, "POST / HTTP/1.1\r\nHost: api.example.com\r\n"
			 "Transfer-Encoding: gzip, chunked\r\n\r\n", &r), 400);
	assert_int_equal(judge(0, "POST / HTTP/1.1\r\nHost: api.example.com\r\nContent-Length: 4"
			 "\r\nContent-Length: 5\r\n\r\n", &r), 400);
	/* What: leave HTTP for WebSocket or h2c, past the judge. Must: 400. */
	assert_int_equal(judge(0, "GET / HTTP/1.1\r\nHost: api.example.com\r\nUpgrade: websocket"
			 "\r\nConnection: Upgrade\r\n\r\n", &r), 400);
	assert_int_equal(judge(0, "GET / HTTP/1.1\r\nHost: api.example.com\r\nConnection: "
			 "Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAAP__"
			 "\r\n\r\n", &r), 400);
	assert_int_equal(judge(0, "CONNECT evil.example.com:443 HTTP/1.1\r\n"
			 "Host: api.example.com\r\n\r\n", &r), 400);
	assert_int_equal(judge(0, "GET / HTTP/2.0\r\nHost: api.example.com\r\n\r\n", &r), 400);
}

static void test_http1__head_end_refuses_control_bytes(void **state)
{
	size_t len;

	(void)state;
	assert_int_equal(at_http1_head_end("GET / HTTP/1.1\r\nHo", 18, &len), 0);
	assert_int_equal(at_http1_head_end("GET / HTTP/1.1\nHost: a\r\n\r\n", 26, &len), -1);
	assert_int_equal(at_http1_head_end("GET / HTTP/1.1\rHost: a\r\n\r\n", 26, &len), -1);
	assert_int_equal(at_http1_head_end("GET /\0 HTTP/1.1\r\n\r\n", 20, &len), -1);
	/* What: a folded header line, read as part of the one above by some, as its own by
	 * others (a Host hidden in a fold). Must: refused. */
	assert_int_equal(at_http1_head_end("GET / HTTP/1.1\r\nX: a\r\n Host: b\r\n\r\n", 34, &len),
			 -1);
	assert_int_equal(at_http1_head_end("GET / HTTP/1.1\r\n\r\nGET", 21, &len), 1);
	assert_int_equal(len, 18);
}

static void test_http1__request_rules(void **state)
{
	struct at_http1_req r;

	(void)state;
	/* What: publish to a registry allowed for installs. Must: 403 naming the rule. */
	assert_int_equal(judge(2, "PUT /pkg HTTP/1.1\r\nHost: registry.example.com\r\n"
			 "Content-Length: 0\r\n\r\n", &r), 403);
	assert_non_null(strstr(r.why, "PUT"));
	assert_non_null(strstr(r.why, "request rules"));
	assert_int_equal(judge(2, "GET /pkg HTTP/1.1\r\nHost: registry.example.com\r\n\r\n", &r), 0);
	at_http1_req_release(&r);
	/* What: push to a repository the person did not name. Must: 403. */
	assert_int_equal(judge(1, "POST /me/other.git/git-receive-pack HTTP/1.1\r\n"
			 "Host: git.example.com\r\n\r\n", &r), 403);
	assert_int_equal(judge(1, "POST /me/repo.git/../other.git/git-receive-pack HTTP/1.1\r\n"
			 "Host: git.example.com\r\n\r\n", &r), 403);
	assert_int_equal(judge(1, "POST /me/repo.git/%2e%2e/other.git/x HTTP/1.1\r\n"
			 "Host: git.example.com\r\n\r\n", &r), 403);
	assert_int_equal(judge(1, "GET /me/repo.git/info/refs?service=git-receive-pack HTTP/1.1"
			 "\r\nHost: git.example.com\r\n\r\n", &r), 0);
	at_http1_req_release(&r);
}

static void test_http1__basic_auth_password_is_put_in(void **state)
{
	struct at_http1_req r;
	/* base64("x-access-token:gh-fake-bbbb") and of the real one */
	const char *ph = "eC1hY2Nlc3MtdG9rZW46Z2gtZmFrZS1iYmJi";
	const char *real = "eC1hY2Nlc3MtdG9rZW46Z2gtcmVhbC1hYWFh";
	char req[512];

	(void)state;
	snprintf(req, sizeof(req), "GET /me/repo.git/info/refs HTTP/1.1\r\nHost: git.example.com"
		 "\r\nAuthorization: Basic %s\r\n\r\n", ph);
	assert_int_equal(judge(1, req, &r), 0);
	assert_non_null(strstr(r.head, real));
	assert_int_equal(r.secret, 1);
	at_http1_req_release(&r);
	/* the API key's placeholder is not where GH_TOKEN goes: a bearer is refused there */
	assert_int_equal(judge(1, "GET /me/repo.git/info/refs HTTP/1.1\r\nHost: git.example.com"
			 "\r\nAuthorization: Bearer " OTHER_PH "\r\n\r\n", &r), 403);
}

static void test_http1__header_name_with_a_space_is_refused(void **state)
{
	struct at_http1_req r;

	(void)state;
	/* What: "Authorization : Bearer KEY" (a space before the colon, which http_parser lets
	 * through) is no credential to the judge, but a server that trims the name reads the
	 * attacker's key; "Host : other" a second Host. Must: 400, nothing forwarded. */
	assert_int_equal(judge(0, "GET / HTTP/1.1\r\nHost: api.example.com\r\n"
			 "Authorization : Bearer sk-attacker\r\n\r\n", &r), 400);
	assert_non_null(strstr(r.why, "header name"));
	assert_int_equal(judge(0, "GET / HTTP/1.1\r\nHost: api.example.com\r\n"
			 "Host : other.example.com\r\n\r\n", &r), 400);
	assert_int_equal(judge(2, "GET / HTTP/1.1\r\nHost: registry.example.com\r\n"
			 "X-A b: 1\r\n\r\n", &r), 400);
}

static void test_http1__the_value_goes_only_where_the_credential_stands(void **state)
{
	/* base64("gh-fake-bbbb:gh-fake-bbbb") and of "gh-fake-bbbb:gh-real-aaaa" */
	const char *both = "Z2gtZmFrZS1iYmJiOmdoLWZha2UtYmJiYg==";
	const char *pass = "Z2gtZmFrZS1iYmJiOmdoLXJlYWwtYWFhYQ==";
	struct at_http1_req r;
	char req[512];

	(void)state;
	/* What: the placeholder beside the credential, in a header the host echoes transformed
	 * (base64, URL-encoded) where the response scrub cannot find it; twice in Authorization;
	 * as Basic's user name. Must: the value goes once, where the credential stands; every
	 * other placeholder as it is, recorded. */
	assert_int_equal(judge(0, "GET / HTTP/1.1\r\nHost: api.example.com\r\nx-api-key: " PH
			 "\r\nX-Note: " PH "\r\nUser-Agent: a" PH "\r\n\r\n", &r), 0);
	assert_non_null(strstr(r.head, "x-api-key: " VALUE "\r\n"));
	assert_non_null(strstr(r.head, "X-Note: " PH "\r\n"));
	assert_non_null(strstr(r.head, "User-Agent: a" PH "\r\n"));
	assert_int_equal(r.secret, 0);
	assert_int_equal(r.stray, 0);
	at_http1_req_release(&r);
	assert_int_equal(judge(0, "GET / HTTP/1.1\r\nHost: api.example.com\r\nAuthorization: "
			 PH " " PH "\r\n\r\n", &r), 0);
	assert_non_null(strstr(r.head, "Authorization: " PH " " VALUE "\r\n"));
	at_http1_req_release(&r);
	snprintf(req, sizeof(req), "GET /me/repo.git/info/refs HTTP/1.1\r\nHost: git.example.com"
		 "\r\nAuthorization: basic %s\r\n\r\n", both);
	assert_int_equal(judge(1, req, &r), 0);
	assert_non_null(strstr(r.head, pass));
	at_http1_req_release(&r);
}

static void test_http1__placeholder_to_an_unbound_host_goes_unchanged(void **state)
{
	struct at_http1_req r;

	(void)state;
	/* What: send API_KEY's placeholder to a host it is not bound to. Must: unchanged, noted. */
	assert_int_equal(judge(2, "GET /?k=" PH " HTTP/1.1\r\nHost: registry.example.com\r\n"
			 "Accept: x\r\nX-Leak: " PH "\r\n\r\n", &r), 0);
	assert_non_null(strstr(r.head, "X-Leak: " PH));
	assert_non_null(strstr(r.head, "Accept: x")); /* other headers, to an unbound host, as they are */
	assert_null(strstr(r.head, VALUE));
	assert_int_equal(r.stray, 0);
	assert_int_equal(r.secret, -1);
	at_http1_req_release(&r);
}

static void test_http1__message_ends_where_framing_says(void **state)
{
	struct at_http1_msg m;
	const char *head = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n";
	const char *body = "3\r\nabc\r\n0\r\n\r\nGET / HTTP/1.1\r\n";
	size_t used;

	(void)state;
	assert_int_equal(at_http1_msg_request(&m, head, strlen(head)), 0);
	assert_int_equal(at_http1_msg_feed(&m, body, strlen(body), &used), 1);
	assert_int_equal(used, strlen("3\r\nabc\r\n0\r\n\r\n"));
	head = "GET / HTTP/1.1\r\nHost: a\r\n\r\n";
	assert_int_equal(at_http1_msg_request(&m, head, strlen(head)), 1);
	at_http1_msg_response(&m, true);
	body = "HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nHTTP/1.1";
	assert_int_equal(at_http1_msg_feed(&m, body, strlen(body), &used), 1);
	assert_int_equal(used, strlen("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n"));
	at_http1_msg_response(&m, false);
	body = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhiX";
	assert_int_equal(at_http1_msg_feed(&m, body, strlen(body), &used), 1);
	assert_int_equal(used, strlen(body) - 1);
	assert_int_equal(m.status, 200);
	at_http1_msg_response(&m, false);
	body = "HTTP/1.1 200 OK\r\n\r\nuntil the end";
	assert_int_equal(at_http1_msg_feed(&m, body, strlen(body), &used), 0);
	assert_true(at_http1_msg_eof(&m));
}

static void test_http1__a_split_response_stops_at_its_head(void **state)
{
	const char *in = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: "
			 "chunked\r\n\r\n3;x=y\r\nabc\r\n2\r\nde\r\n0\r\nT: 1\r\n\r\nX";
	const char *h2 = strstr(in, "HTTP/1.1 200"), *body = strstr(in, "3;");
	struct at_http1_msg m;
	char sink[128];
	size_t used;

	(void)state;
	at_http1_msg_response(&m, false);
	m.split = true;
	assert_int_equal(at_http1_msg_feed(&m, in, strlen(in), &used), 0);
	assert_int_equal(used, (size_t)(h2 - in));      /* the 100's head, its last LF too */
	assert_true(m.head_end && !m.chunked);
	m.head_end = false;
	assert_int_equal(at_http1_msg_feed(&m, h2, strlen(h2), &used), 0);
	assert_int_equal(used, (size_t)(body - h2));
	assert_true(m.head_end && m.chunked);
	m.sink = sink;
	assert_int_equal(at_http1_msg_feed(&m, body, strlen(body), &used), 1);
	assert_int_equal(used, strlen(body) - 1);
	assert_int_equal(m.sink_len, 5);
	assert_memory_equal(sink, "abcde", 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_http1__placeholder_becomes_the_value_for_the_bound_host),
		cmocka_unit_test(test_http1__another_key_to_the_bound_host_is_refused),
		cmocka_unit_test(test_http1__host_must_be_the_connection_s),
		cmocka_unit_test(test_http1__smuggling_and_upgrades_are_refused),
		cmocka_unit_test(test_http1__head_end_refuses_control_bytes),
		cmocka_unit_test(test_http1__request_rules),
		cmocka_unit_test(test_http1__basic_auth_password_is_put_in),
		cmocka_unit_test(test_http1__header_name_with_a_space_is_refused),
		cmocka_unit_test(test_http1__the_value_goes_only_where_the_credential_stands),
		cmocka_unit_test(test_http1__placeholder_to_an_unbound_host_goes_unchanged),
		cmocka_unit_test(test_http1__message_ends_where_framing_says),
		cmocka_unit_test(test_http1__a_split_response_stops_at_its_head),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
