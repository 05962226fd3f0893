/*
 * fuzz.c - the helpers every harness links (fuzz.h).
 */
#include "tests/fuzz/fuzz.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void at_fuzz_fail(const char *what, const char *file, int line)
{
	fprintf(stderr, "%s:%d: check failed: %s\n", file, line, what);
	abort();
}

void at_fuzz_check_error(int rc, const struct at_error *err)
{
	AT_FUZZ_CHECK(rc < 0 && err->code == rc);
	AT_FUZZ_CHECK(err->msg[0] != '\0' && memchr(err->msg, '\0', sizeof(err->msg)));
}

char *at_fuzz_strndup(const void *data, size_t size)
{
	char *s = malloc(size + 1);

	if (s) {
		memcpy(s, data, size);
		s[size] = '\0';
	}
	return s;
}

uint8_t at_fuzz_take_byte(struct at_fuzz_input *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

struct at_fuzz_input at_fuzz_take_until(struct at_fuzz_input *in, uint8_t sep)
{
	const uint8_t *end = memchr(in->p, sep, in->n);
	struct at_fuzz_input part = { in->p, end ? (size_t)(end - in->p) : in->n };

	in->p += part.n + (end ? 1 : 0);
	in->n -= part.n + (end ? 1 : 0);
	return part;
}

static char tmpdir[PATH_MAX];

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

/* Self-contained, so that a harness links only the modules it tests. */
static void remove_tmpdir(void)
{
	if (tmpdir[0])
		nftw(tmpdir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

const char *at_fuzz_tmpdir(void)
{
	const char *base = getenv("TMPDIR");

	if (tmpdir[0])
		return tmpdir;
	snprintf(tmpdir, sizeof(tmpdir), "%s/at-fuzz.XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		abort();
	}
	atexit(remove_tmpdir);
	return tmpdir;
}

void at_fuzz_write_file(const char *path, const void *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	const char *p = data;

	while (fd >= 0 && size > 0) {
		ssize_t n = write(fd, p, size);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		p += n;
		size -= (size_t)n;
	}
	if (fd < 0 || size > 0 || close(fd) < 0) {
		perror(path);
		abort();
	}
}
