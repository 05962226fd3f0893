/*
 * netns.c - the loopback interface of a new network namespace.
 *
 * A new network namespace has only `lo`, and it is down. One ioctl brings it
 * up, so the command can still talk to itself (test servers on 127.0.0.1)
 * while it reaches nothing else. No `ip` program is run.
 */
#include "sandbox/internal.h"

#include <errno.h>
#include <net/if.h>
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
