/*
 * pager.c - the pager of diff and log, started as git starts its own.
 *
 * Which program: GIT_PAGER, else the repository's core.pager, else PAGER,
 * else less; "" or "cat" means none. It runs as `sh -c CMD`, as git runs it
 * (the value is a command line of the user's own configuration: the task's
 * worktree cannot set any of them), with LESS=FRX and LV=-c unless they are
 * set: quit when it fits one screen, pass colours, leave the screen alone.
 *
 * The pager gets stdout (and stderr when that is the same terminal) through
 * a pipe; at exit, agenttask closes its end and waits for the pager, so the
 * shell's prompt comes back after the pager has quit. Nothing here holds a
 * lock: diff and log take none while they print.
 */
#include "cmd/pager.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static bool disabled;
static pid_t pager_pid = -1;

void at_cli_pager_disable(void)
{
	disabled = true;
}

bool at_cli_stdout_tty(void)
{
	return pager_pid > 0 || isatty(STDOUT_FILENO);
}

/* The command to run, or NULL for none. */
static const char *pager_command(const char *core_pager)
{
	const char *p = getenv("GIT_PAGER");

	if (!p)
		p = core_pager;
	if (!p)
		p = getenv("PAGER");
	if (!p)
		p = "less";
	return p[0] && strcmp(p, "cat") != 0 ? p : NULL;
}

/* environ with LESS=FRX and LV=-c added where unset: made before fork, for execve. */
static char **pager_environ(void)
{
	size_t n = 0, i = 0;
	char **env;

	while (environ[n])
		n++;
	if (!(env = calloc(n + 3, sizeof(*env))))
		return NULL;
	for (; i < n; i++)
		env[i] = environ[i];
	if (!getenv("LESS"))
		env[i++] = (char *)"LESS=FRX";
	if (!getenv("LV"))
		env[i++] = (char *)"LV=-c";
	env[i] = NULL;
	return env;
}

/* Async-signal-safe: also the end of the signal handler below. */
static void close_and_wait(void)
{
	int status;

	/* The pager sees end of input only when every copy of the pipe is closed. */
	close(STDOUT_FILENO);
	close(STDERR_FILENO);
	while (waitpid(pager_pid, &status, 0) < 0 && errno == EINTR)
		;
	pager_pid = -1;
}

static void wait_for_pager(void)
{
	if (pager_pid <= 0)
		return;
	fflush(stdout);
	fflush(stderr);
	close_and_wait();
}

/*
 * Killed while the pager runs (^C, a closed terminal): the pager keeps the
 * terminal until it quits, so wait for it, as git does, then die of the signal.
 */
static void wait_then_die(int sig)
{
	if (pager_pid > 0)
		close_and_wait();
	signal(sig, SIG_DFL);
	raise(sig);
}

void at_cli_pager_start(const char *core_pager)
{
	const char *cmd = disabled || !isatty(STDOUT_FILENO) ? NULL : pager_command(core_pager);
	char *argv[] = { (char *)"sh", (char *)"-c", NULL, NULL };
	char **env;
	int fds[2];
	pid_t pid;

	if (!cmd || pager_pid > 0 || !(env = pager_environ()))
		return;
	argv[2] = (char *)cmd;
	if (pipe2(fds, O_CLOEXEC) < 0) {
		free(env);
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		/* Only async-signal-safe calls between fork and exec. */
		if (dup2(fds[0], STDIN_FILENO) < 0)
			_exit(127);
		execve("/bin/sh", argv, env);
		_exit(127);
	}
	free(env);
	close(fds[0]);
	if (pid < 0) {
		close(fds[1]);
		return;
	}
	if (isatty(STDERR_FILENO))
		dup2(fds[1], STDERR_FILENO);
	dup2(fds[1], STDOUT_FILENO);
	close(fds[1]);
	pager_pid = pid;
	atexit(wait_for_pager);
	signal(SIGINT, wait_then_die);
	signal(SIGTERM, wait_then_die);
	signal(SIGHUP, wait_then_die);
	signal(SIGQUIT, wait_then_die);
}
