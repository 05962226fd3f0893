#include "core/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void at_freep(void *pp)
{
	free(*(void **)pp);
}

void at_closep(int *fd)
{
	if (*fd >= 0) {
		int saved = errno;
		close(*fd);
		errno = saved;
	}
}

int64_t at_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void at_time_iso(char *buf, size_t size, int64_t secs)
{
	time_t t = (time_t)secs;
	struct tm tm;

	if (!gmtime_r(&t, &tm) || strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(buf, size, "%lld", (long long)secs);
}

void at_time_iso_ms(char *buf, size_t size, int64_t ms)
{
	time_t t = (time_t)(ms / 1000);
	char base[AT_TIME_MAX];
	struct tm tm;

	if (!gmtime_r(&t, &tm) || strftime(base, sizeof(base), "%Y-%m-%dT%H:%M:%S", &tm) == 0)
		snprintf(buf, size, "%lld", (long long)ms);
	else
		snprintf(buf, size, "%s.%03dZ", base, (int)(ms % 1000));
}

int at_fmt(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

int at_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

char *at_read_file(const char *path, size_t max, size_t *len_out)
{
	AT_AUTOCLOSE int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

	return fd < 0 ? NULL : at_read_fd(fd, max, len_out);
}

char *at_read_fd(int fd, size_t max, size_t *len_out)
{
	struct stat st;
	char *buf;
	size_t len = 0;

	if (fstat(fd, &st) < 0)
		return NULL;
	if (!S_ISREG(st.st_mode)) {
		errno = EINVAL;
		return NULL;
	}
	if ((size_t)st.st_size > max) {
		errno = EFBIG;
		return NULL;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		return NULL;
	while (len < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + len, (size_t)st.st_size - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	if (len_out)
		*len_out = len;
	return buf;
}

static int write_replace(const char *path, const void *data, size_t len, unsigned int mode,
			 bool sync_data, bool sync_dir)
{
	char tmp[PATH_MAX], dir[PATH_MAX];
	char *slash;
	int fd, dfd, saved;

	if (at_fmt(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid()) < 0 ||
	    at_fmt(dir, sizeof(dir), "%s", path) < 0)
		return -1;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, (mode_t)mode);
	if (fd < 0)
		return -1;
	if (at_write_all(fd, data, len) < 0 || (sync_data && fsync(fd) < 0)) {
		saved = errno;
		close(fd);
		unlink(tmp);
		errno = saved;
		return -1;
	}
	if (close(fd) < 0 || rename(tmp, path) < 0) {
		saved = errno;
		unlink(tmp);
		errno = saved;
		return -1;
	}
	slash = strrchr(dir, '/');
	if (sync_dir && slash) {
		*(slash == dir ? slash + 1 : slash) = '\0';
		dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd >= 0) {
			fsync(dfd);
			close(dfd);
		}
	}
	return 0;
}

int at_write_atomic(const char *path, const void *data, size_t len, unsigned int mode)
{
	return write_replace(path, data, len, mode, true, true);
}

int at_write_synced(const char *path, const void *data, size_t len, unsigned int mode)
{
	return write_replace(path, data, len, mode, true, false);
}

int at_write_replace(const char *path, const void *data, size_t len, unsigned int mode)
{
	return write_replace(path, data, len, mode, false, false);
}

uint64_t at_hash_name(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}
