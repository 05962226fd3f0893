/*
 * Unit tests for gitfmt/dircache.c and git/dircache_store.c: the file is agenttask's own, but a damaged
 * one must be ignored or distrusted, never trusted by accident.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "git/dircache_store.h"

static void load_text(const char *text, struct at_dircache *c)
{
	char path[] = "/tmp/at-dircache-test.XXXXXX";
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	at_dircache_load(path, c);
	unlink(path);
}

/*
 * A record whose ctime is the largest number the file can hold: the check
 * "more than a second before the scan" computed ctime + 1, a signed overflow
 * (UBSan aborts; wrapped, it trusted the record). Found by reading while
 * writing fuzz_dircache, which reproduces it (corpus/dircache/regress-*).
 */
static void test_dircache__a_ctime_at_the_limit_is_not_trusted(void **state)
{
	struct at_dircache c;
	struct stat st;

	(void)state;
	load_text("agenttask-dircache 1\n5 0 1\n9223372036854775807 0 1 0 7 8 0 0\n\n", &c);
	assert_int_equal(c.n, 1);
	memset(&st, 0, sizeof(st));
	st.st_ctim.tv_sec = (time_t)9223372036854775807LL;
	st.st_mtim.tv_sec = 1;
	st.st_ino = 7;
	st.st_dev = 8;
	assert_null(at_dircache_trusted(&c, "", &st));
	at_dircache_free(&c);
}

/* The rule itself: trusted only when changed more than a second before the scan. */
static void test_dircache__trusted_only_a_second_before_the_scan(void **state)
{
	struct at_dircache c;
	struct stat st;

	(void)state;
	load_text("agenttask-dircache 1\n100 500 1\n98 600 98 600 7 8 0 0\n\n", &c);
	assert_int_equal(c.n, 1);
	memset(&st, 0, sizeof(st));
	st.st_ctim = (struct timespec){ 98, 600 };
	st.st_mtim = (struct timespec){ 98, 600 };
	st.st_ino = 7;
	st.st_dev = 8;
	assert_non_null(at_dircache_trusted(&c, "", &st));
	at_dircache_free(&c);
	load_text("agenttask-dircache 1\n100 500 1\n99 500 99 500 7 8 0 0\n\n", &c);
	st.st_ctim = st.st_mtim = (struct timespec){ 99, 500 };
	assert_null(at_dircache_trusted(&c, "", &st));
	at_dircache_free(&c);
	load_text("agenttask-dircache 1\n100 500 1\n99 499 99 499 7 8 0 0\n\n", &c);
	st.st_ctim = st.st_mtim = (struct timespec){ 99, 499 };
	assert_non_null(at_dircache_trusted(&c, "", &st));
	at_dircache_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dircache__a_ctime_at_the_limit_is_not_trusted),
		cmocka_unit_test(test_dircache__trusted_only_a_second_before_the_scan),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
