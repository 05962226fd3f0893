/*
 * Unit tests for sandbox/seccomp.c: the compiled filter, loaded in a forked
 * child, refuses what the table says and lets the rest through.
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

#include "sandbox/internal.h"

/* Run fn in a child under the filter; its wait status. fn returns 0 or the failing line. */
static int under_filter(int (*fn)(void))
{
	struct at_error err = AT_ERROR_INIT;
	struct sock_fprog prog = { 0, NULL };
	int status = -1;
	pid_t pid;

	assert_int_equal(at_sb_seccomp_compile(&prog, &err), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0)
			_exit(100);
		_exit(fn());
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	at_sb_seccomp_release(&prog);
	return status;
}

#define EXPECT_ERRNO(call, e)                                                                      \
	do {                                                                                       \
		errno = 0;                                                                         \
		if ((call) != -1 || errno != (e))                                                  \
			return __LINE__;                                                 \
	} while (0)

static int denied_calls(void)
{
	char c = 'x';

	EXPECT_ERRNO(mount("none", "/tmp", "tmpfs", 0, NULL), EPERM);
	EXPECT_ERRNO(umount2("/tmp", MNT_DETACH), EPERM);
	EXPECT_ERRNO(syscall(SYS_pivot_root, ".", "."), EPERM);
	EXPECT_ERRNO(chroot("/"), EPERM);
	EXPECT_ERRNO(unshare(CLONE_NEWUSER), EPERM);
	EXPECT_ERRNO(setns(0, 0), EPERM);
	EXPECT_ERRNO(syscall(SYS_fsopen, "tmpfs", 0), EPERM);
	EXPECT_ERRNO(syscall(SYS_open_tree, AT_FDCWD, "/", 0), EPERM);
	EXPECT_ERRNO(syscall(SYS_move_mount, -1, "", -1, "", 0), EPERM);
	EXPECT_ERRNO(syscall(SYS_mount_setattr, -1, "", 0, NULL, 0), EPERM);
	EXPECT_ERRNO(syscall(SYS_keyctl, 0, 0, 0, 0, 0), EPERM);
	EXPECT_ERRNO(syscall(SYS_add_key, "user", "x", "y", 1, 0), EPERM);
	EXPECT_ERRNO(syscall(SYS_bpf, 0, NULL, 0), EPERM);
	EXPECT_ERRNO(syscall(SYS_perf_event_open, NULL, 0, -1, -1, 0), EPERM);
	EXPECT_ERRNO(syscall(SYS_userfaultfd, 0), EPERM);
	EXPECT_ERRNO(syscall(SYS_io_uring_setup, 1, NULL), EPERM);
	EXPECT_ERRNO(syscall(SYS_kexec_load, 0, 0, NULL, 0), EPERM);
	EXPECT_ERRNO(syscall(SYS_init_module, NULL, 0, ""), EPERM);
	EXPECT_ERRNO(syscall(SYS_finit_module, -1, "", 0), EPERM);
	EXPECT_ERRNO(syscall(SYS_delete_module, "x", 0), EPERM);
	EXPECT_ERRNO(syscall(SYS_open_by_handle_at, -1, NULL, 0), EPERM);
#ifdef SYS_iopl
	EXPECT_ERRNO(syscall(SYS_iopl, 0), EPERM);
	EXPECT_ERRNO(syscall(SYS_ioperm, 0, 0, 0), EPERM);
#endif
	EXPECT_ERRNO(syscall(SYS_swapon, "/nonexistent", 0), EPERM);
	EXPECT_ERRNO(syscall(SYS_reboot, 0, 0, 0, NULL), EPERM);
	EXPECT_ERRNO(syscall(SYS_acct, NULL), EPERM);
	EXPECT_ERRNO(syscall(SYS_settimeofday, NULL, NULL), EPERM);
	EXPECT_ERRNO(syscall(SYS_clock_settime, 0, NULL), EPERM);
	EXPECT_ERRNO(syscall(SYS_adjtimex, NULL), EPERM);
	EXPECT_ERRNO(syscall(SYS_syslog, 3, NULL, 0), EPERM);
	/* Only the low 32 bits of an ioctl request count. */
	EXPECT_ERRNO(ioctl(0, TIOCSTI, &c), EPERM);
	EXPECT_ERRNO(syscall(SYS_ioctl, 0, 0xdead00000000UL | TIOCSTI, &c), EPERM);
	EXPECT_ERRNO(syscall(SYS_ioctl, 0, TIOCLINUX, &c), EPERM);
	return 0;
}

static void test_seccomp__refuses_the_table_with_eperm(void **state)
{
	int st;

	(void)state;
	st = under_filter(denied_calls);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seccomp__refuses_the_table_with_eperm),
		cmocka_unit_test(test_seccomp__clone_with_namespace_flags_is_refused),
		cmocka_unit_test(test_seccomp__ordinary_calls_work),
		cmocka_unit_test(test_seccomp__x32_syscall_is_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
