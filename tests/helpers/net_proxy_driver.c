/*
 * net_proxy_driver - runs the net/ proxy engine alone, for tests/integration/net_proxy.sh.
 *
 *   net_proxy_driver [--deny-private] [--no-sni] [--max N]
 *                    [--listen IP:PORT]... [--forward IP:PORT=HOSTPORT]...
 *                    [--allow PATTERN]...
 *
 * Makes the listening sockets itself (port 0: any), prints "listen IP:PORT"
 * (or "forward IP:PORT") for each and "ready", then one "record ..." line per
 * connection as it ends. It stops when stdin reaches EOF or on SIGTERM, then
 * prints "clean" if every descriptor and thread it had before the start is
 * all it has left, "leak ..." (exit 1) otherwise.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net/proxy.h"
#include "net/rules.h"

static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

static void on_record(const struct at_net_record *r, void *ctx)
{
	(void)ctx;
	pthread_mutex_lock(&out_lock);
	printf("record proto=%s host=%s port=%u addr=%s allowed=%d rule=%s up=%llu down=%llu "
	       "ms=%lld reason=%s\n",
	       at_net_proto_name(r->proto), r->host[0] ? r->host : "-", r->port,
	       r->addr[0] ? r->addr : "-", r->allowed, r->rule ? r->rule : "-",
	       (unsigned long long)r->bytes_up, (unsigned long long)r->bytes_down,
	       (long long)r->duration_ms, r->reason ? r->reason : "-");
	fflush(stdout);
	pthread_mutex_unlock(&out_lock);
}

static int count_dir(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static int listen_on(const char *spec, uint16_t *port_out, char *shown, size_t size)
{
	char host[64];
	const char *colon = strrchr(spec, ':');
	struct sockaddr_storage ss = { 0 };
	socklen_t len;
	int fd;

	if (!colon || (size_t)(colon - spec) >= sizeof(host))
		return -1;
	memcpy(host, spec, (size_t)(colon - spec));
	host[colon - spec] = '\0';
	if (inet_pton(AF_INET, host, &((struct sockaddr_in *)&ss)->sin_addr) == 1) {
		ss.ss_family = AF_INET;
		((struct sockaddr_in *)&ss)->sin_port = htons((uint16_t)atoi(colon + 1));
		len = sizeof(struct sockaddr_in);
	} else if (inet_pton(AF_INET6, host, &((struct sockaddr_in6 *)&ss)->sin6_addr) == 1) {
		ss.ss_family = AF_INET6;
		((struct sockaddr_in6 *)&ss)->sin6_port = htons((uint16_t)atoi(colon + 1));
		len = sizeof(struct sockaddr_in6);
	} else {
		return -1;
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int one = 1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (fd < 0 || bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, 4096) < 0)
		return -1;
	getsockname(fd, (struct sockaddr *)&ss, &len);
	*port_out = ntohs(ss.ss_family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
						  : ((struct sockaddr_in6 *)&ss)->sin6_port);
	snprintf(shown, size, "%s:%u", host, *port_out);
	return fd;
}

int main(int argc, char **argv)
{
	struct at_net_rules rules = AT_NET_RULES_INIT;
	struct at_net_proxy_opts opts = AT_NET_PROXY_OPTS_INIT;
	struct at_net_listener ls[16];
	struct at_net_proxy *proxy = NULL;
	struct at_error err = AT_ERROR_INIT;
	char shown[16][80];
	const char *kinds[16];
	size_t nl = 0;
	int fds_before, threads_before, fds_after, threads_after, sfd;
	sigset_t set;

	fds_before = count_dir("/proc/self/fd") - 1;  /* less opendir's own */
	threads_before = count_dir("/proc/self/task");
	for (int i = 1; i < argc; i++) {
		uint16_t port;
		if (!strcmp(argv[i], "--deny-private")) {
			opts.deny_private = true;
		} else if (!strcmp(argv[i], "--no-sni")) {
			opts.no_sni_check = true;
		} else if (!strcmp(argv[i], "--max") && i + 1 < argc) {
			opts.max_conns = (unsigned)atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--allow") && i + 1 < argc) {
			if (at_net_rules_add(&rules, argv[++i], &err) < 0) {
				fprintf(stderr, "net_proxy_driver: %s\n", err.msg);
				return 2;
			}
		} else if ((!strcmp(argv[i], "--listen") || !strcmp(argv[i], "--forward")) &&
			   i + 1 < argc && nl < 16) {
			bool fwd = argv[i][2] == 'f';
			char spec[80];
			char *eq;
			snprintf(spec, sizeof(spec), "%s", argv[++i]);
			eq = strchr(spec, '=');
			if (fwd != (eq != NULL))
				return 2;
			if (eq)
				*eq = '\0';
			ls[nl].fd = listen_on(spec, &port, shown[nl], sizeof(shown[nl]));
			if (ls[nl].fd < 0) {
				perror(spec);
				return 2;
			}
			ls[nl].kind = fwd ? AT_NET_LISTEN_FORWARD : AT_NET_LISTEN_PROXY;
			ls[nl].port = fwd ? (uint16_t)atoi(eq + 1) : 0;
			kinds[nl++] = fwd ? "forward" : "listen";
		} else {
			fprintf(stderr, "net_proxy_driver: bad argument '%s'\n", argv[i]);
			return 2;
		}
	}
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sfd = signalfd(-1, &set, SFD_CLOEXEC);
	opts.listeners = ls;
	opts.nlisteners = nl;
	opts.rules = &rules;
	opts.record = on_record;
	if (at_net_proxy_start(&opts, &proxy, &err) < 0) {
		fprintf(stderr, "net_proxy_driver: %s\n", err.msg);
		return 1;
	}
	for (size_t i = 0; i < nl; i++)
		printf("%s %s\n", kinds[i], shown[i]);
	printf("ready\n");
	fflush(stdout);
	struct pollfd pfd[2] = { { .fd = 0, .events = POLLIN }, { .fd = sfd, .events = POLLIN } };
	for (;;) {
		char junk[256];
		if (poll(pfd, 2, -1) < 0)
			continue;
		if (pfd[1].revents)
			break;
		if (pfd[0].revents && read(0, junk, sizeof(junk)) <= 0)
			break;
	}
	at_net_proxy_stop(proxy);
	at_net_rules_release(&rules);
	close(sfd);
	fds_after = count_dir("/proc/self/fd") - 1;
	threads_after = count_dir("/proc/self/task");
	if (fds_after != fds_before || threads_after != threads_before) {
		printf("leak fds=%d/%d threads=%d/%d\n", fds_after, fds_before, threads_after,
		       threads_before);
		return 1;
	}
	printf("clean fds=%d threads=%d\n", fds_before, threads_before);
	return 0;
}
