/*
 * proxy.c - the proxy's lifecycle and event loop; the protocol is conn.c's.
 */
#include "net/conn.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"

#define DEFAULT_MAX_CONNS 1024
#define DEFAULT_CONNECT_TIMEOUT_MS 10000
#define FDS_PER_CONN 6
#define EVENTS 64
#define LOOP_STACK (256 << 10)

struct at_net_proxy {
	struct at_proxy p;
	pthread_t thread;
	bool thread_started;
	atomic_bool stop;
};

const char *at_net_proto_name(enum at_net_proto p)
{
	static const char *const names[] = {
		[AT_NET_PROTO_CONNECT] = "connect", [AT_NET_PROTO_HTTP] = "http",
		[AT_NET_PROTO_SOCKS5] = "socks5",   [AT_NET_PROTO_FORWARD] = "forward",
		[AT_NET_PROTO_UNKNOWN] = "unknown",
	};
	return (unsigned)p <= AT_NET_PROTO_UNKNOWN ? names[p] : "unknown";
}

/* Listeners in epoll while there is room for another connection. */
static void listen_on(struct at_proxy *p, bool on)
{
	if (p->listening == on)
		return;
	for (size_t i = 0; i < p->opts.nlisteners; i++) {
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &p->ltags[i] };
		epoll_ctl(p->ep, on ? EPOLL_CTL_ADD : EPOLL_CTL_DEL, p->listeners[i].fd, &ev);
	}
	p->listening = on;
}

static void accept_all(struct at_proxy *p, const struct at_net_listener *l)
{
	while (p->nconns < p->opts.max_conns) {
		int fd = accept4(l->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
			    errno == ENOMEM) {
				/* out of descriptors: let connections end, retry in a second */
				listen_on(p, false);
				p->retry_accept_ms = at_mono_ms() + 1000;
			}
			if (errno == ECONNABORTED || errno == EINTR)
				continue;
			return;
		}
		at_conn_new(p, fd, l);  /* owns fd, closed on failure */
	}
	listen_on(p, false);
}

static void take_resolved(struct at_proxy *p)
{
	uint64_t n;
	struct at_resolve_job *job, *next;

	if (read(p->resolved_fd, &n, sizeof(n)) < 0) {
		/* EAGAIN: another wake-up already took the jobs */
	}
	for (job = at_resolver_take(p->resolver); job; job = next) {
		next = job->next;
		at_conn_resolved(job);
	}
}

static void check_deadlines(struct at_proxy *p, int64_t now)
{
	struct at_conn *c, *next;

	for (c = p->conns; c; c = next) {
		next = c->next;
		if (c->deadline_ms && now >= c->deadline_ms)
			at_conn_timeout(c);
	}
	if (p->retry_accept_ms && now >= p->retry_accept_ms) {
		p->retry_accept_ms = 0;
		if (p->nconns < p->opts.max_conns)
			listen_on(p, true);
	}
}

static void bury(struct at_proxy *p)
{
	while (p->graveyard) {
		struct at_conn *c = p->graveyard;
		p->graveyard = c->next;
		at_conn_free(c);
	}
}

static void dispatch(struct at_net_proxy *np, struct epoll_event *ev)
{
	struct at_proxy *p = &np->p;
	struct at_tag *tag = ev->data.ptr;
	uint64_t n;

	switch (tag->kind) {
	case AT_TAG_LISTEN:
		accept_all(p, tag->obj);
		break;
	case AT_TAG_CLIENT:
	case AT_TAG_UPSTREAM:
		at_conn_event(tag->obj, tag->kind == AT_TAG_CLIENT, ev->events);
		break;
	case AT_TAG_WAKE:
		if (read(p->wake_fd, &n, sizeof(n)) < 0) {
			/* the flag is what counts */
		}
		break;
	case AT_TAG_RESOLVED:
		take_resolved(p);
		break;
	}
}

static void *loop(void *arg)
{
	struct at_net_proxy *np = arg;
	struct at_proxy *p = &np->p;
	struct epoll_event evs[EVENTS];
	int64_t last_tick = at_mono_ms();

	while (!atomic_load(&np->stop)) {
		int n = epoll_wait(p->ep, evs, EVENTS, p->busy ? 0 : 250);
		int64_t now;
		for (int i = 0; i < n; i++)
			dispatch(np, &evs[i]);
		at_conn_pump_busy(p);
		now = at_mono_ms();
		if (now - last_tick >= 250) {
			check_deadlines(p, now);
			last_tick = now;
		}
		if (!p->listening && !p->retry_accept_ms && p->nconns < p->opts.max_conns)
			listen_on(p, true);
		bury(p);
	}
	return NULL;
}

/* Room for max_conns relayed connections, within the hard limit. */
static void raise_nofile(unsigned max_conns)
{
	struct rlimit rl;
	rlim_t want = (rlim_t)max_conns * FDS_PER_CONN + 256;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= want)
		return;
	rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want ? want : rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
}

