/*
 * child_util.c - what every child-side file uses: the clock and the report
 * pipe. Async-signal-safe: no allocation, no stdio, no locks.
 */
#include "sandbox/child.h"

#include <string.h>
#include <time.h>
#include <unistd.h>

const int at_sb_forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH, 0 };

void at_sb_report_send(int fd, int kind, int step, int errnum, int status, const char *path,
		       const int64_t *t_ns)
{
	struct at_sb_report rep;
	size_t i = 0;

	memset(&rep, 0, sizeof(rep));
	rep.kind = kind;
	rep.step = step;
	rep.err = errnum;
	rep.status = status;
	if (t_ns)
		memcpy(rep.t_ns, t_ns, sizeof(rep.t_ns));
	while (path && path[i] && i < sizeof(rep.path) - 1) {
		rep.path[i] = path[i];
		i++;
	}
	(void)!write(fd, &rep, sizeof(rep));
}

void at_sb_report_fail(int fd, int step, int errnum, const char *path, const int64_t *t_ns)
{
	at_sb_report_send(fd, SB_REPORT_SETUP, step, errnum, -1, path, t_ns);
}
