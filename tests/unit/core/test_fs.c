/* Unit tests for core/fs.c: removing trees without following links. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/fs.h"
#include "core/util.h"

struct fixture {
	char root[PATH_MAX];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char tmpl[] = "/tmp/at-test-fs.XXXXXX";

	if (!f || !mkdtemp(tmpl) || !realpath(tmpl, f->root))
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[2 * PATH_MAX + 64];

	/* Not at_rmtree: the code under test does not clean up after itself. */
	if (at_fmt(cmd, sizeof(cmd), "chmod -R u+rwx '%s' 2>/dev/null; rm -rf '%s'", f->root,
		   f->root) < 0 || system(cmd) != 0)
		return -1;
	free(f);
	return 0;
}

static void join(char *buf, const struct fixture *f, const char *rel)
{
	assert_int_equal(at_fmt(buf, PATH_MAX, "%s/%s", f->root, rel), 0);
}

static bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

static int put_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		return -1;
	if (at_write_all(fd, text, strlen(text)) < 0) {
		close(fd);
		return -1;
	}
	return close(fd);
}

static void test_fs__rmtree_removes_a_nested_tree(void **state)
{
	struct fixture *f = *state;
	struct at_error err = AT_ERROR_INIT;
	char top[PATH_MAX], deep[PATH_MAX], file[PATH_MAX];

	join(top, f, "tree");
	join(deep, f, "tree/a/b/c");
	assert_int_equal(at_mkdirs(deep, 0755, &err), 0);
	join(file, f, "tree/a/b/c/file");
	assert_int_equal(put_file(file, "x"), 0);
	join(file, f, "tree/top file");
	assert_int_equal(put_file(file, "y"), 0);
	join(file, f, "tree/a/.hidden");
	assert_int_equal(put_file(file, "z"), 0);
	assert_int_equal(at_rmtree(top, &err), 0);
	assert_false(exists(top));
	assert_true(exists(f->root));
}

static void test_fs__rmtree_of_a_missing_path_succeeds(void **state)
{
	struct fixture *f = *state;
	struct at_error err = AT_ERROR_INIT;
	char path[PATH_MAX];

	join(path, f, "nothing/here");
	assert_int_equal(at_rmtree(path, &err), 0);
	join(path, f, "nothing");
	assert_int_equal(at_rmtree(path, &err), 0);
	assert_int_equal(err.code, 0);
}

static void test_fs__rmtree_refuses_root_and_relative_names(void **state)
{
	struct at_error err = AT_ERROR_INIT;

	(void)state;
	assert_int_equal(at_rmtree("/", &err), AT_EUSAGE);
	at_error_clear(&err);
	assert_int_equal(at_rmtree("relative", &err), AT_EUSAGE);
	at_error_clear(&err);
	assert_int_equal(at_rmtree("/tmp/", &err), AT_EUSAGE);
	assert_true(exists("/tmp"));
}

/* Build a tree with read-only and inaccessible directories and remove it: 0 on success. */
static int readonly_tree_is_removed(const char *root)
{
	struct at_error err = AT_ERROR_INIT;
	char top[PATH_MAX], p[PATH_MAX];

	if (at_fmt(top, sizeof(top), "%s/ro", root) < 0 ||
	    at_fmt(p, sizeof(p), "%s/ro/a/b", root) < 0 || at_mkdirs(p, 0755, &err) < 0)
		return 1;
	if (at_fmt(p, sizeof(p), "%s/ro/a/b/file", root) < 0 || put_file(p, "x") < 0)
		return 2;
	if (at_fmt(p, sizeof(p), "%s/ro/a/b", root) < 0 || chmod(p, 0500) < 0)
		return 3;
	if (at_fmt(p, sizeof(p), "%s/ro/a", root) < 0 || chmod(p, 0000) < 0)
		return 4;
	if (chmod(top, 0555) < 0)
		return 5;
	if (at_rmtree(top, &err) < 0)
		return 6;
	return exists(top) ? 7 : 0;
}

