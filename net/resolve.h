/*
 * resolve.h - name lookups for the proxy, off its event loop.
 *
 * getaddrinfo(3) blocks, so lookups run on a few worker threads (started on
 * demand, at most AT_RESOLVE_THREADS). A finished lookup is queued and the
 * owner's eventfd is written; the event loop collects it with
 * at_resolver_take(). Each address is judged by net/addr against the host's
 * interface addresses as they are at that moment; only addresses that may be
 * dialled are kept, so the caller can never dial one that was refused.
 *
 * at_resolver_stop() waits for the lookups under way (a lookup cannot be
 * interrupted safely; it ends within the resolver's own timeouts) and joins
 * every thread: nothing of the resolver outlives it.
 */
#ifndef AT_NET_RESOLVE_H
#define AT_NET_RESOLVE_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "net/addr.h"
#include "net/rules.h"

#define AT_RESOLVE_THREADS 4
#define AT_RESOLVE_ADDRS 8

struct at_resolve_job {
	/* in */
	void *owner;                   /* the caller's, handed back unchanged */
	char host[AT_NET_HOST_MAX + 1];  /* canonical: a name, or an IP literal */
	uint16_t port;
	bool deny_private;
	/* out */
	struct sockaddr_in6 addrs[AT_RESOLVE_ADDRS];  /* dialable, IPv4 as IPv4-mapped */
	int naddrs;
	enum at_net_class refused;     /* naddrs == 0: the class of the first refused address */
	char refused_addr[INET6_ADDRSTRLEN];
	int gai_error;                 /* naddrs == 0 and nothing refused: getaddrinfo's error */
	struct at_resolve_job *next;
};

struct at_resolver;

/* notify_fd: an eventfd written (1) whenever a job finishes. */
int at_resolver_new(int notify_fd, struct at_resolver **out, struct at_error *err);

/* Queue a job (owned by the resolver until taken back). */
int at_resolver_submit(struct at_resolver *r, struct at_resolve_job *job, struct at_error *err);

/* The finished jobs, as a list (next), or NULL. */
struct at_resolve_job *at_resolver_take(struct at_resolver *r);

/* Wait for lookups under way, join the threads, free queued jobs. NULL-safe. */
void at_resolver_stop(struct at_resolver *r);

/* Judge a literal (or a resolved list) as a worker does, without a thread. */
void at_resolve_run(struct at_resolve_job *job);

#endif
