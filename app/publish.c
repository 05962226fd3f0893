/*
 * publish.c - `run --publish [HOSTPORT:]PORT`: the host's 127.0.0.1:HOSTPORT
 * reaches the sandbox's 127.0.0.1:PORT for the length of the run.
 *
 * The host's sockets are bound before the sandbox is made (a port in use is
 * one line, and nothing ran); they listen on 127.0.0.1 only. Once the init
 * is cloned (the spec's on_netns), a process of ours joins its network
 * namespace to make the sockets we connect with (sandbox/netns.c), and a
 * net/proxy of PUBLISH listeners relays each connection: a connection to
 * HOSTPORT reaches the sandbox's loopback, and only that sandbox's, since
 * a socket belongs to the namespace it was made in. When the run ends the
 * proxy closes the listeners: the port refuses connections.
 *
 * Without HOSTPORT, the port assigned to the task's PORT last time
 * (core/ports.h) when it is free, else one the kernel picks, recorded for
 * next time.
 */
#include "app/internal.h"
#include "app/publish.h"
#include "core/parse.h"
#include "core/util.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

void at_app_publish_init(struct at_app_publish *p)
{
	memset(p, 0, sizeof(*p));
	for (size_t i = 0; i < AT_PORTS_MAX; i++)
		p->v[i].fd = -1;
	p->ns[0] = p->ns[1] = -1;
}

int at_app_publish_add(struct at_app_publish *p, const char *spec, const char *as,
		       struct at_error *err)
{
	struct at_app_published e = { .fd = -1 };
	const char *why = NULL;
	char buf[64];

	if (strchr(spec, ':')) {
		if (!at_parse_forward(spec, &e.host_port, &e.port))
			why = "[HOSTPORT:]PORT, ports from 1 to 65535";
	} else if (!at_parse_forward(spec, &e.port, &e.port)) {
		why = "[HOSTPORT:]PORT, ports from 1 to 65535";
	}
	for (size_t i = 0; !why && i < p->n; i++) {
		if (p->v[i].port == e.port) {
			snprintf(buf, sizeof(buf), "the sandbox's port %u is published already",
				 e.port);
			why = buf;
		} else if (e.host_port && p->v[i].host_port == e.host_port) {
			snprintf(buf, sizeof(buf), "the host's port %u is published already",
				 e.host_port);
			why = buf;
		}
	}
	if (!why && p->n == AT_PORTS_MAX) {
		snprintf(buf, sizeof(buf), "at most %d published ports", AT_PORTS_MAX);
		why = buf;
	}
	if (why)
		return at_error_set(err, AT_EUSAGE, "invalid %s '%s': %s", as, spec, why);
	snprintf(e.text, sizeof(e.text), "%s", spec);
	p->v[p->n++] = e;
	return 0;
}

bool at_app_publish_has(const struct at_app_publish *p, uint16_t port)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].port == port)
			return true;
	return false;
}

/* A socket listening on the host's 127.0.0.1:port (0: any); -1 with errno. */
static int listen_loopback(uint16_t port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port),
				 .sin_addr = { htonl(INADDR_LOOPBACK) } };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), one = 1, saved;

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, SOMAXCONN) < 0) {
		saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	return fd;
}

static uint16_t bound_port(int fd)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);

	return getsockname(fd, (struct sockaddr *)&a, &len) == 0 ? ntohs(a.sin_port) : 0;
}

static void close_all(struct at_app_publish *p)
{
	for (size_t i = 0; i < p->n; i++) {
		if (p->v[i].fd >= 0)
			close(p->v[i].fd);
		p->v[i].fd = -1;
	}
}

/* One port: the one asked for, or the task's last, or any; its socket into e->fd. */
static int bind_one(struct at_app_published *e, const struct at_paths *paths, const char *task,
		    struct at_error *err)
{
	uint16_t want = e->host_port;

	e->automatic = want == 0;
	if (e->automatic && (want = e->last = at_ports_assigned(paths, task, e->port)))
		e->fd = listen_loopback(want);
	if (e->fd < 0)
		e->fd = listen_loopback(e->automatic ? 0 : want);
	if (e->fd < 0 && errno == EADDRINUSE)
		return at_error_set(err, AT_EUSAGE, "cannot publish '%s': the host's port "
				    "127.0.0.1:%u is in use", e->text, want);
	if (e->fd < 0 && errno == EACCES)
		return at_error_set(err, AT_EUSAGE, "cannot publish '%s': the host's port %u "
				    "needs privileges", e->text, want);
	if (e->fd < 0)
		return at_error_sys(err, AT_ESYS, "cannot publish '%s'", e->text);
	e->host_port = bound_port(e->fd);
	return 0;
}

int at_app_publish_bind(struct at_app_publish *p, const struct at_paths *paths, const char *task,
			struct at_error *err)
{
	struct at_port_map m[AT_PORTS_MAX];
	size_t i;
	int rc = 0;

	if (p->n == 0)
		return 0;
	for (i = 0; i < p->n && rc == 0; i++)
		rc = bind_one(&p->v[i], paths, task, err);
	for (i = 0; i < p->n && rc == 0; i++)
		m[i] = (struct at_port_map){ p->v[i].port, p->v[i].host_port };
	if (rc == 0)
		rc = at_ports_live_write(paths, task, m, p->n, p->live, sizeof(p->live), err);
	if (rc < 0) {
		close_all(p);
		return rc;
	}
	/* Written (and fsync'd) only when it changed: not on every run. */
	for (i = 0; i < p->n; i++)
		if (p->v[i].automatic && p->v[i].host_port != p->v[i].last)
			at_ports_assign(paths, task, p->v[i].port, p->v[i].host_port);
	return 0;
}