static void test_fs__rmtree_removes_read_only_directories(void **state)
{
	struct fixture *f = *state;
	int status;
	pid_t pid;

	if (geteuid() != 0) {
		assert_int_equal(readonly_tree_is_removed(f->root), 0);
		return;
	}
	/* root ignores permissions: run it as an ordinary user so they bite. */
	assert_int_equal(chown(f->root, 65534, 65534), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (setgid(65534) < 0 || setuid(65534) < 0)
			_exit(100);
		_exit(readonly_tree_is_removed(f->root));
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 100)
		skip();  /* cannot become an ordinary user here (no uid 65534 mapped) */
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_fs__rmtree_does_not_follow_a_symlink_to_an_outside_directory(void **state)
{
	struct fixture *f = *state;
	struct at_error err = AT_ERROR_INIT;
	char outside[PATH_MAX], precious[PATH_MAX], top[PATH_MAX], link[PATH_MAX], p[PATH_MAX];

	join(outside, f, "outside");
	assert_int_equal(at_mkdirs(outside, 0755, &err), 0);
	join(precious, f, "outside/precious");
	assert_int_equal(put_file(precious, "keep me"), 0);
	join(top, f, "wt/sub");
	assert_int_equal(at_mkdirs(top, 0755, &err), 0);
	join(link, f, "wt/sub/home");
	assert_int_equal(symlink(outside, link), 0);
	join(link, f, "wt/file-link");
	assert_int_equal(symlink(precious, link), 0);
	join(link, f, "wt/dangling");
	assert_int_equal(symlink("/nonexistent/target", link), 0);

	join(top, f, "wt");
	assert_int_equal(at_rmtree(top, &err), 0);
	assert_false(exists(top));
	assert_true(exists(precious));
	join(p, f, "outside");
	assert_true(exists(p));
}

static void test_fs__rmtree_of_a_symlink_removes_only_the_link(void **state)
{
	struct fixture *f = *state;
	struct at_error err = AT_ERROR_INIT;
	char outside[PATH_MAX], precious[PATH_MAX], link[PATH_MAX];

	join(outside, f, "target");
	assert_int_equal(at_mkdirs(outside, 0755, &err), 0);
	join(precious, f, "target/precious");
	assert_int_equal(put_file(precious, "keep me"), 0);
	join(link, f, "link");
	assert_int_equal(symlink(outside, link), 0);
	assert_int_equal(at_rmtree(link, &err), 0);
	assert_false(exists(link));
	assert_true(exists(precious));
}

static void test_fs__rmtree_removes_a_plain_file(void **state)
{
	struct fixture *f = *state;
	struct at_error err = AT_ERROR_INIT;
	char file[PATH_MAX];

	join(file, f, "plain");
	assert_int_equal(put_file(file, "x"), 0);
	assert_int_equal(at_rmtree(file, &err), 0);
	assert_false(exists(file));
}

static void test_fs__mkdirs_creates_every_component_with_the_mode(void **state)
{
	struct fixture *f = *state;
	struct at_error err = AT_ERROR_INIT;
	char path[PATH_MAX], mid[PATH_MAX];
	struct stat st;
	mode_t old = umask(0);

	join(path, f, "m/n/o");
	assert_int_equal(at_mkdirs(path, 0700, &err), 0);
	umask(old);
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0700);
	join(mid, f, "m/n");
	assert_int_equal(stat(mid, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	/* Existing directories are fine. */
	assert_int_equal(at_mkdirs(path, 0700, &err), 0);
}

static void test_fs__mkdirs_fails_on_a_file_in_the_way_naming_it(void **state)
{
	struct fixture *f = *state;
	struct at_error err = AT_ERROR_INIT;
	char file[PATH_MAX], path[PATH_MAX];

	join(file, f, "blocker");
	assert_int_equal(put_file(file, "x"), 0);
	join(path, f, "blocker/below");
	assert_int_equal(at_mkdirs(path, 0755, &err), AT_ESYS);
	assert_non_null(strstr(err.msg, "blocker"));
}

/*
 * The attack: a command of the task still runs while its worktree is
 * removed, and swaps a directory the remover is about to act on for a
 * symbolic link to a host file (root's, when agenttask runs as root). The
 * old remover chmod'ed the directory by name, so the host file got the
 * directory's mode, setuid and setgid bits included. Here the swap is made
 * deterministic: the wrappers below (linked with -Wl,--wrap) make it just
 * before the remover's K-th system call that names "victim", for every K.
 * Whatever K, the host file keeps its mode and bytes, and the tree goes.
 */
int __real_openat(int dfd, const char *name, int flags, ...);
int __real_unlinkat(int dfd, const char *name, int flags);
int __real_fchmodat(int dfd, const char *name, mode_t mode, int flags);
int __real_fstatat(int dfd, const char *name, struct stat *st, int flags);
int __wrap_openat(int dfd, const char *name, int flags, ...);
int __wrap_unlinkat(int dfd, const char *name, int flags);
int __wrap_fchmodat(int dfd, const char *name, mode_t mode, int flags);
int __wrap_fstatat(int dfd, const char *name, struct stat *st, int flags);

static struct {
	int at;                  /* swap before this call naming "victim"; 0: never */
	int seen;
	char victim[PATH_MAX];   /* the directory swapped away */
	char target[PATH_MAX];   /* the host file the link points to */
} swap;

static void maybe_swap(const char *name)
{
	char away[PATH_MAX + 8];

	if (swap.at == 0 || strcmp(name, "victim") != 0 || ++swap.seen != swap.at)
		return;
	snprintf(away, sizeof(away), "%s.away", swap.victim);
	if (rename(swap.victim, away) < 0 || symlink(swap.target, swap.victim) < 0)
		swap.at = -1;  /* the victim was already gone: nothing to swap */
}

int __wrap_openat(int dfd, const char *name, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, int);
		va_end(ap);
	}
	maybe_swap(name);
	return __real_openat(dfd, name, flags, mode);
}

