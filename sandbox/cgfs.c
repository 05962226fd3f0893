/*
 * cgfs.c - reading and writing the small files of procfs and cgroupfs, and
 * which cgroup hierarchy this is: what limits.c, cgroup2.c, scope.c and
 * doctor.c all need, below each of them (none calls back up).
 */
#include "sandbox/internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "core/util.h"

#define CG2_ROOT "/sys/fs/cgroup"

int at_sb_read_proc(const char *path, char *buf, size_t size)
{
	AT_AUTOCLOSE int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	size_t len = 0;

	/* procfs reports st_size 0: read until EOF. */
	if (fd < 0 || size == 0)
		return -1;
	while (len < size - 1) {
		ssize_t n = read(fd, buf + len, size - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	return 0;
}

int at_sb_cg_write(const char *dir, const char *name, const char *value)
{
	char path[640];
	AT_AUTOCLOSE int fd = -1;

	if (at_fmt(path, sizeof(path), "%s/%s", dir, name) < 0)
		return -1;
	fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	return at_write_all(fd, value, strlen(value));
}

int64_t at_sb_cg_key(const char *path, const char *key)
{
	char text[1024], *line, *save = NULL;
	size_t n = strlen(key);

	if (at_sb_read_proc(path, text, sizeof(text)) < 0)
		return -1;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, key, n) == 0 && line[n] == ' ')
			return strtoll(line + n + 1, NULL, 10);
	}
	return -1;
}

bool at_sb_cg2_unified(void)
{
	struct statfs sf;

	return statfs(CG2_ROOT, &sf) == 0 && sf.f_type == CGROUP2_SUPER_MAGIC;
}

int at_sb_cg2_of(int pid, char *buf, size_t size)
{
	char path[64], text[4096], *line, *save = NULL;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", pid);
	if (at_sb_read_proc(path, text, sizeof(text)) < 0)
		return -1;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "0::/", 4) == 0)
			return at_fmt(buf, size, "%s", line + 3);
	}
	errno = ENOENT;
	return -1;
}

bool at_sb_cg_orphan(const struct dirent *e, const char *prefix)
{
	size_t n = strlen(prefix);
	char *end;
	long pid;

	if (e->d_type != DT_DIR || strncmp(e->d_name, prefix, n) != 0)
		return false;
	pid = strtol(e->d_name + n, &end, 10);
	if (pid <= 0 || *end != '-' || pid == (long)getpid())
		return false;
	return kill((pid_t)pid, 0) < 0 && errno == ESRCH;
}

void at_sb_cg_sweep(const char *base, const char *prefix)
{
	struct dirent *e;
	DIR *d = opendir(base);

	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		char path[768];

		/* Its agenttask is gone (killed before it could clean up); rmdir fails if in use. */
		if (at_sb_cg_orphan(e, prefix) &&
		    at_fmt(path, sizeof(path), "%s/%s", base, e->d_name) == 0)
			rmdir(path);
	}
	closedir(d);
}
