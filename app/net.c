/*
 * net.c - the network allowlist of one sandboxed run: `run --allow-host`,
 * `--forward` and `--deny-private`, and a policy check's allow_hosts
 * (app/internal.h has how it fits the sandbox; layout.c starts and stops
 * it, for `run` and the gate's checks alike).
 */
#include "app/internal.h"
#include "core/array.h"
#include "core/parse.h"
#include "core/util.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PROXY_URL "http://127.0.0.1:3128"
#define NO_PROXY_LIST "localhost,127.0.0.1,::1"

/*
 * What each tool reads (checked against their documentation):
 *   curl, wget, git (libcurl), pip and Python (requests, urllib), Go, Ruby,
 *   Deno, Bun: http_proxy/https_proxy/no_proxy, most also the upper-case
 *   forms (curl reads HTTP_PROXY only in lower case, for httpoxy's sake);
 *   ALL_PROXY is the fallback of curl and git for other schemes: SOCKS5 with
 *   names resolved by the proxy (socks5h), so any TCP goes through it;
 *   npm: its own proxy, https-proxy and noproxy settings, given as
 *   npm_config_* (it reads the environment's HTTPS_PROXY only on some paths);
 *   cargo: CARGO_HTTP_PROXY (http.proxy);
 *   Node's built-in fetch and http: only with NODE_USE_ENV_PROXY=1 (Node 24,
 *   22.21 and later); older Node ignores it, and the proxy stays the only way
 *   out.
 * Java and Maven read none of these (system properties); they are not set.
 */
static char *const env_vars[] = {
	"HTTP_PROXY=" PROXY_URL,
	"HTTPS_PROXY=" PROXY_URL,
	"ALL_PROXY=socks5h://127.0.0.1:3128",
	"http_proxy=" PROXY_URL,
	"https_proxy=" PROXY_URL,
	"all_proxy=socks5h://127.0.0.1:3128",
	"NO_PROXY=" NO_PROXY_LIST,
	"no_proxy=" NO_PROXY_LIST,
	"npm_config_proxy=" PROXY_URL,
	"npm_config_https_proxy=" PROXY_URL,
	"npm_config_noproxy=" NO_PROXY_LIST,
	"CARGO_HTTP_PROXY=" PROXY_URL,
	"NODE_USE_ENV_PROXY=1",
	NULL,
};

_Static_assert(AT_APP_NET_PROXY_PORT == 3128, "PROXY_URL names the proxy's port");
_Static_assert(sizeof(((struct at_app_net_conn *)0)->host) > AT_NET_HOST_MAX &&
	       sizeof(((struct at_app_net_conn *)0)->rule) >= AT_NET_HOST_MAX + 16,
	       "a record holds the longest host and pattern");

char *const *at_app_net_env(void)
{
	return env_vars;
}

void at_app_net_init(struct at_app_net *n)
{
	memset(n, 0, sizeof(*n));
	pthread_mutex_init(&n->lock, NULL);
}

void at_app_net_release(struct at_app_net *n)
{
	if (!n)
		return;
	at_app_net_stop(n);
	at_net_rules_release(&n->rules);
	free(n->conns);
	n->conns = NULL;
	n->capconns = 0;
	free(n->requests);
	n->requests = NULL;
	n->nrequests = n->caprequests = 0;
	pthread_mutex_destroy(&n->lock);
}

int at_app_net_new(struct at_app_net **out, struct at_error *err)
{
	struct at_app_net *n = malloc(sizeof(*n));

	if (!n)
		return at_error_set(err, AT_ESYS, "out of memory");
	at_app_net_init(n);
	*out = n;
	return 0;
}

void at_app_net_free(struct at_app_net *n)
{
	at_app_net_release(n);
	free(n);
}

void at_app_net_deny_private(struct at_app_net *n)
{
	n->deny_private = true;
}

void at_app_net_allow_private(struct at_app_net *n)
{
	n->allow_private = true;
}

bool at_app_net_refuses_private(const struct at_app_net *n)
{
	return n->deny_private || !n->allow_private;
}