int __wrap_unlinkat(int dfd, const char *name, int flags)
{
	maybe_swap(name);
	return __real_unlinkat(dfd, name, flags);
}

int __wrap_fchmodat(int dfd, const char *name, mode_t mode, int flags)
{
	maybe_swap(name);
	return __real_fchmodat(dfd, name, mode, flags);
}

int __wrap_fstatat(int dfd, const char *name, struct stat *st, int flags)
{
	maybe_swap(name);
	return __real_fstatat(dfd, name, st, flags);
}

/* One swap before call k: "" when all held, else what went wrong. */
static void swap_once(const struct fixture *f, int k, char *what, size_t size)
{
	struct at_error err = AT_ERROR_INIT;
	char top[PATH_MAX], file[PATH_MAX];
	struct stat st;
	int rc;

	what[0] = '\0';
	join(top, f, "wt");
	join(swap.victim, f, "wt/victim");
	join(file, f, "wt/victim/inside");
	assert_int_equal(at_mkdirs(swap.victim, 0755, &err), 0);
	assert_int_equal(put_file(file, "x"), 0);
	/* A mode the remover must change: no write, setuid and setgid set. */
	assert_int_equal(chmod(swap.victim, 06555), 0);
	assert_int_equal(chmod(swap.target, 0600), 0);
	swap.seen = 0;
	swap.at = k;
	rc = at_rmtree(top, &err);
	swap.at = 0;
	assert_int_equal(stat(swap.target, &st), 0);
	if ((st.st_mode & 07777) != 0600 || !S_ISREG(st.st_mode) ||
	    st.st_size != (off_t)strlen("host bytes"))
		snprintf(what, size, "swap before call %d: the host file became mode %04o", k,
			 (unsigned)(st.st_mode & 07777));
	else if (rc != 0)
		snprintf(what, size, "swap before call %d: %s", k, err.msg);
	else if (exists(top))
		snprintf(what, size, "swap before call %d: the tree is still there", k);
	if (what[0]) {
		char cmd[PATH_MAX + 64];

		snprintf(cmd, sizeof(cmd), "chmod -R u+rwx '%s' 2>/dev/null", top);
		if (system(cmd) >= 0)
			at_rmtree(top, &err);
	}
}

