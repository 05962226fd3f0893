/*
 * child_pty.c - the init's side of an interactive run's pty (pty.c has the
 * whole story): made in the sandbox's own devpts after pivot_root, its
 * master sent to the supervisor, its slave kept for the command.
 * Async-signal-safe: see child.h.
 */
#include "sandbox/child.h"
#include "sandbox/fdpass.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int at_sb_pty_make(struct at_sb_stdio_child *cs)
{
	int master, slave, unlock = 0, saved;

	master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (master < 0)
		return -1;
	slave = -1;
	if (ioctl(master, TIOCSPTLCK, &unlock) == 0)
		slave = ioctl(master, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (slave >= 0 && cs->have_tio && tcsetattr(slave, TCSANOW, &cs->tio) < 0)
		goto fail;
	if (slave >= 0 && cs->have_ws && ioctl(slave, TIOCSWINSZ, &cs->ws) < 0)
		goto fail;
	if (slave < 0 || at_fd_send(cs->sock, 'm', master) < 0)
		goto fail;
	close(master);
	close(cs->sock);
	cs->sock = -1;
	/* Above 2: the command's dup2 onto 0..2 must not clobber it. */
	if (slave <= 2) {
		int hi = fcntl(slave, F_DUPFD_CLOEXEC, 3);

		close(slave);
		slave = hi;
	}
	cs->slave = slave;
	return slave < 0 ? -1 : 0;
fail:
	saved = errno;
	if (slave >= 0)
		close(slave);
	close(master);
	errno = saved;
	return -1;
}
