/*
 * Unit tests for core/runs.c: a task's run lock, and stopping its runs. The
 * runs here are child processes that take the lock as `agenttask run` does;
 * one of them may fork a stand-in for the sandbox's init.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/runs.h"
#include "core/util.h"

#include "tests/unit/fixture.h"

struct child {
	pid_t pid;
	int ready;       /* read end: one byte once the child holds the run lock */
};

/*
 * A run of task "t": takes the lock, says so, and waits to be killed. With
 * an init, it forks one (which inherits the lock, as the sandbox's does),
 * records it, and exits 0 once the init is gone, as the supervisor does.
 */
static struct child start_run(const struct at_paths *p, bool with_init)
{
	struct child c;
	int fds[2];

	assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
	c.pid = fork();
	assert_true(c.pid >= 0);
	if (c.pid == 0) {
		struct at_run_lock l = AT_RUN_LOCK_INIT;
		struct at_error err = AT_ERROR_INIT;
		pid_t init;
		int fd;

		/* Not the test's guard: a copy of it would hold the lock against us. */
		for (fd = 3; fd < 1024; fd++)
			if (fd != fds[1])
				close(fd);
		if (at_runs_enter(p, "t", &l, &err) < 0)
			_exit(100);
		if (with_init) {
			if ((init = fork()) == 0) {
				for (;;)
					pause();
			}
			at_runs_note_init(&l, init);
			if (write(fds[1], "r", 1) != 1)
				_exit(101);
			waitpid(init, NULL, 0);
			at_runs_leave(&l);
			_exit(0);
		}
		if (write(fds[1], "r", 1) != 1)
			_exit(101);
		for (;;)
			pause();
	}
	close(fds[1]);
	c.ready = fds[0];
	return c;
}

static void wait_ready(struct child *c)
{
	char b;

	assert_int_equal(read(c->ready, &b, 1), 1);
	close(c->ready);
}

/* The child's end: "k" killed by SIGKILL, "0" exit 0, "?" anything else. */
static char ended(pid_t pid)
{
	int status;

	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
		return 'k';
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? '0' : '?';
}

static void test_runs__stop_refuses_while_a_run_holds_the_lock_naming_its_pid(void **state)
{
	struct fixture *f = *state;
	struct at_runs_guard g = AT_RUNS_GUARD_INIT;
	struct at_error err = AT_ERROR_INIT;
	struct child run = start_run(&f->paths, false);
	char want[64];

	wait_ready(&run);
	assert_int_equal(at_runs_stop(&f->paths, "t", false, &g, &err), AT_EBUSY);
	snprintf(want, sizeof(want), "(pid %d)", (int)run.pid);
	assert_non_null(strstr(err.msg, want));
	assert_non_null(strstr(err.msg, "task 't' has a running command"));
	assert_int_equal(g.fd, -1);
	assert_int_equal(waitpid(run.pid, NULL, WNOHANG), 0);   /* still running */
	kill(run.pid, SIGKILL);
	assert_int_equal(ended(run.pid), 'k');
	/* Over: the lock is free, and its stale record is swept. */
	at_error_clear(&err);
	assert_int_equal(at_runs_stop(&f->paths, "t", false, &g, &err), 0);
	at_runs_release(&g, true);
}

static void test_runs__force_kills_a_run_without_an_init_and_holds_new_runs_off(void **state)
{
	struct fixture *f = *state;
	struct at_runs_guard g = AT_RUNS_GUARD_INIT;
	struct at_error err = AT_ERROR_INIT;
	struct child run = start_run(&f->paths, false), next;
	struct pollfd pfd;

	wait_ready(&run);
	assert_int_equal(at_runs_stop(&f->paths, "t", true, &g, &err), 0);
	assert_int_equal(ended(run.pid), 'k');
	/* A run that starts now waits until the guard goes. */
	next = start_run(&f->paths, false);
	pfd.fd = next.ready;
	pfd.events = POLLIN;
	assert_int_equal(poll(&pfd, 1, 300), 0);
	at_runs_release(&g, false);
	wait_ready(&next);
	kill(next.pid, SIGKILL);
	assert_int_equal(ended(next.pid), 'k');
}