static int setup(struct at_net_proxy *np, const struct at_net_proxy_opts *opts,
		 struct at_error *err)
{
	struct at_proxy *p = &np->p;
	struct epoll_event ev = { .events = EPOLLIN };

	p->opts = *opts;
	if (!p->opts.max_conns)
		p->opts.max_conns = DEFAULT_MAX_CONNS;
	if (!p->opts.connect_timeout_ms)
		p->opts.connect_timeout_ms = DEFAULT_CONNECT_TIMEOUT_MS;
	p->ep = epoll_create1(EPOLL_CLOEXEC);
	p->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	p->resolved_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (p->ep < 0 || p->wake_fd < 0 || p->resolved_fd < 0)
		return at_error_sys(err, AT_ESYS, "cannot start the proxy");
	p->wake_tag = (struct at_tag){ AT_TAG_WAKE, NULL };
	p->resolved_tag = (struct at_tag){ AT_TAG_RESOLVED, NULL };
	ev.data.ptr = &p->wake_tag;
	if (epoll_ctl(p->ep, EPOLL_CTL_ADD, p->wake_fd, &ev) < 0)
		return at_error_sys(err, AT_ESYS, "cannot start the proxy");
	ev.data.ptr = &p->resolved_tag;
	if (epoll_ctl(p->ep, EPOLL_CTL_ADD, p->resolved_fd, &ev) < 0)
		return at_error_sys(err, AT_ESYS, "cannot start the proxy");
	for (size_t i = 0; i < p->opts.nlisteners; i++) {
		int fd = p->listeners[i].fd;
		int fl = fcntl(fd, F_GETFL);
		if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
			return at_error_sys(err, AT_ESYS, "cannot use a proxy listening socket");
		p->ltags[i] = (struct at_tag){ AT_TAG_LISTEN, &p->listeners[i] };
	}
	listen_on(p, true);
	raise_nofile(p->opts.max_conns);
	return at_resolver_new(p->resolved_fd, &p->resolver, err);
}

static void teardown(struct at_net_proxy *np)
{
	struct at_proxy *p = &np->p;

	at_term_stop_all(p);
	pthread_mutex_destroy(&p->term_lock);
	at_resolver_stop(p->resolver);
	p->resolver = NULL;
	while (p->conns)
		at_conn_close(p->conns);
	bury(p);
	for (size_t i = 0; p->listeners && i < p->opts.nlisteners; i++)
		if (p->listeners[i].fd >= 0)
			close(p->listeners[i].fd);
	free(p->listeners);
	free(p->ltags);
	if (p->ep >= 0)
		close(p->ep);
	if (p->wake_fd >= 0)
		close(p->wake_fd);
	if (p->resolved_fd >= 0)
		close(p->resolved_fd);
	free(np);
}

static void close_listeners(const struct at_net_proxy_opts *opts)
{
	for (size_t i = 0; i < opts->nlisteners; i++)
		if (opts->listeners[i].fd >= 0)
			close(opts->listeners[i].fd);
}

int at_net_proxy_start(const struct at_net_proxy_opts *opts, struct at_net_proxy **out,
		       struct at_error *err)
{
	struct at_net_proxy *np = calloc(1, sizeof(*np));
	int rc;

	if (!np || !(np->p.listeners = calloc(opts->nlisteners + 1, sizeof(*np->p.listeners))) ||
	    !(np->p.ltags = calloc(opts->nlisteners + 1, sizeof(*np->p.ltags)))) {
		if (np)
			free(np->p.listeners);
		free(np);
		close_listeners(opts);
		return at_error_sys(err, AT_ESYS, "out of memory");
	}
	np->p.ep = np->p.wake_fd = np->p.resolved_fd = -1;
	pthread_mutex_init(&np->p.term_lock, NULL);
	memcpy(np->p.listeners, opts->listeners, opts->nlisteners * sizeof(*opts->listeners));
	rc = setup(np, opts, err);
	if (rc == 0) {
		pthread_attr_t attr;
		/* the loop needs little stack: a small one is cheaper to map and to free */
		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, LOOP_STACK);
		rc = pthread_create(&np->thread, &attr, loop, np);
		pthread_attr_destroy(&attr);
		if (rc != 0) {
			errno = rc;
			rc = at_error_sys(err, AT_ESYS, "cannot start the proxy thread");
		}
	}
	if (rc < 0) {
		teardown(np);
		return rc;
	}
	np->thread_started = true;
	*out = np;
	return 0;
}

void at_net_proxy_stop(struct at_net_proxy *np)
{
	uint64_t one = 1;

	if (!np)
		return;
	atomic_store(&np->stop, true);
	if (write(np->p.wake_fd, &one, sizeof(one)) < 0) {
		/* the loop also sees the flag within its 250 ms tick */
	}
	if (np->thread_started)
		pthread_join(np->thread, NULL);
	teardown(np);
}
