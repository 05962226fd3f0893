/*
 * Unit tests for sandbox/seccomp.c: the compiled filter, loaded in a forked
 * child, refuses every row of its table and lets the rest through. The rows
 * are checked with an errno only the filter returns, so that no row passes
 * for want of a privilege (EPERM) when the test is not run as root.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <seccomp.h>
#include <string.h>

#include "sandbox/internal.h"

/*
 * Run fn in a child under the filter (errnum 0: the real one; else the one
 * that answers errnum for every refusal); its wait status. fn returns 0 or
 * the failing line. The child leads a session of its own: no terminal to
 * hang up (vhangup) should the filter ever let that through.
 */
static int under(int (*fn)(void), int errnum)
{
	struct at_error err = AT_ERROR_INIT;
	struct sock_fprog prog = { 0, NULL };
	int status = -1;
	pid_t pid;

	/* errnum 0: the program every run loads, as the build made it. */
	assert_int_equal(errnum ? at_sb_seccomp_compile_errno(&prog, errnum, &err)
				: at_sb_seccomp_builtin(&prog, &err), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (setsid() < 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0)
			_exit(100);
		_exit(fn());
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	at_sb_seccomp_release(&prog);
	return status;
}

static int under_filter(int (*fn)(void))
{
	return under(fn, 0);
}

#define EXPECT_ERRNO(call, e)                                                                      \
	do {                                                                                       \
		errno = 0;                                                                         \
		if ((call) != -1 || errno != (e))                                                  \
			return __LINE__;                                                 \
	} while (0)

/*
 * No system call returns this errno: the filter compiled with it for every
 * refusal (at_sb_seccomp_compile_errno) is the only thing that can. So a
 * row is proved by the call failing with it, which it cannot do without the
 * filter, whoever runs the test (root or not, capabilities or not).
 */
#define FILTER_ONLY_ERRNO 4000

/* Run fn under the filter that answers FILTER_ONLY_ERRNO; its wait status. */
static int under_marked_filter(int (*fn)(void))
{
	return under(fn, FILTER_ONLY_ERRNO);
}

/* ioctl's request is an int: junk in the upper 32 bits must not slip past. */
static int high_bits(void)
{
	char c = 'x';

	EXPECT_ERRNO(syscall(SYS_ioctl, 0, 0xdead00000000UL | TIOCSTI, &c), FILTER_ONLY_ERRNO);
	return 0;
}

static void test_seccomp__ioctl_requests_are_matched_on_their_low_32_bits(void **state)
{
	int st;

	(void)state;
	st = under_marked_filter(high_bits);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

/*
 * Every row of the table, called with the argument its rule matches (a row
 * that compares an argument gets exactly that value, all others zero).
 * Returns 0, or 1 + the index of the first row the filter did not refuse.
 * A clone that slipped through would leave a child: it exits at once.
 */
static int every_row(void)
{
	const struct at_sb_seccomp_row *rows;
	size_t n = at_sb_seccomp_rows(&rows), i;

	for (i = 0; i < n; i++) {
		long a[6] = { 0, 0, 0, 0, 0, 0 }, rc;
		int nr = seccomp_syscall_resolve_name(rows[i].syscall);

		if (nr < 0)
			continue;   /* not a system call of this architecture */
		if (rows[i].has_arg)
			a[rows[i].arg] = (long)rows[i].value;
		if (nr == SYS_clone && !rows[i].has_arg)
			return 1 + (int)i;
		errno = 0;
		rc = syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
		if (rc == 0 && nr == SYS_clone)
			_exit(0);
		if (rc != -1 || errno != FILTER_ONLY_ERRNO)
			return 1 + (int)i;
	}
	return 0;
}

static void test_seccomp__every_row_of_the_table_is_refused_by_the_filter(void **state)
{
	const struct at_sb_seccomp_row *rows;
	int st;

	(void)state;
	assert_true(at_sb_seccomp_rows(&rows) > 40);
	st = under_marked_filter(every_row);
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) != 0)
		fail_msg("row %d (%s) not refused by the filter", WEXITSTATUS(st) - 1,
			 rows[WEXITSTATUS(st) - 1].syscall);
}

