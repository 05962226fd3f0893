/*
 * Unit tests for sandbox/waiting.c: a process of ours on a pty of its own
 * stands for the sandbox's command, this test for its init.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sandbox/waiting.h"

/* argv run on a new pty in a session of its own; its pid. */
static pid_t spawn_on_pty(char *const argv[], int *master)
{
	pid_t pid = forkpty(master, NULL, NULL, NULL);

	if (pid == 0) {
		execvp(argv[0], argv);
		_exit(127);
	}
	return pid;
}

/* Wait (10 s at most) for the answer to become want. */
static bool becomes(bool want)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };

	for (int i = 0; i < 1000; i++) {
		if (at_sandbox_waiting_for_input(getpid()) == want)
			return true;
		nanosleep(&ts, NULL);
	}
	return false;
}

static void stop(pid_t pid, int master)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(master);
}

static void test_waiting__reader_of_its_terminal_waits(void **state)
{
	char *const argv[] = { "cat", NULL };
	int master;
	pid_t pid = spawn_on_pty(argv, &master);

	(void)state;
	assert_true(pid > 0);
	assert_true(becomes(true));
	stop(pid, master);
	assert_false(at_sandbox_waiting_for_input(getpid()));
}

static void test_waiting__sleeper_does_not_wait(void **state)
{
	char *const argv[] = { "sleep", "30", NULL };
	int master, i;
	pid_t pid = spawn_on_pty(argv, &master);

	(void)state;
	assert_true(pid > 0);
	/* Asked many times while it sleeps: never waiting. */
	for (i = 0; i < 50; i++)
		assert_false(at_sandbox_waiting_for_input(getpid()));
	stop(pid, master);
}

static void test_waiting__busy_process_does_not_wait(void **state)
{
	char *const argv[] = { "sh", "-c", "while :; do :; done", NULL };
	int master;
	pid_t pid = spawn_on_pty(argv, &master);

	(void)state;
	assert_true(pid > 0);
	for (int i = 0; i < 50; i++)
		assert_false(at_sandbox_waiting_for_input(getpid()));
	stop(pid, master);
}

static void test_waiting__wchan_names(void **state)
{
	(void)state;
	assert_true(at_sandbox_waiting_wchan("n_tty_read"));
	assert_true(at_sandbox_waiting_wchan("wait_woken"));
	assert_true(at_sandbox_waiting_wchan("do_select"));
	assert_false(at_sandbox_waiting_wchan("hrtimer_nanosleep"));
	assert_false(at_sandbox_waiting_wchan("ep_poll"));
	assert_false(at_sandbox_waiting_wchan("0"));
	assert_false(at_sandbox_waiting_wchan(""));
	assert_false(at_sandbox_waiting_for_input(0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_waiting__reader_of_its_terminal_waits),
		cmocka_unit_test(test_waiting__sleeper_does_not_wait),
		cmocka_unit_test(test_waiting__busy_process_does_not_wait),
		cmocka_unit_test(test_waiting__wchan_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