static void test_fs__rmtree_never_acts_through_a_directory_swapped_for_a_link(void **state)
{
	struct fixture *f = *state;
	char what[512];
	int k, failures = 0;

	join(swap.target, f, "host-file");
	assert_int_equal(put_file(swap.target, "host bytes"), 0);
	for (k = 1; k <= 8; k++) {
		swap_once(f, k, what, sizeof(what));
		if (what[0]) {
			print_error("%s\n", what);
			failures++;
		}
	}
	assert_int_equal(failures, 0);
}

/* A chain of `depth` directories named `name` below dir; every 100th read-only. */
static void make_deep(int dir, int depth, const char *name)
{
	int fd = dup(dir), next, i;

	assert_true(fd >= 0);
	for (i = 0; i < depth; i++) {
		assert_int_equal(mkdirat(fd, name, 0755), 0);
		next = openat(fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		assert_true(next >= 0);
		if (i % 100 == 99)
			assert_int_equal(fchmod(fd, 0500), 0);
		close(fd);
		fd = next;
	}
	assert_int_equal(mkdirat(fd, "leaf", 0700), 0);
	close(fd);
}

/* In a child with at most max_fds descriptors: at_rmtree's result as an exit status. */
static int rmtree_with_fd_limit(const char *path, rlim_t max_fds)
{
	struct rlimit rl = { max_fds, max_fds };
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		struct at_error err = AT_ERROR_INIT;

		if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
			_exit(100);
		_exit(at_rmtree(path, &err) == 0 ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/*
 * A tree deeper than a path can name (1,100 levels of 8-letter names, 9,900
 * bytes): an agent that makes one must not make the task impossible to
 * remove. The remover neither needs the whole path nor one descriptor per
 * level: it works with `ulimit -n 1024`, and with 64.
 */
static void test_fs__rmtree_removes_a_tree_deeper_than_the_descriptor_limit(void **state)
{
	struct fixture *f = *state;
	struct at_error err = AT_ERROR_INIT;
	char top[PATH_MAX];
	rlim_t limits[] = { 1024, 64 };
	size_t i;

	for (i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
		AT_AUTOCLOSE int fd = -1;

		join(top, f, "deep");
		assert_int_equal(at_mkdirs(top, 0755, &err), 0);
		fd = open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		assert_true(fd >= 0);
		make_deep(fd, 1100, "dddddddd");
		assert_int_equal(rmtree_with_fd_limit(top, limits[i]), 0);
		assert_false(exists(top));
	}
}

/* Every test gets a fresh temporary directory. */
/* A file of n bytes written (not sparse), at rel below the fixture. */
static void write_file(const struct fixture *f, const char *rel, size_t n)
{
	char path[PATH_MAX], buf[4096];
	int fd;

	join(path, f, rel);
	memset(buf, 'x', sizeof(buf));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	while (n > 0) {
		size_t k = n < sizeof(buf) ? n : sizeof(buf);

		assert_int_equal(write(fd, buf, k), (ssize_t)k);
		n -= k;
	}
	assert_int_equal(fsync(fd), 0);
	close(fd);
}

static uint64_t usage_of(const struct fixture *f, const char *rel)
{
	struct at_error err = AT_ERROR_INIT;
	char path[PATH_MAX];
	uint64_t bytes = 0;

	join(path, f, rel);
	assert_int_equal(at_tree_usage(path, &bytes, &err), 0);
	return bytes;
}

/*
 * What: a home with files, a hard-linked file and a link to a big file
 * outside it. Must: the files' space counted, the linked file's once, the
 * link's target never (a link is never followed).
 */
static void test_fs__tree_usage_counts_blocks_hard_links_once_and_no_link_target(void **state)
{
	struct fixture *f = *state;
	char path[PATH_MAX], target[PATH_MAX];
	uint64_t empty, with_file, linked;

	assert_int_equal(mkdir(strcat(strcpy(path, f->root), "/home"), 0755), 0);
	empty = usage_of(f, "home");
	write_file(f, "home/a", 1 << 20);
	with_file = usage_of(f, "home");
	assert_true(with_file >= empty + (1 << 20));
	for (int i = 0; i < 8; i++) {
		join(path, f, "home/a");
		char rel[32];

		snprintf(rel, sizeof(rel), "home/link%d", i);
		join(target, f, rel);
		assert_int_equal(link(path, target), 0);
	}
	linked = usage_of(f, "home");
	assert_true(linked <= with_file + 4096);   /* the directory may grow a block */
	write_file(f, "big", 8 << 20);
	join(path, f, "big");
	join(target, f, "home/to-big");
	assert_int_equal(symlink(path, target), 0);
	assert_true(usage_of(f, "home") < linked + (1 << 20));
	assert_int_equal(usage_of(f, "missing"), 0);
}

/*
 * What: a task hides bytes where the count cannot reach: a FIFO (opening
 * it would block), a tree deeper than the walk goes, a directory it cannot
 * list. Must: the FIFO is counted, never opened; the others are refused
 * (AT_EUNSAFE naming the place), never passed as smaller than they are.
 */
static void test_fs__tree_usage_refuses_what_it_cannot_measure(void **state)
{
	struct fixture *f = *state;
	struct at_error err = AT_ERROR_INIT;
	char path[PATH_MAX];
	uint64_t bytes;
	int i;

	join(path, f, "fifo");
	assert_int_equal(mkfifo(path, 0644), 0);
	assert_int_equal(at_tree_usage(f->root, &bytes, &err), 0);
	join(path, f, "deep");
	for (i = 0; i <= AT_USAGE_DEPTH; i++) {
		assert_int_equal(mkdir(path, 0755), 0);
		assert_true(strlen(path) + 3 < sizeof(path));
		strcat(path, "/d");
	}
	assert_int_equal(at_tree_usage(f->root, &bytes, &err), AT_EUNSAFE);
	assert_non_null(strstr(err.msg, "too deep"));
	assert_non_null(strstr(err.msg, "'deep/d/d"));
	if (geteuid() == 0)
		return;   /* root lists any directory */
	err = (struct at_error)AT_ERROR_INIT;
	join(path, f, "deep");
	assert_int_equal(at_rmtree(path, &err), 0);
	join(path, f, "closed");
	assert_int_equal(mkdir(path, 0), 0);
	assert_int_equal(at_tree_usage(f->root, &bytes, &err), AT_EUNSAFE);
	assert_non_null(strstr(err.msg, "'closed'"));
}

#define TEST(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(test_fs__rmtree_removes_a_nested_tree),
		TEST(test_fs__rmtree_of_a_missing_path_succeeds),
		TEST(test_fs__rmtree_refuses_root_and_relative_names),
		TEST(test_fs__rmtree_removes_read_only_directories),
		TEST(test_fs__rmtree_does_not_follow_a_symlink_to_an_outside_directory),
		TEST(test_fs__rmtree_of_a_symlink_removes_only_the_link),
		TEST(test_fs__rmtree_removes_a_plain_file),
		TEST(test_fs__rmtree_never_acts_through_a_directory_swapped_for_a_link),
		TEST(test_fs__rmtree_removes_a_tree_deeper_than_the_descriptor_limit),
		TEST(test_fs__mkdirs_creates_every_component_with_the_mode),
		TEST(test_fs__mkdirs_fails_on_a_file_in_the_way_naming_it),
		TEST(test_fs__tree_usage_counts_blocks_hard_links_once_and_no_link_target),
		TEST(test_fs__tree_usage_refuses_what_it_cannot_measure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