/*
 * On the relay's thread. The process that makes the sockets is forked at
 * the first connection, not at the run's start: a run that publishes a port
 * nobody connects to pays for no fork.
 */
static int make_socket(void *ctx)
{
	struct at_app_publish *p = ctx;
	struct at_error err = AT_ERROR_INIT;

	if (!p->sockets && p->ns[0] >= 0 &&
	    at_sandbox_sockets_open(p->ns[0], p->ns[1], &p->sockets, &err) < 0)
		return -1;
	return at_sandbox_sockets_tcp(p->sockets);
}

static void close_ns(struct at_app_publish *p)
{
	for (int i = 0; i < 2; i++) {
		if (p->ns[i] >= 0)
			close(p->ns[i]);
		p->ns[i] = -1;
	}
}

/* The spec's on_netns: the sandbox's namespace joined, the relay started. */
static int start(void *ctx, int userns_fd, int netns_fd, struct at_error *err)
{
	struct at_app_publish *p = ctx;
	struct at_net_listener ls[AT_PORTS_MAX];
	struct at_net_proxy_opts po = AT_NET_PROXY_OPTS_INIT;
	int rc;

	p->ns[0] = fcntl(userns_fd, F_DUPFD_CLOEXEC, 3);
	p->ns[1] = fcntl(netns_fd, F_DUPFD_CLOEXEC, 3);
	if (p->ns[0] < 0 || p->ns[1] < 0) {
		close_ns(p);
		return at_error_sys(err, AT_ESANDBOX, "cannot keep the sandbox's namespaces");
	}
	for (size_t i = 0; i < p->n; i++) {
		ls[i] = (struct at_net_listener){ p->v[i].fd, AT_NET_LISTEN_PUBLISH, p->v[i].port };
		p->v[i].fd = -1;  /* the proxy's from now on, closed on failure too */
	}
	po.listeners = ls;
	po.nlisteners = p->n;
	po.socket = make_socket;
	po.socket_ctx = p;
	rc = at_net_proxy_start(&po, &p->proxy, err);
	if (rc < 0)
		err->code = AT_ESANDBOX;
	return rc < 0 ? AT_ESANDBOX : 0;
}

void at_app_publish_prepare(struct at_app_publish *p, struct at_sandbox_spec *s)
{
	if (!p || p->n == 0)
		return;
	s->on_netns = start;
	s->netns_ctx = p;
}

void at_app_publish_stop(struct at_app_publish *p)
{
	if (!p)
		return;
	at_net_proxy_stop(p->proxy);
	p->proxy = NULL;
	at_sandbox_sockets_close(p->sockets);
	p->sockets = NULL;
	close_ns(p);
	close_all(p);
	if (p->live[0])
		unlink(p->live);
	p->live[0] = '\0';
}

/* {port, host_port, url} of one published port; NULL when out of memory. */
static at_json *port_json(at_json *o, uint16_t port, uint16_t host_port)
{
	char url[64];
	int bad = !o;

	snprintf(url, sizeof(url), "http://127.0.0.1:%u/", host_port);
	bad |= at_json_add_number(o, "port", port);
	bad |= at_json_add_number(o, "host_port", host_port);
	bad |= at_json_add_string(o, "url", url);
	if (bad) {
		at_json_free(o);
		return NULL;
	}
	return o;
}

at_json *at_app_published_json(const struct at_port_map *m, size_t n)
{
	at_json *a;
	int bad = 0;

	if (n == 0)
		return NULL;
	a = at_json_array();
	for (size_t i = 0; i < n; i++)
		bad |= at_json_append(a, port_json(at_json_object(), m[i].port, m[i].host_port));
	if (bad) {
		at_json_free(a);
		return NULL;
	}
	return a;
}

/* ---- agenttask ports (publish.h) ---- */

int at_app_ports(const struct at_app *app, const char *name, struct at_ports_live **out,
		 size_t *nout, struct at_error *err)
{
	struct at_repo *r = NULL;
	struct at_task t;
	int rc = at_app_open(app, &r, err);

	*out = NULL;
	*nout = 0;
	if (rc == 0 && name)
		rc = at_app_resolve(app, r, name, &t, err);
	if (rc == 0)
		rc = at_ports_live_list(at_repo_paths(r), name ? t.name : NULL, out, nout, err);
	at_repo_free(r);
	return rc;
}

at_json *at_app_ports_json(const struct at_ports_live *v, size_t n)
{
	at_json *o = at_json_object(), *a = at_json_array();
	int bad = 0;

	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < v[i].n; k++) {
			at_json *e = at_json_object();

			bad |= at_json_add_string(e, "task", v[i].task);
			bad |= at_json_add_number(e, "pid", v[i].pid);
			bad |= at_json_append(a, port_json(e, v[i].map[k].port, v[i].map[k].host_port));
		}
	}
	bad |= at_json_add(o, "ports", a);
	if (bad) {
		at_json_free(o);
		return NULL;
	}
	return o;
}
