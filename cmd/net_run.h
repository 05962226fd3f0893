/*
 * net_run.h - the network allowlist of one sandboxed run: `run --allow-host`,
 * `--forward` and `--deny-private`, and a policy check's allow_hosts.
 *
 * The command keeps its own network namespace (loopback only). The sandbox
 * makes listening sockets there before the command starts (opts.listen):
 * 127.0.0.1:AT_NET_RUN_PROXY_PORT for the proxy, and 127.0.0.1:INNER and
 * [::1]:INNER for each forward. It hands them to this module's callback,
 * which starts the proxy (net/proxy) on them, outside the sandbox; the caller
 * stops it (at_net_run_stop) when at_sandbox_run returns, which leaves no
 * thread, socket or descriptor of it behind. The command is pointed at the
 * proxy through its environment (at_net_run_env).
 *
 * Until the redesign's app/ layer exists this lives in cmd/, used by
 * cmd_run.c and by the review gate's checks (review.c): one place starts
 * and stops the proxy for both.
 *
 * Connections are recorded (the first AT_NET_RUN_RECORDS_MAX, then counted)
 * for --verbose and the audit log. The record callback runs on the proxy's
 * thread; the list is read once the proxy has stopped.
 */
#ifndef AT_CMD_NET_RUN_H
#define AT_CMD_NET_RUN_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/json.h"
#include "net/proxy.h"
#include "net/rules.h"
#include "sandbox/sandbox.h"

#define AT_NET_RUN_PROXY_PORT 3128
#define AT_NET_RUN_FORWARDS_MAX 15
#define AT_NET_RUN_RECORDS_MAX 4096

struct at_net_run_forward {
	uint16_t host_port;       /* the host's 127.0.0.1:host_port */
	uint16_t inner_port;      /* the sandbox's loopback port */
	char text[16];            /* as given, for the records */
};

struct at_net_run_conn {
	enum at_net_proto proto;
	char host[AT_NET_HOST_MAX + 1];
	uint16_t port;
	char addr[48];
	bool allowed;
	char rule[AT_NET_HOST_MAX + 16];
	char reason[256];
	uint64_t bytes_up, bytes_down;
	int64_t start_ms, duration_ms;
};

struct at_net_run {
	struct at_net_rules rules;
	struct at_net_run_forward forwards[AT_NET_RUN_FORWARDS_MAX];
	size_t nforwards;
	bool deny_private;

	/* during a run */
	struct at_sandbox_listen listen[1 + 2 * AT_NET_RUN_FORWARDS_MAX];
	size_t nlisten;
	struct at_net_proxy *proxy;
	int64_t start_us, stop_us;  /* the proxy's start and stop, for --verbose */

	pthread_mutex_t lock;     /* the records, written by the proxy's thread */
	struct at_net_run_conn *conns;
	size_t nconns;
	uint64_t dropped;
};

void at_net_run_init(struct at_net_run *n);
void at_net_run_release(struct at_net_run *n);

/* --allow-host PATTERN: AT_EUSAGE naming a malformed pattern. */
int at_net_run_allow(struct at_net_run *n, const char *pattern, struct at_error *err);

/* --forward PORT[:INNER]: AT_EUSAGE naming a malformed or repeated one. */
int at_net_run_forward(struct at_net_run *n, const char *spec, struct at_error *err);

/* Any allowance or forward: the run needs the proxy. */
bool at_net_run_active(const struct at_net_run *n);

/*
 * Point o at this run's listening sockets and the callback that serves them
 * (nothing when not active). n must stay where it is until at_net_run_stop.
 */
void at_net_run_prepare(struct at_net_run *n, struct at_sandbox_opts *o);

/* The K=V strings that send the command's tools to the proxy (NULL-terminated, static). */
char *const *at_net_run_env(void);

/* Stop the proxy, if it started: every connection ended and recorded. */
void at_net_run_stop(struct at_net_run *n);

/* The allowances and the recorded connections, for the audit log; NULL when not active. */
at_json *at_net_run_json(const struct at_net_run *n);

/* --verbose: one line per connection. Hosts are canonical names or literals. */
void at_net_run_print(const struct at_net_run *n, FILE *f);

#endif