/* The real filter's own errnos: EPERM for each row, ENOSYS for clone3. */
static int own_errnos(void)
{
	const struct at_sb_seccomp_row *rows;
	size_t n = at_sb_seccomp_rows(&rows), i;
	int seen = 0;

	for (i = 0; i < n; i++) {
		if (strcmp(rows[i].syscall, "clone3") == 0 && rows[i].errnum != ENOSYS)
			return 1;
		if (strcmp(rows[i].syscall, "clone3") != 0 && rows[i].errnum != EPERM)
			return 2;
		seen++;
	}
	/* And that the compiled filter returns them: clone3 is never a real ENOSYS here. */
	EXPECT_ERRNO(syscall(SYS_clone3, NULL, 0), ENOSYS);
	return seen ? 0 : 3;
}

static void test_seccomp__rows_answer_eperm_and_clone3_enosys(void **state)
{
	int st;

	(void)state;
	st = under_filter(own_errnos);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

static int clone_calls(void)
{
	pid_t p;
	int st;

	EXPECT_ERRNO(syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, NULL, NULL, NULL, 0), EPERM);
	EXPECT_ERRNO(syscall(SYS_clone, CLONE_NEWNS | SIGCHLD, NULL, NULL, NULL, 0), EPERM);
	EXPECT_ERRNO(syscall(SYS_clone, CLONE_NEWNET | SIGCHLD, NULL, NULL, NULL, 0), EPERM);
	/* clone3 cannot be inspected: ENOSYS, so libc falls back to clone. */
	EXPECT_ERRNO(syscall(SYS_clone3, NULL, 0), ENOSYS);
	/* Plain fork still works (glibc: clone without namespace flags). */
	p = fork();
	if (p == 0)
		_exit(7);
	if (p < 0 || waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st) != 7)
		return 2;
	return 0;
}

static void test_seccomp__clone_with_namespace_flags_is_refused(void **state)
{
	int st;

	(void)state;
	st = under_filter(clone_calls);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

static int allowed_calls(void)
{
	char buf[16];
	int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);

	if (fd < 0 || read(fd, buf, sizeof(buf)) <= 0 || close(fd) < 0)
		return 1;
	if (syscall(SYS_getpid) != getpid())
		return 2;
	return 0;
}

static void test_seccomp__ordinary_calls_work(void **state)
{
	int st;

	(void)state;
	st = under_filter(allowed_calls);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

static int x32_call(void)
{
	syscall(0x40000000 | SYS_getpid);
	return 3;
}

static void test_seccomp__x32_syscall_is_refused(void **state)
{
	int st;

	(void)state;
#ifdef __x86_64__
	st = under_filter(x32_call);
	/* Killed as a foreign ABI; never a successful getpid. */
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGSYS);
#else
	(void)st;
	skip();
#endif
}

/* The program built in is the policy's: the one libseccomp compiles from the table now. */
static void test_seccomp__the_built_in_program_is_the_one_compiled_now(void **state)
{
	struct at_error err = AT_ERROR_INIT;
	struct sock_fprog built = { 0, NULL }, now = { 0, NULL };

	(void)state;
	assert_int_equal(at_sb_seccomp_builtin(&built, &err), 0);
	assert_int_equal(at_sb_seccomp_compile(&now, &err), 0);
	assert_int_equal(built.len, now.len);
	assert_memory_equal(built.filter, now.filter, now.len * sizeof(now.filter[0]));
	at_sb_seccomp_release(&built);
	at_sb_seccomp_release(&now);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seccomp__the_built_in_program_is_the_one_compiled_now),
		cmocka_unit_test(test_seccomp__every_row_of_the_table_is_refused_by_the_filter),
		cmocka_unit_test(test_seccomp__rows_answer_eperm_and_clone3_enosys),
		cmocka_unit_test(test_seccomp__ioctl_requests_are_matched_on_their_low_32_bits),
		cmocka_unit_test(test_seccomp__clone_with_namespace_flags_is_refused),
		cmocka_unit_test(test_seccomp__ordinary_calls_work),
		cmocka_unit_test(test_seccomp__x32_syscall_is_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
