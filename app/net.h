/*
 * net.h - the network allowlist of one sandboxed run (app/net.c), for every
 * front end: a caller makes one (at_app_net_new), fills it
 * (at_app_net_allow, at_app_net_forward, at_app_net_deny_private), hands it
 * to at_app_run (run.h), and reads its report afterwards. The gate builds
 * its own from a check's allow_hosts.
 *
 * `run --allow-host`, `--forward`, `--allow-private`, `--deny-private`, and a policy check's
 * allow_hosts. The command keeps its own network namespace (loopback only).
 * The sandbox makes listening sockets there before the command starts
 * (spec.listen): 127.0.0.1:AT_APP_NET_PROXY_PORT for the proxy, and
 * 127.0.0.1:INNER and [::1]:INNER for each forward. It hands them to this
 * module's callback, which starts the proxy (net/proxy) on them, outside
 * the sandbox; at_app_sandbox_run stops it (at_app_net_stop) when
 * at_sandbox_run returns, which leaves no thread, socket or descriptor of
 * it behind: one place starts and stops it, for `run` and the gate's
 * checks alike. The command is pointed at the proxy through its environment
 * (at_app_net_env).
 *
 * Connections are recorded (the first AT_APP_NET_RECORDS_MAX, then counted)
 * for --verbose and the audit log. The record callback runs on the proxy's
 * thread; the list is read once the proxy has stopped.
 *
 * Not thread-safe: one run at a time per struct; it must stay where it is
 * from at_app_run until it returns.
 */
#ifndef AT_APP_NET_H
#define AT_APP_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/json.h"

#define AT_APP_NET_PROXY_PORT 3128
#define AT_APP_NET_RECORDS_MAX 4096
#define AT_APP_NET_FORWARDS_MAX 15

/* One connection the proxy saw, as recorded. */
struct at_app_net_conn {
	char proto[16];           /* "http", "connect", "socks5", "forward" */
	char host[256];           /* as asked for (a name or an address); "" unknown */
	uint16_t port;
	char addr[48];            /* the address connected to, or "" */
	bool allowed;
	char rule[272];           /* the allowance that let it through, or "" */
	char reason[256];         /* why it was refused or failed, or "" */
	uint64_t bytes_up, bytes_down;
	int64_t start_ms, duration_ms;
};

/* One request on a terminated connection (secrets, request rules), as recorded. */
struct at_app_net_request {
	char host[256];
	char method[24];
	char path[520];           /* without the query */
	int status;               /* the upstream's, or the proxy's 400/403/502; 0 none */
	char refused[320];        /* why the proxy refused or failed it, or "" */
	char secret[72];          /* the secret put in, or "" */
	char stray[72];           /* a secret whose placeholder went unchanged, or "" */
	uint64_t bytes_up, bytes_down;
	int64_t start_ms, duration_ms;
};

/* What the last run's proxy did; valid until the next run or at_app_net_free. */
struct at_app_net_report {
	bool active;              /* there was a proxy (any allowance or forward) */
	int64_t start_us, stop_us;
	const struct at_app_net_conn *conns;
	size_t nconns;
	const struct at_app_net_request *requests;
	size_t nrequests;
	uint64_t dropped;         /* connections past AT_APP_NET_RECORDS_MAX */
};

struct at_app_net;

int at_app_net_new(struct at_app_net **out, struct at_error *err);
void at_app_net_free(struct at_app_net *n);

/* --allow-host PATTERN: AT_EUSAGE naming a malformed pattern. */
int at_app_net_allow(struct at_app_net *n, const char *pattern, struct at_error *err);

/* --forward PORT[:INNER]: AT_EUSAGE naming a malformed or repeated one. */
int at_app_net_forward(struct at_app_net *n, const char *spec, struct at_error *err);

/*
 * Private addresses (RFC 1918, 100.64.0.0/10, fc00::/7, fec0::/10: net/addr.h)
 * are refused by default, whatever allowed the host: a name, an IP literal,
 * any source of allowances. Only the person lifts that, for one allowlist:
 * `run --allow-private`, `gate --allow-private`, or allow_private in their
 * own config.json; never a repository's file, a policy or an MCP argument.
 * --deny-private (any file's deny_private) refuses them even then.
 */
void at_app_net_deny_private(struct at_app_net *n);
void at_app_net_allow_private(struct at_app_net *n);

/* Does the proxy refuse private addresses (the default)? */
bool at_app_net_refuses_private(const struct at_app_net *n);

/* Any allowance or forward: the run needs the proxy. */
bool at_app_net_active(const struct at_app_net *n);

/* The allowances and the recorded connections, for the audit log; NULL when not active. */
at_json *at_app_net_json(const struct at_app_net *n);

void at_app_net_report(const struct at_app_net *n, struct at_app_net_report *out);

/*
 * The requests on terminated connections (hosts with secrets or request
 * rules), each {method, host, path, status, secret, bytes_up, bytes_down,
 * duration_ms} and, when so, refused and placeholder_unchanged; NULL when
 * the run terminated no host. Never a value.
 */
at_json *at_app_net_requests_json(const struct at_app_net *n);

#endif
