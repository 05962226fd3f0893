/*
 * child_init.c - the sandbox's pid 1 once it is set up: it starts the
 * command in a new session, forwards the signals the supervisor passes on
 * to the command's process group, reaps every orphan, and when the command
 * exits kills whatever is left (daemons, setsid'd or double-forked
 * children: the run is over) before it reports the command's wait status,
 * with the step times, and exits. When pid 1 exits the kernel kills every
 * process of the namespace; pid 1 itself dies with the supervisor
 * (PR_SET_PDEATHSIG), so kill -9 of agenttask takes the whole sandbox with
 * it. Async-signal-safe: see child.h.
 */
#include "sandbox/child.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/util.h"

/* exec_path's buffer, a report, libc: far less; ASan's redzones included. */
#define COMMAND_STACK_SIZE (64 * 1024)

static void noop_handler(int sig)
{
	(void)sig;
}

struct command_arg {
	struct at_sb_child *c;
	int64_t *t_ns;
};

static int command_main(void *arg)
{
	struct command_arg *a = arg;

	at_sb_command_exec(a->c, a->t_ns);
}

/*
 * The command's process borrows the init's memory until its execve (the
 * CLONE_VM | CLONE_VFORK of posix_spawn): no page tables are copied, and the
 * init sleeps meanwhile, so nothing it holds changes under it. The command
 * runs on its own stack, a buffer in this frame, which stays untouched by
 * the sleeping init; it writes nothing of the init's memory but t_ns. It
 * gets its own copy of the signal handlers (no CLONE_SIGHAND) and of the
 * file descriptor table (no CLONE_FILES), so what it resets or closes
 * before execve is its own.
 */
static pid_t command_start(struct at_sb_child *c, int64_t *t_ns)
{
	char stack[COMMAND_STACK_SIZE] __attribute__((aligned(16)));
	struct command_arg arg = { c, t_ns };

	return (pid_t)clone(command_main, stack + sizeof(stack), CLONE_VM | CLONE_VFORK | SIGCHLD,
			    &arg);
}

void at_sb_init_run(struct at_sb_child *c, int64_t *t_ns)
{
	struct sigaction sa;
	struct at_sb_report rep;
	sigset_t set;
	int status = 0, i;
	pid_t cmd, p;

	/*
	 * The kernel drops signals to a pid 1 that has no handler for them.
	 * They stay blocked (since before clone) and are taken with
	 * sigwaitinfo(), but a handler makes sure they are delivered at all.
	 */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = noop_handler;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	for (i = 0; at_sb_forwarded[i]; i++) {
		sigaddset(&set, at_sb_forwarded[i]);
		sigaction(at_sb_forwarded[i], &sa, NULL);
	}
	sigaction(SIGCHLD, &sa, NULL);

	cmd = command_start(c, t_ns);
	if (cmd < 0) {
		at_sb_report_fail(c->report_fd, AT_STEP_FORK, errno, NULL, t_ns);
		_exit(AT_RUN_SETUP);
	}
	if (c->out_fd >= 0)
		close(c->out_fd);
	if (c->err_fd >= 0)
		close(c->err_fd);
	/* The command's pipe ends are its own; the pty's slave we keep (child_pty.c). */
	for (i = 0; i <= 2; i++) {
		if (c->stdio.mode[i] == SB_FD_PIPE && c->stdio.fd[i] >= 0 &&
		    (i != 2 || c->stdio.fd[2] != c->stdio.fd[1]))
			close(c->stdio.fd[i]);
	}

	for (;;) {
		int sig = sigwaitinfo(&set, NULL);
		bool done = false;

		if (sig < 0)
			continue;
		if (sig != SIGCHLD) {
			/* The command leads its own session and process group. */
			if (kill(-cmd, sig) < 0)
				kill(cmd, sig);
			continue;
		}
		while ((p = waitpid(-1, &i, WNOHANG)) > 0) {
			if (p == cmd) {
				status = i;
				done = true;
			}
		}
		if (done)
			break;
	}

	/* The command is done: so is everything it left behind. */
	kill(-1, SIGKILL);
	while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
		;
	t_ns[AT_STEP_EXITED] = at_mono_ns();
	/* One report at the end: the supervisor sleeps while the command runs. */
	memset(&rep, 0, sizeof(rep));
	rep.kind = SB_REPORT_EXIT;
	rep.status = status;
	memcpy(rep.t_ns, t_ns, sizeof(rep.t_ns));
	(void)!write(c->report_fd, &rep, sizeof(rep));
	/*
	 * With a cgroup, stay in it until the supervisor has read its counters
	 * (OOM kills, refused forks): the last process to leave a systemd
	 * scope makes systemd remove it. EOF: read, or the supervisor is gone.
	 */
	if (c->hold) {
		char byte;
		while (read(c->sync_fd, &byte, 1) < 0 && errno == EINTR)
			;
	}
	_exit(0);
}

