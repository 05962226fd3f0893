/*
 * child_exec.c - the command's process, started by the sandbox's init
 * (child_init.c): its session, descriptors and rlimits, the seccomp filter
 * last, then execve. Async-signal-safe: see child.h.
 */
#include "sandbox/child.h"

#include <errno.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/util.h"

/* execvp without malloc: look file up in PATH; returns the errno to report. */
static int exec_path(const struct at_sb_child *c)
{
	const char *file = c->argv[0], *p = c->path_env;
	size_t flen = strlen(file);
	char buf[4096];
	bool eacces = false;

	if (strchr(file, '/')) {
		execve(file, c->argv, c->envp);
		return errno;
	}
	while (p) {
		const char *colon = strchr(p, ':');
		size_t dlen = colon ? (size_t)(colon - p) : strlen(p);

		if (dlen + flen + 2 <= sizeof(buf)) {
			memcpy(buf, p, dlen);
			if (dlen == 0)
				buf[dlen++] = '.';
			buf[dlen] = '/';
			memcpy(buf + dlen + 1, file, flen + 1);
			execve(buf, c->argv, c->envp);
			if (errno == EACCES)
				eacces = true;
			else if (errno != ENOENT && errno != ENOTDIR && errno != ELOOP &&
				 errno != ENAMETOOLONG)
				return errno;
		}
		p = colon ? colon + 1 : NULL;
	}
	return eacces ? EACCES : ENOENT;
}

/*
 * The command's process, forked by the init: new session (no controlling
 * terminal to inject into, or the pty's slave as its own), its stdio
 * (stdio.c), its output, inherited descriptors marked
 * close-on-exec, the rlimits, and the seccomp filter last, right before
 * execve, so that nothing of the setup runs under it.
 */
void at_sb_command_exec(struct at_sb_child *c, int64_t *t)
{
	int i, which = 0, e;

	for (i = 0; at_sb_forwarded[i]; i++)
		signal(at_sb_forwarded[i], SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	if (sigprocmask(SIG_SETMASK, c->saved_mask, NULL) < 0) {
		at_sb_report_fail(c->report_fd, AT_STEP_SIGNALS, errno, NULL, t);
		_exit(AT_RUN_SETUP);
	}
	if (setsid() < 0) {
		at_sb_report_fail(c->report_fd, AT_STEP_SETSID, errno, NULL, t);
		_exit(AT_RUN_SETUP);
	}
	if (c->stdio.pty && ioctl(c->stdio.slave, TIOCSCTTY, 0) < 0) {
		at_sb_report_fail(c->report_fd, AT_STEP_CTTY, errno, NULL, t);
		_exit(AT_RUN_SETUP);
	}
	for (i = 0; i <= 2; i++) {
		int fd = c->stdio.mode[i] == SB_FD_PTY ? c->stdio.slave : c->stdio.fd[i];

		if (c->stdio.mode[i] != SB_FD_PASS && dup2(fd, i) < 0) {
			at_sb_report_fail(c->report_fd, AT_STEP_FDS, errno, NULL, t);
			_exit(AT_RUN_SETUP);
		}
	}
	if ((c->out_fd >= 0 && dup2(c->out_fd, 1) < 0) ||
	    (c->err_fd >= 0 && dup2(c->err_fd, 2) < 0) ||
	    close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) < 0) {
		at_sb_report_fail(c->report_fd, AT_STEP_FDS, errno, NULL, t);
		_exit(AT_RUN_SETUP);
	}
	if (at_sb_rlimits_apply(c, &which) < 0) {
		at_sb_report_fail(c->report_fd, AT_STEP_RLIMIT, errno,
				  at_limit_name((enum at_limit)which), t);
		_exit(AT_RUN_SETUP);
	}
	/* Read by the init once we have called execve (our memory is its). */
	t[AT_STEP_EXEC] = at_mono_ns();
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &c->seccomp) < 0) {
		at_sb_report_fail(c->report_fd, AT_STEP_SECCOMP, errno, NULL, t);
		_exit(AT_RUN_SETUP);
	}
	e = exec_path(c);
	at_sb_report_send(c->report_fd, SB_REPORT_EXEC, AT_STEP_EXEC, e, -1, c->argv[0], NULL);
	_exit(e == ENOENT ? AT_RUN_NOT_FOUND : AT_RUN_CANNOT_EXEC);
}