void at_app_net_report(const struct at_app_net *n, struct at_app_net_report *out)
{
	out->active = at_app_net_active(n);
	out->start_us = n->start_us;
	out->stop_us = n->stop_us;
	out->conns = n->conns;
	out->nconns = n->nconns;
	out->requests = n->requests;
	out->nrequests = n->nrequests;
	out->dropped = n->dropped;
}

int at_app_net_allow(struct at_app_net *n, const char *pattern, struct at_error *err)
{
	return at_net_rules_add(&n->rules, pattern, err);
}

/* Why spec cannot be added as a forward (NULL: it can), with its ports. */
static const char *forward_problem(const struct at_app_net *n, const char *spec,
				   struct at_app_net_forward *f, char *buf, size_t size)
{
	if (!at_parse_forward(spec, &f->host_port, &f->inner_port))
		return "PORT[:INNER], ports from 1 to 65535";
	if (f->inner_port == AT_APP_NET_PROXY_PORT) {
		snprintf(buf, size, "the sandbox's port %d is the proxy's", AT_APP_NET_PROXY_PORT);
		return buf;
	}
	for (size_t i = 0; i < n->nforwards; i++)
		if (n->forwards[i].inner_port == f->inner_port) {
			snprintf(buf, size, "port %u is forwarded already", f->inner_port);
			return buf;
		}
	if (n->nforwards == AT_APP_NET_FORWARDS_MAX) {
		snprintf(buf, size, "at most %d forwards", AT_APP_NET_FORWARDS_MAX);
		return buf;
	}
	return NULL;
}

int at_app_net_forward_as(struct at_app_net *n, const char *spec, const char *as,
			  struct at_error *err)
{
	struct at_app_net_forward f = { 0 };
	char buf[64];
	const char *why = forward_problem(n, spec, &f, buf, sizeof(buf));
	size_t len = strlen(spec);

	if (why)
		return at_error_set(err, AT_EUSAGE, "invalid %s '%s': %s", as, spec, why);
	memcpy(f.text, spec, len < sizeof(f.text) ? len + 1 : sizeof(f.text) - 1);
	n->forwards[n->nforwards++] = f;
	return 0;
}

int at_app_net_forward(struct at_app_net *n, const char *spec, struct at_error *err)
{
	return at_app_net_forward_as(n, spec, "--forward", err);
}

bool at_app_net_has_forward(const struct at_app_net *n, const char *spec)
{
	uint16_t host, inner;

	if (!at_parse_forward(spec, &host, &inner))
		return false;
	for (size_t i = 0; i < n->nforwards; i++)
		if (n->forwards[i].host_port == host && n->forwards[i].inner_port == inner)
			return true;
	return false;
}

bool at_app_net_active(const struct at_app_net *n)
{
	return n->rules.n > 0 || n->nforwards > 0;
}

/* Room for one more record, up to AT_APP_NET_RECORDS_MAX; false: count it as dropped. */
static bool grow_records(struct at_app_net *n)
{
	return n->nconns < AT_APP_NET_RECORDS_MAX &&
	       AT_ARRAY_GROW(n->conns, n->capconns, n->nconns + 1) == 0;
}

static void on_record(const struct at_net_record *r, void *ctx)
{
	struct at_app_net *n = ctx;
	struct at_app_net_conn *c;

	pthread_mutex_lock(&n->lock);
	if (!grow_records(n)) {
		n->dropped++;
		pthread_mutex_unlock(&n->lock);
		return;
	}
	c = &n->conns[n->nconns++];
	snprintf(c->proto, sizeof(c->proto), "%s", at_net_proto_name(r->proto));
	snprintf(c->host, sizeof(c->host), "%s", r->host);
	c->port = r->port;
	snprintf(c->addr, sizeof(c->addr), "%s", r->addr);
	c->allowed = r->allowed;
	snprintf(c->rule, sizeof(c->rule), "%s", r->rule ? r->rule : "");
	snprintf(c->reason, sizeof(c->reason), "%s", r->reason ? r->reason : "");
	c->bytes_up = r->bytes_up;
	c->bytes_down = r->bytes_down;
	c->start_ms = r->start_ms;
	c->duration_ms = r->duration_ms;
	pthread_mutex_unlock(&n->lock);
}

