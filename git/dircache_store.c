#include "git/dircache_store.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "core/util.h"

#define MAX_FILE (64u << 20)

bool at_dircache_usable(int fd)
{
	struct statfs sf;

	if (fstatfs(fd, &sf) < 0)
		return false;
	switch ((unsigned long)sf.f_type) {
	case 0xEF53UL:        /* ext2, ext3, ext4 */
	case 0x58465342UL:    /* xfs */
	case 0x9123683EUL:    /* btrfs */
	case 0x01021994UL:    /* tmpfs */
	case 0xF2F52010UL:    /* f2fs */
		return true;
	default:
		return false;
	}
}

void at_dircache_load(const char *path, struct at_dircache *out)
{
	size_t len = 0;
	char *buf;

	memset(out, 0, sizeof(*out));
	if (!(buf = at_read_file(path, MAX_FILE, &len)))
		return;
	at_dircache_parse(buf, len, out);
	free(buf);
}

void at_dircache_save(const char *path, const struct timespec *scanned,
		      const struct at_dircache_dir *v, size_t n)
{
	char tmp[PATH_MAX], dir[PATH_MAX], *slash;
	FILE *f = NULL;
	int fd = -1;
	bool ok;

	if (at_fmt(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid()) < 0 ||
	    at_fmt(dir, sizeof(dir), "%s", path) < 0 || !(slash = strrchr(dir, '/')))
		return;
	*slash = '\0';
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return;
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600)) < 0)
		return;
	if (!(f = fdopen(fd, "w"))) {
		close(fd);
		return;
	}
	ok = at_dircache_write(f, scanned, v, n) == 0;
	ok = fclose(f) == 0 && ok;
	if (!ok || rename(tmp, path) < 0)
		unlink(tmp);
}
