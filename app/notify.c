/*
 * notify.c - `run --notify` (or "notify": true in a run configuration): the
 * person is told when the run ends, and when an interactive run starts
 * waiting for input (sandbox/waiting.h).
 *
 * Two ways, both the person's: the front end's tell() (the CLI rings the
 * terminal's bell and writes an OSC 9 / OSC 777 notification on stderr when
 * it is a terminal), and the user's config.json's notify_command (never a
 * repository's: app/runconf.c), run with three arguments added: the task,
 * the state ("waiting" or "exited") and the exit status ("" while waiting).
 * No shell: argv as written, then those; the task's name is a checked name
 * (core/name.h) and the others are ours. Its stdin and stdout are
 * /dev/null, its stderr the caller's.
 *
 * A watcher thread, started once the init is cloned, asks every
 * POLL_MS whether the run waits for input, and tells once when it has
 * waited on two asks in a row (a read between two keystrokes is short);
 * again only after it stopped waiting. The end is told by the run itself,
 * after the thread is joined: "exited" is always the last.
 */
#include "app/internal.h"
#include "core/util.h"
#include "sandbox/waiting.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define POLL_MS 250
#define WAIT_CHILD_MS 10000

void at_app_notify_init(struct at_app_notify *n)
{
	memset(n, 0, sizeof(*n));
	n->stop[0] = n->stop[1] = -1;
	pthread_mutex_init(&n->lock, NULL);
}

/* Is name an executable file: a path, or found in PATH (path_env)? */
static bool findable(const char *name, const char *path_env)
{
	char buf[PATH_MAX];
	const char *p, *end;
	struct stat st;

	if (strchr(name, '/'))
		return stat(name, &st) == 0 && S_ISREG(st.st_mode) && access(name, X_OK) == 0;
	for (p = path_env ? path_env : "/usr/bin:/bin"; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, ':');
		if (at_fmt(buf, sizeof(buf), "%.*s/%s", (int)(end - p), p[0] == ':' ? "." : p,
			   name) == 0 &&
		    stat(buf, &st) == 0 && S_ISREG(st.st_mode) && access(buf, X_OK) == 0)
			return true;
	}
	return false;
}

int at_app_notify_prepare(struct at_app_notify *n, const struct at_app *app, const char *task,
			  const struct at_strlist *command, struct at_error *err)
{
	const char *path = NULL;
	char esc[200];

	for (size_t i = 0; app->environ && app->environ[i]; i++)
		if (strncmp(app->environ[i], "PATH=", 5) == 0)
			path = app->environ[i] + 5;
	if (command->n && !findable(command->v[0], path))
		return at_error_set(err, AT_EUSAGE, "notify_command '%s' of your config.json is "
				    "not found", at_esc(esc, sizeof(esc), command->v[0]));
	if (at_strlist_push_all(&n->argv, command) < 0)
		return at_error_set(err, AT_ESYS, "out of memory");
	snprintf(n->task, sizeof(n->task), "%s", task);
	n->environ = app->environ;
	n->on = true;
	return 0;
}

/* Tell the front end, and run the user's command; under n->lock. */
static void fire(struct at_app_notify *n, const char *state, int status)
{
	char code[16] = "";
	char *argv[AT_RUNCONF_MAX_ITEMS + 4];
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none;
	size_t i, k = 0;
	pid_t pid;

	if (status >= 0)
		snprintf(code, sizeof(code), "%d", status);
	if (n->tell)
		n->tell(n->task, state, status, n->tell_arg);
	if (!n->argv.n || n->nchildren == AT_APP_NOTIFY_CHILDREN)
		return;
	for (i = 0; i < n->argv.n && k < AT_RUNCONF_MAX_ITEMS; i++)
		argv[k++] = n->argv.v[i];
	argv[k++] = n->task;
	argv[k++] = (char *)state;
	argv[k++] = code;
	argv[k] = NULL;
	/* Not the signal mask of the run's supervision (app/run.c blocks the forwarded signals). */
	sigemptyset(&none);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	if (posix_spawnp(&pid, argv[0], &fa, &attr, argv, n->environ) == 0)
		n->children[n->nchildren++] = pid;
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
}

static void *watch(void *arg)
{
	struct at_app_notify *n = arg;
	struct pollfd p = { .fd = n->stop[0], .events = POLLIN };
	int seen = 0;

	for (;;) {
		int rc = poll(&p, 1, POLL_MS);

		if (rc > 0 || (rc < 0 && errno != EINTR))
			break;
		if (rc < 0)
			continue;
		if (!at_sandbox_waiting_for_input(__atomic_load_n(&n->init_pid, __ATOMIC_RELAXED))) {
			seen = 0;
			continue;
		}
		if (++seen == 2) {
			pthread_mutex_lock(&n->lock);
			fire(n, "waiting", -1);
			pthread_mutex_unlock(&n->lock);
		}
	}
	return NULL;
}

void at_app_notify_started(struct at_app_notify *n, int init_pid)
{
	if (!n->on)
		return;
	/* A run tried again (git read-only: app/run.c) has a new init: watched from now on. */
	__atomic_store_n(&n->init_pid, init_pid, __ATOMIC_RELAXED);
	if (n->thread_started)
		return;
	if (pipe2(n->stop, O_CLOEXEC) < 0)
		return;
	n->thread_started = pthread_create(&n->thread, NULL, watch, n) == 0;
}

/* Wait for the commands run, WAIT_CHILD_MS at most in all; the late ones are killed. */
static void reap(struct at_app_notify *n)
{
	int64_t deadline = at_mono_ms() + WAIT_CHILD_MS;
	struct timespec ts = { 0, 10 * 1000 * 1000 };

	for (size_t i = 0; i < n->nchildren; i++) {
		while (waitpid(n->children[i], NULL, WNOHANG) == 0) {
			if (at_mono_ms() > deadline) {
				kill(n->children[i], SIGKILL);
				waitpid(n->children[i], NULL, 0);
				break;
			}
			nanosleep(&ts, NULL);
		}
	}
	n->nchildren = 0;
}

void at_app_notify_end(struct at_app_notify *n, int exit_code)
{
	if (!n->on)
		return;
	if (n->thread_started) {
		(void)!write(n->stop[1], "x", 1);
		pthread_join(n->thread, NULL);
		n->thread_started = false;
	}
	pthread_mutex_lock(&n->lock);
	fire(n, "exited", exit_code);
	pthread_mutex_unlock(&n->lock);
	reap(n);
	n->on = false;
}

void at_app_notify_release(struct at_app_notify *n)
{
	if (!n)
		return;
	if (n->thread_started) {
		(void)!write(n->stop[1], "x", 1);
		pthread_join(n->thread, NULL);
	}
	reap(n);
	if (n->stop[0] >= 0) {
		close(n->stop[0]);
		close(n->stop[1]);
	}
	at_strlist_release(&n->argv);
	pthread_mutex_destroy(&n->lock);
}