static void on_request(const struct at_net_request *r, void *ctx)
{
	struct at_app_net *n = ctx;
	struct at_app_net_request *q;

	pthread_mutex_lock(&n->lock);
	if (n->nrequests >= AT_APP_NET_RECORDS_MAX ||
	    AT_ARRAY_GROW(n->requests, n->caprequests, n->nrequests + 1) < 0) {
		n->dropped++;
		pthread_mutex_unlock(&n->lock);
		return;
	}
	q = &n->requests[n->nrequests++];
	snprintf(q->host, sizeof(q->host), "%s", r->host);
	snprintf(q->method, sizeof(q->method), "%s", r->method);
	snprintf(q->path, sizeof(q->path), "%s", r->path);
	q->status = r->status;
	snprintf(q->refused, sizeof(q->refused), "%s", r->refused ? r->refused : "");
	snprintf(q->secret, sizeof(q->secret), "%s", r->secret ? r->secret : "");
	snprintf(q->stray, sizeof(q->stray), "%s", r->stray ? r->stray : "");
	q->bytes_up = r->bytes_up;
	q->bytes_down = r->bytes_down;
	q->start_ms = r->start_ms;
	q->duration_ms = r->duration_ms;
	pthread_mutex_unlock(&n->lock);
}

/* The sandbox's sockets, in the order at_app_net_prepare asked for them. */
static int serve(void *ctx, const int *fds, size_t nfds, struct at_error *err)
{
	struct at_app_net *n = ctx;
	struct at_net_listener ls[1 + 2 * AT_APP_NET_FORWARDS_MAX];
	struct at_net_proxy_opts po = AT_NET_PROXY_OPTS_INIT;
	size_t nl = 0;
	int64_t t0 = at_mono_us();
	int rc;

	for (size_t i = 0; i < nfds; i++) {
		if (fds[i] < 0)
			continue;
		ls[nl].fd = fds[i];
		ls[nl].kind = i == 0 ? AT_NET_LISTEN_PROXY : AT_NET_LISTEN_FORWARD;
		ls[nl].port = i == 0 ? 0 : n->forwards[(i - 1) / 2].host_port;
		nl++;
	}
	n->nconns = 0;  /* a front end may run the same allowlist again */
	n->nrequests = 0;
	n->dropped = 0;
	po.listeners = ls;
	po.nlisteners = nl;
	po.rules = &n->rules;
	po.deny_private = at_app_net_refuses_private(n);
	po.record = on_record;
	po.request = on_request;
	po.record_ctx = n;
	po.term = n->term;
	n->terminated = n->term != NULL;
	rc = at_net_proxy_start(&po, &n->proxy, err);
	n->start_us = at_mono_us() - t0;
	if (rc < 0)
		err->code = AT_ESANDBOX;  /* the sandbox's network could not be set up: 125 */
	return rc < 0 ? AT_ESANDBOX : 0;
}

void at_app_net_prepare(struct at_app_net *n, struct at_sandbox_spec *o)
{
	if (!at_app_net_active(n))
		return;
	n->nlisten = 0;
	n->listen[n->nlisten++] = (struct at_sandbox_listen){ AT_APP_NET_PROXY_PORT, false, false };
	for (size_t i = 0; i < n->nforwards; i++) {
		uint16_t p = n->forwards[i].inner_port;
		n->listen[n->nlisten++] = (struct at_sandbox_listen){ p, false, false };
		n->listen[n->nlisten++] = (struct at_sandbox_listen){ p, true, true };
	}
	o->listen = n->listen;
	o->nlisten = n->nlisten;
	o->on_listen = serve;
	o->listen_ctx = n;
}

