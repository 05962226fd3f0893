#include "net/resolve.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct at_resolver {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct at_resolve_job *queue, **queue_tail;
	struct at_resolve_job *done;
	pthread_t threads[AT_RESOLVE_THREADS];
	int nthreads, idle;
	bool stopping;
	int notify_fd;
};

/* Keep a dialable address, or remember why the first refused one was refused. */
static void judge(struct at_resolve_job *job, const struct sockaddr *sa,
		  const struct at_net_hostaddrs *own)
{
	enum at_net_class c = at_net_classify_sa(sa, own);
	struct sockaddr_in6 *out;
	struct in6_addr a;

	if (!at_net_class_allowed(c, job->deny_private)) {
		if (job->refused == AT_NET_PUBLIC) {
			job->refused = c;
			at_net_addr_from_sa(sa, &a);
			at_net_addr_format(&a, job->refused_addr, sizeof(job->refused_addr));
		}
		return;
	}
	if (job->naddrs == AT_RESOLVE_ADDRS)
		return;
	out = &job->addrs[job->naddrs++];
	memset(out, 0, sizeof(*out));
	out->sin6_family = AF_INET6;
	out->sin6_port = htons(job->port);
	at_net_addr_from_sa(sa, &out->sin6_addr);
}

void at_resolve_run(struct at_resolve_job *job)
{
	struct at_net_hostaddrs own = AT_NET_HOSTADDRS_INIT;
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_ADDRCONFIG };
	struct addrinfo *res = NULL, *i;
	char canon[AT_NET_HOST_MAX + 1];
	struct sockaddr_in6 lit = { .sin6_family = AF_INET6 };
	bool is_ip;

	job->naddrs = 0;
	job->refused = AT_NET_PUBLIC;
	job->gai_error = 0;
	/* Unreadable interfaces: refuse rather than dial what may be the host. */
	if (at_net_hostaddrs_load(&own, NULL) < 0) {
		job->refused = AT_NET_HOST_OWN;
		memcpy(job->refused_addr, "?", 2);
		return;
	}
	if (at_net_host_canon(job->host, canon, &lit.sin6_addr, &is_ip) && is_ip) {
		judge(job, (struct sockaddr *)&lit, &own);
	} else {
		/* the name was checked by at_net_host_canon: never read as a literal */
		job->gai_error = getaddrinfo(job->host, NULL, &hints, &res);
		for (i = job->gai_error ? NULL : res; i; i = i->ai_next)
			judge(job, i->ai_addr, &own);
		if (res)
			freeaddrinfo(res);
	}
	at_net_hostaddrs_release(&own);
}

static void *worker(void *arg)
{
	struct at_resolver *r = arg;
	uint64_t one = 1;

	pthread_mutex_lock(&r->lock);
	for (;;) {
		struct at_resolve_job *job;
		while (!r->queue && !r->stopping) {
			r->idle++;
			pthread_cond_wait(&r->wake, &r->lock);
			r->idle--;
		}
		if (r->stopping)
			break;
		job = r->queue;
		r->queue = job->next;
		if (!r->queue)
			r->queue_tail = &r->queue;
		pthread_mutex_unlock(&r->lock);
		at_resolve_run(job);
		pthread_mutex_lock(&r->lock);
		job->next = r->done;
		r->done = job;
		if (write(r->notify_fd, &one, sizeof(one)) < 0) {
			/* an eventfd write fails only past 2^64-2: the loop reads it first */
		}
	}
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

int at_resolver_new(int notify_fd, struct at_resolver **out, struct at_error *err)
{
	struct at_resolver *r = calloc(1, sizeof(*r));

	if (!r)
		return at_error_sys(err, AT_ESYS, "out of memory");
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->wake, NULL);
	r->queue_tail = &r->queue;
	r->notify_fd = notify_fd;
	*out = r;
	return 0;
}

int at_resolver_submit(struct at_resolver *r, struct at_resolve_job *job, struct at_error *err)
{
	int rc = 0;

	pthread_mutex_lock(&r->lock);
	job->next = NULL;
	*r->queue_tail = job;
	r->queue_tail = &job->next;
	if (r->idle == 0 && r->nthreads < AT_RESOLVE_THREADS) {
		rc = pthread_create(&r->threads[r->nthreads], NULL, worker, r);
		if (rc == 0)
			r->nthreads++;
		else if (r->nthreads == 0) {
			/* no thread to run it: take the job back */
			r->queue = NULL;
			r->queue_tail = &r->queue;
			errno = rc;
			rc = at_error_sys(err, AT_ESYS, "cannot start a resolver thread");
		} else {
			rc = 0;  /* the running threads will get to it */
		}
	}
	pthread_cond_signal(&r->wake);
	pthread_mutex_unlock(&r->lock);
	return rc;
}

struct at_resolve_job *at_resolver_take(struct at_resolver *r)
{
	struct at_resolve_job *list;

	pthread_mutex_lock(&r->lock);
	list = r->done;
	r->done = NULL;
	pthread_mutex_unlock(&r->lock);
	return list;
}

static void free_list(struct at_resolve_job *j)
{
	while (j) {
		struct at_resolve_job *next = j->next;
		free(j);
		j = next;
	}
}

void at_resolver_stop(struct at_resolver *r)
{
	if (!r)
		return;
	pthread_mutex_lock(&r->lock);
	r->stopping = true;
	pthread_cond_broadcast(&r->wake);
	pthread_mutex_unlock(&r->lock);
	for (int i = 0; i < r->nthreads; i++)
		pthread_join(r->threads[i], NULL);
	free_list(r->queue);
	free_list(r->done);
	pthread_cond_destroy(&r->wake);
	pthread_mutex_destroy(&r->lock);
	free(r);
}
