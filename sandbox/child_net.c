/*
 * child_net.c - the loopback interface of a new network namespace.
 *
 * A new network namespace has only `lo`, and it is down. One ioctl brings it
 * up, so the command can still talk to itself (test servers on 127.0.0.1)
 * while it reaches nothing else. No `ip` program is run.
 *
 * It may also listen there for the supervisor: sockets the caller asked for
 * (opts.listen) are made in the new namespace by the child and handed over
 * before the command starts, so that a process outside serves them and none
 * runs inside for it (the network allowlist's proxy does this).
 */
#include "sandbox/child.h"

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

/* In the child: async-signal-safe. */
int at_sb_loopback_up(void)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc = -1, saved;

	if (fd < 0)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, "lo", 3);
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) == 0) {
		ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
		rc = ioctl(fd, SIOCSIFFLAGS, &ifr);
	}
	saved = errno;
	close(fd);
	errno = saved;
	return rc;
}

/* A listening socket on 127.0.0.1:port or [::1]:port; -1 with errno. */
static int listen_one(const struct at_sandbox_listen *l)
{
	struct sockaddr_in in = { .sin_family = AF_INET, .sin_port = htons(l->port),
				  .sin_addr = { htonl(INADDR_LOOPBACK) } };
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6, .sin6_port = htons(l->port),
				    .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	int fd = socket(l->ipv6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
	int rc, saved;

	if (fd < 0)
		return -1;
	if (l->ipv6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	rc = l->ipv6 ? bind(fd, (struct sockaddr *)&in6, sizeof(in6))
		     : bind(fd, (struct sockaddr *)&in, sizeof(in));
	if (rc == 0)
		rc = listen(fd, SOMAXCONN);
	if (rc < 0) {
		saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	return fd;
}

/*
 * The sockets go over a SOCK_SEQPACKET socketpair in one message: one byte
 * per socket (1 sent, 0 left out) and the descriptors as SCM_RIGHTS. Our
 * copies are closed at once; the command never sees them. The supervisor
 * starts serving them while we build the mounts: at_sb_listen_wait, just
 * before the command, takes its one byte (EOF: it is not serving them, and
 * the run stops there). A connection made before that waits in the
 * listen queue; nothing of the command runs before the proxy does.
 */
int at_sb_listen_handoff(const struct at_sb_child *c)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int) * AT_SANDBOX_LISTEN_MAX)];
	} ctl;
	unsigned char made[AT_SANDBOX_LISTEN_MAX];
	int fds[AT_SANDBOX_LISTEN_MAX];
	size_t i, n = 0;
	struct iovec iov = { made, c->nlisten };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t rc;
	int saved;

	for (i = 0; i < c->nlisten; i++) {
		int fd = listen_one(&c->listen[i]);
		made[i] = fd >= 0;
		if (fd >= 0) {
			fds[n++] = fd;
		} else if (!c->listen[i].optional) {
			saved = errno;
			while (n > 0)
				close(fds[--n]);
			errno = saved;
			return -1;
		}
	}
	memset(&ctl, 0, sizeof(ctl));
	if (n) {
		msg.msg_control = ctl.buf;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * n);
		struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int) * n);
		memcpy(CMSG_DATA(cm), fds, sizeof(int) * n);
	}
	rc = sendmsg(c->listen_fd, &msg, MSG_NOSIGNAL);
	saved = errno;
	while (n > 0)
		close(fds[--n]);
	if (rc < 0) {
		errno = saved;
		return -1;
	}
	return 0;
}

int at_sb_listen_wait(const struct at_sb_child *c)
{
	char go;

	if (read(c->listen_fd, &go, 1) != 1) {
		errno = ECONNABORTED;
		return -1;
	}
	close(c->listen_fd);
	return 0;
}

/*
 * For a caller that makes sockets in our network namespace from outside
 * (sandbox/netns.c): its process joins our user namespace, then our network
 * namespace, through these descriptors. Sent before anything of the task
 * runs; ours are closed at once.
 */
int at_sb_netns_handoff(const struct at_sb_child *c)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int) * 2)];
	} ctl;
	int fds[2], saved;
	char byte = 'n';
	struct iovec iov = { &byte, 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
			      .msg_controllen = sizeof(ctl.buf) };
	struct cmsghdr *cm;
	ssize_t rc;

	fds[0] = open("/proc/self/ns/user", O_RDONLY | O_CLOEXEC);
	fds[1] = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (fds[0] < 0 || fds[1] < 0) {
		saved = errno;
		if (fds[0] >= 0)
			close(fds[0]);
		if (fds[1] >= 0)
			close(fds[1]);
		errno = saved;
		return -1;
	}
	memset(&ctl, 0, sizeof(ctl));
	cm = CMSG_FIRSTHDR(&msg);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int) * 2);
	memcpy(CMSG_DATA(cm), fds, sizeof(fds));
	rc = sendmsg(c->netns_fd, &msg, MSG_NOSIGNAL);
	saved = errno;
	close(fds[0]);
	close(fds[1]);
	close(c->netns_fd);
	errno = saved;
	return rc < 0 ? -1 : 0;
}
