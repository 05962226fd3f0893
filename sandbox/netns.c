/*
 * netns.c - sockets made in a running sandbox's network namespace, for the
 * supervisor to connect with (sandbox.h: at_sandbox_sockets_*): the other
 * way of child_net.c's listening sockets, for a port published from inside.
 *
 * Why a process of its own: a socket belongs for good to the namespace of
 * the thread that made it, so a socket that reaches the sandbox's loopback
 * must be made in its namespace. setns(CLONE_NEWNET) from the host's user
 * namespace needs CAP_SYS_ADMIN there, which uid 65534 lacks; but the
 * sandbox's user namespace is ours (we made it: its owner has every
 * capability in it), and a process joining it first gets them, then may
 * join the network namespace that user namespace owns. Joining a user
 * namespace is refused to a process with threads (the supervisor has the
 * proxies'), so a forked process does it, through descriptors of the two
 * namespaces that the init opened itself and sent us before anything of
 * the task ran (child_net.c): the init makes itself non-dumpable, after
 * which uid 65534 may neither open its /proc/PID/ns nor setns() through its
 * pidfd (both need ptrace access). It is the same as root's path: no
 * privilege of the host is used.
 *
 * That process stays outside the sandbox's pid namespace (nothing inside
 * can see, signal or trace it), keeps no descriptor but its socket to us
 * (close_range at once; stdio /dev/null), and does one thing: on each byte it reads, it makes an
 * unconnected TCP socket (IPv4, non-blocking, close-on-exec) and sends it
 * back. It dies with us (PR_SET_PDEATHSIG) and at the end of its socket.
 * What it sends is checked all the same: a TCP stream socket, unconnected.
 */
#include "sandbox/fdpass.h"
#include "sandbox/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

struct at_sandbox_sockets {
	int sock;
	pid_t pid;
};

/* In the forked process: async-signal-safe only (the supervisor may have threads). */
_Noreturn static void maker(int sock, int userns_fd, int netns_fd, pid_t parent)
{
	char req, status = 0;
	int nul;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() != parent)
		_exit(1);
	/* Nothing of the supervisor's kept a moment longer than needed: 3, 4, 5 alone. */
	if ((sock = fcntl(sock, F_DUPFD, 10)) < 0 || (userns_fd = fcntl(userns_fd, F_DUPFD, 10)) < 0 ||
	    (netns_fd = fcntl(netns_fd, F_DUPFD, 10)) < 0 || dup2(sock, 3) < 0 ||
	    dup2(userns_fd, 4) < 0 || dup2(netns_fd, 5) < 0)
		_exit(1);
	close_range(6, ~0U, 0);
	/* Not the person's terminal either: stdio is /dev/null. */
	if ((nul = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0 || dup2(nul, 0) < 0 || dup2(nul, 1) < 0 ||
	    dup2(nul, 2) < 0)
		_exit(1);
	close(nul);
	if (setns(4, CLONE_NEWUSER) < 0 || setns(5, CLONE_NEWNET) < 0)
		status = (char)(errno < 127 ? errno : EINVAL);
	close(4);
	close(5);
	if (at_fd_send(3, status, -1) < 0 || status)
		_exit(1);
	while (read(3, &req, 1) == 1) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (at_fd_send(3, fd < 0 ? (char)errno : 0, fd) < 0)
			_exit(1);
		if (fd >= 0)
			close(fd);
	}
	_exit(0);
}

/* One status byte and, with 0, one descriptor; -1 with errno. */
static int recv_reply(int sock, int *fd)
{
	char status = 0;
	int rc = at_fd_recv(sock, &status, fd);

	if (rc <= 0) {
		errno = rc < 0 ? errno : ECONNRESET;
		return -1;
	}
	if (status) {
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
		errno = status;
		return -1;
	}
	return 0;
}

int at_sandbox_sockets_open(int userns_fd, int netns_fd, struct at_sandbox_sockets **out,
			    struct at_error *err)
{
	struct at_sandbox_sockets *s = calloc(1, sizeof(*s));
	int sv[2] = { -1, -1 }, none;
	pid_t parent = getpid();

	if (!s)
		return at_error_set(err, AT_ESYS, "out of memory");
	s->sock = -1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		goto fail;
	s->pid = fork();
	if (s->pid == 0) {
		close(sv[0]);
		maker(sv[1], userns_fd, netns_fd, parent);
	}
	if (s->pid < 0)
		goto fail;
	close(sv[1]);
	s->sock = sv[0];
	if (recv_reply(s->sock, &none) < 0) {
		at_error_sys(err, AT_ESANDBOX, "cannot enter the sandbox's network namespace");
		at_sandbox_sockets_close(s);
		return err->code;
	}
	*out = s;
	return 0;
fail:
	at_error_sys(err, AT_ESANDBOX, "cannot enter the sandbox's network namespace");
	if (sv[0] >= 0) {
		close(sv[0]);
		close(sv[1]);
	}
	free(s);
	return err->code;
}

/* A TCP stream socket, not connected, not listening. */
static bool fresh_tcp(int fd)
{
	int type = 0, proto = 0, listening = 1;
	socklen_t len = sizeof(int);
	struct sockaddr_storage peer;
	socklen_t plen = sizeof(peer);

	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) < 0 || type != SOCK_STREAM)
		return false;
	len = sizeof(int);
	if (getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &proto, &len) < 0 || proto != IPPROTO_TCP)
		return false;
	len = sizeof(int);
	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) < 0 || listening)
		return false;
	return getpeername(fd, (struct sockaddr *)&peer, &plen) < 0 && errno == ENOTCONN;
}

int at_sandbox_sockets_tcp(struct at_sandbox_sockets *s)
{
	int fd;

	if (!s || s->sock < 0) {
		errno = EBADF;
		return -1;
	}
	if (send(s->sock, "s", 1, MSG_NOSIGNAL) != 1 || recv_reply(s->sock, &fd) < 0)
		return -1;
	if (fd < 0 || !fresh_tcp(fd)) {
		if (fd >= 0)
			close(fd);
		errno = EPROTO;
		return -1;
	}
	return fd;
}

void at_sandbox_sockets_close(struct at_sandbox_sockets *s)
{
	if (!s)
		return;
	if (s->sock >= 0)
		close(s->sock);
	if (s->pid > 0) {
		kill(s->pid, SIGKILL);
		while (waitpid(s->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	free(s);
}
