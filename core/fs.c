#include "core/fs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/util.h"

static int rm_at(int parent, const char *name, const char *top, int depth, struct at_error *err);

static int rm_children(int dfd, const char *top, int depth, struct at_error *err)
{
	DIR *d;
	struct dirent *de;
	int rc = 0;

	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return at_error_sys(err, AT_ESYS, "cannot read '%s'", top);
	}
	while (rc == 0 && (errno = 0, de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		rc = rm_at(dirfd(d), de->d_name, top, depth + 1, err);
	}
	closedir(d);
	return rc;
}

static int rm_at(int parent, const char *name, const char *top, int depth, struct at_error *err)
{
	struct stat st;
	int dfd;

	if (depth > 4096)
		return at_error_set(err, AT_ESYS, "cannot remove '%s': too deep", top);
	if (fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : at_error_sys(err, AT_ESYS, "cannot remove in '%s'", top);
	if (!S_ISDIR(st.st_mode)) {
		if (unlinkat(parent, name, 0) < 0 && errno != ENOENT)
			return at_error_sys(err, AT_ESYS, "cannot remove a file in '%s'", top);
		return 0;
	}
	if ((st.st_mode & 0700) != 0700)
		fchmodat(parent, name, (st.st_mode & 07777) | 0700, 0);
	dfd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return errno == ENOENT ? 0 : at_error_sys(err, AT_ESYS, "cannot open a directory in '%s'", top);
	if (rm_children(dfd, top, depth, err) < 0)
		return err->code;
	if (unlinkat(parent, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		return at_error_sys(err, AT_ESYS, "cannot remove a directory in '%s'", top);
	return 0;
}

int at_rmtree(const char *path, struct at_error *err)
{
	char parent[PATH_MAX];
	const char *base;
	char *slash;
	AT_AUTOCLOSE int pfd = -1;

	if (at_fmt(parent, sizeof(parent), "%s", path) < 0)
		return at_error_sys(err, AT_ESYS, "path too long '%s'", path);
	slash = strrchr(parent, '/');
	if (!slash || slash[1] == '\0')
		return at_error_set(err, AT_EUSAGE, "refusing to remove '%s'", path);
	*slash = '\0';
	base = slash + 1;
	pfd = open(parent[0] ? parent : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pfd < 0)
		return errno == ENOENT ? 0 : at_error_sys(err, AT_ESYS, "cannot open '%s'", parent);
	return rm_at(pfd, base, path, 0, err);
}

int at_mkdirs(const char *path, unsigned int mode, struct at_error *err)
{
	char buf[PATH_MAX];
	char *p;

	if (at_fmt(buf, sizeof(buf), "%s", path) < 0)
		return at_error_sys(err, AT_ESYS, "path too long '%s'", path);
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, (mode_t)mode) < 0 && errno != EEXIST)
			return at_error_sys(err, AT_ESYS, "cannot create '%s'", buf);
		*p = '/';
	}
	if (mkdir(buf, (mode_t)mode) < 0 && errno != EEXIST)
		return at_error_sys(err, AT_ESYS, "cannot create '%s'", buf);
	return 0;
}

int at_open_beneath(int dirfd, const char *path, int flags)
{
	struct open_how how = {
		.flags = (unsigned long long)(flags | O_CLOEXEC),
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_BENEATH,
	};

	return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
}

bool at_path_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}