void at_app_net_stop(struct at_app_net *n)
{
	int64_t t0;

	if (!n->proxy)
		return;
	t0 = at_mono_us();
	at_net_proxy_stop(n->proxy);
	n->proxy = NULL;
	n->stop_us = at_mono_us() - t0;
}

static at_json *conn_json(const struct at_app_net_conn *c)
{
	at_json *o = at_json_object();
	int bad = 0;

	bad |= at_json_add_string(o, "proto", c->proto);
	bad |= at_json_add_string(o, "host", c->host);
	bad |= at_json_add_number(o, "port", c->port);
	bad |= at_json_add_string(o, "address", c->addr);
	bad |= at_json_add_bool(o, "allowed", c->allowed);
	bad |= c->rule[0] ? at_json_add_string(o, "rule", c->rule) : at_json_add_null(o, "rule");
	if (c->reason[0])
		bad |= at_json_add_string(o, "reason", c->reason);
	bad |= at_json_add_number(o, "bytes_up", (double)c->bytes_up);
	bad |= at_json_add_number(o, "bytes_down", (double)c->bytes_down);
	bad |= at_json_add_number(o, "duration_ms", (double)c->duration_ms);
	if (bad) {
		at_json_free(o);
		return NULL;
	}
	return o;
}

static at_json *request_json(const struct at_app_net_request *q)
{
	at_json *o = at_json_object();
	int bad = 0;

	bad |= at_json_add_string(o, "method", q->method);
	bad |= at_json_add_string(o, "host", q->host);
	bad |= at_json_add_string(o, "path", q->path);
	bad |= q->status ? at_json_add_number(o, "status", q->status) : at_json_add_null(o, "status");
	bad |= q->secret[0] ? at_json_add_string(o, "secret", q->secret)
			    : at_json_add_null(o, "secret");
	if (q->refused[0])
		bad |= at_json_add_string(o, "refused", q->refused);
	if (q->stray[0])
		bad |= at_json_add_string(o, "placeholder_unchanged", q->stray);
	bad |= at_json_add_number(o, "bytes_up", (double)q->bytes_up);
	bad |= at_json_add_number(o, "bytes_down", (double)q->bytes_down);
	bad |= at_json_add_number(o, "duration_ms", (double)q->duration_ms);
	if (bad) {
		at_json_free(o);
		return NULL;
	}
	return o;
}

/* The requests on terminated connections, for run --json and the log; NULL when none. */
at_json *at_app_net_requests_json(const struct at_app_net *n)
{
	at_json *a;
	int bad = 0;

	if (!n || !n->terminated)
		return NULL;
	a = at_json_array();
	for (size_t i = 0; i < n->nrequests; i++)
		bad |= at_json_append(a, request_json(&n->requests[i]));
	if (bad) {
		at_json_free(a);
		return NULL;
	}
	return a;
}

at_json *at_app_net_json(const struct at_app_net *n)
{
	at_json *o, *allow, *fwd, *conns, *reqs;
	int bad = 0;

	if (!at_app_net_active(n))
		return NULL;
	o = at_json_object();
	allow = at_json_array();
	fwd = at_json_array();
	conns = at_json_array();
	for (size_t i = 0; i < n->rules.n; i++)
		bad |= at_json_append(allow, at_json_string(n->rules.v[i].text));
	for (size_t i = 0; i < n->nforwards; i++)
		bad |= at_json_append(fwd, at_json_string(n->forwards[i].text));
	for (size_t i = 0; i < n->nconns; i++)
		bad |= at_json_append(conns, conn_json(&n->conns[i]));
	bad |= at_json_add(o, "allow_hosts", allow);
	bad |= at_json_add(o, "forward", fwd);
	bad |= at_json_add_bool(o, "deny_private", at_app_net_refuses_private(n));
	bad |= at_json_add(o, "connections", conns);
	if ((reqs = at_app_net_requests_json(n)))
		bad |= at_json_add(o, "requests", reqs);
	if (n->dropped)
		bad |= at_json_add_number(o, "connections_not_recorded", (double)n->dropped);
	if (bad) {
		at_json_free(o);
		return NULL;
	}
	return o;
}
