/*
 * fdpass.c - a byte and a descriptor over a unix socket (fdpass.h).
 */
#include "sandbox/fdpass.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int at_fd_send(int sock, char byte, int fd)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	struct iovec iov = { &byte, 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

	memset(&ctl, 0, sizeof(ctl));
	if (fd >= 0) {
		struct cmsghdr *cm;

		msg.msg_control = ctl.buf;
		msg.msg_controllen = sizeof(ctl.buf);
		cm = CMSG_FIRSTHDR(&msg);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	}
	return sendmsg(sock, &msg, MSG_NOSIGNAL) == 1 ? 0 : -1;
}

int at_fd_recv(int sock, char *byte, int *fd)
{
	/* Room for more than one, so that extra ones arrive to be closed, not truncated. */
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int) * 4)];
	} ctl;
	struct iovec iov = { byte, 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
			      .msg_controllen = sizeof(ctl.buf) };
	struct cmsghdr *cm;
	ssize_t rc;

	*fd = -1;
	do
		rc = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (rc < 0 && errno == EINTR);
	if (rc <= 0)
		return rc < 0 ? -1 : 0;
	for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
		size_t i, n;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		n = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < n; i++) {
			int one;

			memcpy(&one, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
			if (*fd < 0)
				*fd = one;
			else
				close(one);
		}
	}
	if (msg.msg_flags & MSG_CTRUNC) {
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
		errno = EPROTO;
		return -1;
	}
	return 1;
}
