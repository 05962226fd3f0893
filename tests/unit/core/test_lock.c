/* Unit tests for core/lock.c: the repository lock every mutating command holds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/fs.h"
#include "core/lock.h"

#include "tests/unit/fixture.h"

/* In a child: at_lock_try's result, as an exit status (0 taken, 1 held, 2 other). */
static int child_try(const struct at_paths *p)
{
	pid_t pid = fork();
	int status;

	assert_true(pid >= 0);
	if (pid == 0) {
		struct at_error err = AT_ERROR_INIT;
		int fd = -1;
		int rc = at_lock_try(p, &fd, &err);

		_exit(rc == 0 ? 0 : rc == AT_EBUSY && strstr(err.msg, "lock") ? 1 : 2);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static void test_lock__acquire_creates_the_state_directory_and_lock_file(void **state)
{
	struct fixture *f = *state;
	struct at_error err = AT_ERROR_INIT;
	struct stat st;
	int fd = -1;

	assert_int_equal(at_lock_acquire(&f->paths, &fd, &err), 0);
	assert_true(fd >= 0);
	assert_int_equal(stat(f->paths.lock_file, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(stat(f->paths.state_dir, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	at_lock_release(fd);
}

static void test_lock__descriptor_is_close_on_exec(void **state)
{
	struct fixture *f = *state;
	struct at_error err = AT_ERROR_INIT;
	int fd = -1;

	assert_int_equal(at_lock_acquire(&f->paths, &fd, &err), 0);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	at_lock_release(fd);
}

static void test_lock__try_from_another_process_reports_held(void **state)
{
	struct fixture *f = *state;
	struct at_error err = AT_ERROR_INIT;
	int fd = -1;

	assert_int_equal(at_lock_acquire(&f->paths, &fd, &err), 0);
	assert_int_equal(child_try(&f->paths), 1);
	at_lock_release(fd);
	assert_int_equal(child_try(&f->paths), 0);
}

static void test_lock__try_in_the_same_process_reports_held(void **state)
{
	struct fixture *f = *state;
	struct at_error err = AT_ERROR_INIT;
	int fd = -1, fd2 = -1;

	assert_int_equal(at_lock_try(&f->paths, &fd, &err), 0);
	assert_int_equal(at_lock_try(&f->paths, &fd2, &err), AT_EBUSY);
	assert_int_equal(fd2, -1);
	assert_non_null(strstr(err.msg, f->paths.lock_file));
	at_lock_release(fd);
}

static void test_lock__acquire_blocks_until_the_holder_releases(void **state)
{
	struct fixture *f = *state;
	struct at_error err = AT_ERROR_INIT;
	struct pollfd pfd;
	int pipefd[2], fd = -1, status;
	char byte;
	pid_t pid;

	assert_int_equal(at_lock_acquire(&f->paths, &fd, &err), 0);
	assert_int_equal(pipe2(pipefd, O_CLOEXEC), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct at_error e = AT_ERROR_INIT;
		int cfd = -1;

		/* The inherited descriptor shares the parent's lock: drop it. */
		close(fd);
		close(pipefd[0]);
		if (at_lock_acquire(&f->paths, &cfd, &e) < 0)
			_exit(2);
		_exit(write(pipefd[1], "L", 1) == 1 ? 0 : 3);
	}
	close(pipefd[1]);
	pfd.fd = pipefd[0];
	pfd.events = POLLIN;
	/* While the parent holds the lock the child must not get it. */
	assert_int_equal(poll(&pfd, 1, 300), 0);
	at_lock_release(fd);
	assert_int_equal(poll(&pfd, 1, 10000), 1);
	assert_int_equal(read(pipefd[0], &byte, 1), 1);
	assert_int_equal(byte, 'L');
	close(pipefd[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void test_lock__dies_with_its_holder(void **state)
{
	struct fixture *f = *state;
	struct at_error err = AT_ERROR_INIT;
	int pipefd[2], fd = -1, status;
	char byte;
	pid_t pid;

	assert_int_equal(pipe2(pipefd, O_CLOEXEC), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct at_error e = AT_ERROR_INIT;
		int cfd = -1;

		close(pipefd[0]);
		if (at_lock_acquire(&f->paths, &cfd, &e) < 0 || write(pipefd[1], "L", 1) != 1)
			_exit(2);
		pause();
		_exit(0);
	}
	close(pipefd[1]);
	assert_int_equal(read(pipefd[0], &byte, 1), 1);
	close(pipefd[0]);
	assert_int_equal(at_lock_try(&f->paths, &fd, &err), AT_EBUSY);
	at_error_clear(&err);
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	/* No stale lock after a crash: the kernel dropped it. */
	assert_int_equal(at_lock_try(&f->paths, &fd, &err), 0);
	at_lock_release(fd);
}

/*
 * -1 is "no lock": releasing it closes nothing (a held lock stays held, the
 * descriptors around it stay open) and leaves errno alone; releasing the
 * real descriptor then frees the lock for another process.
 */
static void test_lock__release_of_minus_one_closes_nothing(void **state)
{
	struct fixture *f = *state;
	struct at_error err = AT_ERROR_INIT;
	int fd = -1, other = open("/dev/null", O_RDONLY | O_CLOEXEC);

	assert_true(other >= 0);
	assert_int_equal(at_lock_acquire(&f->paths, &fd, &err), 0);
	errno = EXDEV;
	at_lock_release(-1);
	assert_int_equal(errno, EXDEV);
	assert_true(fcntl(fd, F_GETFD) >= 0);
	assert_true(fcntl(other, F_GETFD) >= 0);
	assert_int_equal(child_try(&f->paths), 1);
	at_lock_release(fd);
	assert_int_equal(fcntl(fd, F_GETFD), -1);
	assert_int_equal(child_try(&f->paths), 0);
	close(other);
}

static void test_lock__unusable_state_directory_is_an_error(void **state)
{
	struct fixture *f = *state;
	struct at_error err = AT_ERROR_INIT;
	int fd = -1;

	/* A file where the state directory should be. */
	assert_int_equal(close(open(f->paths.state_dir, O_CREAT | O_WRONLY | O_CLOEXEC, 0600)), 0);
	assert_true(at_lock_acquire(&f->paths, &fd, &err) < 0);
	assert_int_equal(fd, -1);
	assert_non_null(strstr(err.msg, f->paths.state_dir));
}

/* Every test gets a fresh temporary directory. */
#define TEST(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(test_lock__acquire_creates_the_state_directory_and_lock_file),
		TEST(test_lock__descriptor_is_close_on_exec),
		TEST(test_lock__try_from_another_process_reports_held),
		TEST(test_lock__try_in_the_same_process_reports_held),
		TEST(test_lock__acquire_blocks_until_the_holder_releases),
		TEST(test_lock__dies_with_its_holder),
		TEST(test_lock__release_of_minus_one_closes_nothing),
		TEST(test_lock__unusable_state_directory_is_an_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