static void test_runs__force_kills_the_init_and_lets_the_supervisor_finish(void **state)
{
	struct fixture *f = *state;
	struct at_runs_guard g = AT_RUNS_GUARD_INIT;
	struct at_error err = AT_ERROR_INIT;
	struct child run = start_run(&f->paths, true);
	struct timespec t0, t1;

	wait_ready(&run);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(at_runs_stop(&f->paths, "t", true, &g, &err), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/* Its supervisor saw the init die, let go and exited by itself, before the grace. */
	assert_int_equal(ended(run.pid), '0');
	assert_true(t1.tv_sec - t0.tv_sec < 1 ||
		    (t1.tv_sec - t0.tv_sec == 1 && t1.tv_nsec < t0.tv_nsec));
	at_runs_release(&g, true);
}

/* Write a record "pid start init_pid init_start" for task t as the run of pid would. */
static void put_record(const struct fixture *f, pid_t pid, const char *line)
{
	char path[PATH_MAX];
	int fd;

	assert_int_equal(at_fmt(path, sizeof(path), "%s/runs/t.%d.run", f->paths.state_dir,
				(int)pid), 0);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, line, strlen(line)), (ssize_t)strlen(line));
	close(fd);
}

/* The start time the run of pid recorded for itself. */
static long long recorded_start(const struct fixture *f, pid_t pid)
{
	AT_AUTOFREE char *text = NULL;
	char path[PATH_MAX];
	long long start = -1;
	int got;

	assert_int_equal(at_fmt(path, sizeof(path), "%s/runs/t.%d.run", f->paths.state_dir,
				(int)pid), 0);
	text = at_read_file(path, 128, NULL);
	assert_non_null(text);
	assert_int_equal(sscanf(text, "%d %lld", &got, &start), 2);
	return start;
}

/*
 * The attack: records naming a pid that is now another process (recycled,
 * or pointing at a victim): a stale record of a run that died, and a live
 * run's record whose init pid is no longer its init. Must: --force never
 * signals the victim; only processes that started at the recorded time are.
 */
static void test_runs__force_never_signals_a_pid_whose_start_time_differs(void **state)
{
	struct fixture *f = *state;
	struct at_runs_guard g = AT_RUNS_GUARD_INIT;
	struct at_error err = AT_ERROR_INIT;
	struct child run = start_run(&f->paths, false);
	char line[96];
	pid_t victim = fork();

	assert_true(victim >= 0);
	if (victim == 0) {
		for (;;)
			pause();
	}
	wait_ready(&run);
	snprintf(line, sizeof(line), "%d 1 %d 1\n", (int)victim, (int)victim);
	put_record(f, victim, line);
	snprintf(line, sizeof(line), "%d %lld %d 1\n", (int)run.pid,
		 recorded_start(f, run.pid), (int)victim);
	put_record(f, run.pid, line);
	assert_int_equal(at_runs_stop(&f->paths, "t", true, &g, &err), 0);
	assert_int_equal(ended(run.pid), 'k');   /* its supervisor, after the grace */
	assert_int_equal(waitpid(victim, NULL, WNOHANG), 0);   /* untouched: still running */
	kill(victim, SIGKILL);
	assert_int_equal(ended(victim), 'k');
	at_runs_release(&g, true);
}

static void test_runs__sweep_removes_what_killed_runs_of_gone_tasks_left(void **state)
{
	struct fixture *f = *state;
	struct child run = start_run(&f->paths, false);
	char lock[PATH_MAX];

	wait_ready(&run);
	kill(run.pid, SIGKILL);
	assert_int_equal(ended(run.pid), 'k');
	/* Task "t" has no record: its lock file and the stale run record go. */
	assert_int_equal(at_runs_sweep(&f->paths), 2);
	assert_int_equal(at_fmt(lock, sizeof(lock), "%s/runs/t.lock", f->paths.state_dir), 0);
	assert_false(at_path_exists(lock));
}

#define TEST(f) cmocka_unit_test_setup_teardown(f, setup_ensured, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(test_runs__stop_refuses_while_a_run_holds_the_lock_naming_its_pid),
		TEST(test_runs__force_kills_a_run_without_an_init_and_holds_new_runs_off),
		TEST(test_runs__force_kills_the_init_and_lets_the_supervisor_finish),
		TEST(test_runs__force_never_signals_a_pid_whose_start_time_differs),
		TEST(test_runs__sweep_removes_what_killed_runs_of_gone_tasks_left),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
