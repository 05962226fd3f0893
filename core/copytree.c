/*
 * copytree.c - copying a tree its writer is hostile to (copytree.h).
 */
#include "core/copytree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "core/esc.h"
#include "core/fs.h"
#include "core/util.h"

/* A file with several links: where its first copy went (relative to dst's top). */
struct linked {
	dev_t dev;
	ino_t ino;
	char *rel;
};

struct copy {
	dev_t dev;                  /* src's: another mount is not entered */
	int dst_top;                /* dst's descriptor, for linkat */
	struct linked *links;       /* open addressing, cap a power of two */
	size_t nlinks, cap;
	char rel[PATH_MAX];         /* the entry being copied, below the top */
	size_t len;
	struct at_error *err;
};

static int refuse(struct copy *c, int code, int sys_errno, const char *why)
{
	char buf[200];

	if (sys_errno)
		errno = sys_errno;
	return at_error_set(c->err, code, "cannot copy '%s': %s",
			    at_esc(buf, sizeof(buf), c->len ? c->rel : "."), why);
}

static int refuse_sys(struct copy *c, const char *what)
{
	return refuse(c, AT_ESYS, errno, what[0] ? what : strerror(errno));
}

static size_t link_slot(const struct copy *c, dev_t dev, ino_t ino)
{
	size_t i = (size_t)(((uint64_t)ino * 0x9e3779b97f4a7c15ULL) ^ (uint64_t)dev) & (c->cap - 1);

	while (c->links[i].rel && (c->links[i].dev != dev || c->links[i].ino != ino))
		i = (i + 1) & (c->cap - 1);
	return i;
}

/* Where (dev, ino) was copied first, or NULL; with remember, note c->rel as that place. */
static int link_find(struct copy *c, const struct stat *st, bool remember, const char **out)
{
	size_t i;

	*out = NULL;
	if (remember && (c->nlinks + 1) * 2 > c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64, j;
		struct linked *v = calloc(cap, sizeof(*v));
		struct copy grown = *c;

		if (!v)
			return refuse(c, AT_ESYS, ENOMEM, "out of memory");
		grown.links = v;
		grown.cap = cap;
		for (j = 0; j < c->cap; j++)
			if (c->links[j].rel)
				v[link_slot(&grown, c->links[j].dev, c->links[j].ino)] = c->links[j];
		free(c->links);
		c->links = v;
		c->cap = cap;
	}
	if (!c->cap)
		return 0;
	i = link_slot(c, st->st_dev, st->st_ino);
	if (c->links[i].rel) {
		*out = c->links[i].rel;
		return 0;
	}
	if (remember) {
		if (!(c->links[i].rel = strdup(c->rel)))
			return refuse(c, AT_ESYS, ENOMEM, "out of memory");
		c->links[i].dev = st->st_dev;
		c->links[i].ino = st->st_ino;
		c->nlinks++;
	}
	return 0;
}

/* The user.overlay.* attributes of sfd, onto dfd (what an overlay's upper means by them). */
static int copy_xattrs(struct copy *c, int sfd, int dfd)
{
	char names[4096], value[4096];
	ssize_t n, v;
	char *k;

	if ((n = flistxattr(sfd, names, sizeof(names))) < 0)
		return errno == ENOTSUP || errno == ERANGE ? 0 : refuse_sys(c, "");
	for (k = names; k < names + n; k += strlen(k) + 1) {
		if (strncmp(k, "user.overlay.", 13) != 0)
			continue;
		if ((v = fgetxattr(sfd, k, value, sizeof(value))) < 0 ||
		    fsetxattr(dfd, k, value, (size_t)v, 0) < 0)
			return refuse_sys(c, "");
	}
	return 0;
}

/* The data of in into out: shared (FICLONE) where the file system can, else copied, holes kept. */
static int copy_data(struct copy *c, int in, int out, off_t size)
{
	return at_copy_bytes(in, out, size) < 0 ? refuse_sys(c, "") : 0;
}

static int copy_file(struct copy *c, int sdir, int ddir, const char *name, const struct stat *st)
{
	const struct timespec times[2] = { st->st_atim, st->st_mtim };
	struct stat now;
	int in, out, rc;

	in = openat(sdir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (in < 0)
		return errno == ENOENT ? 0 : refuse_sys(c, "");
	/* Swapped since the look (for a FIFO, say): not the file looked at. */
	if (fstat(in, &now) < 0 || !S_ISREG(now.st_mode) || now.st_ino != st->st_ino ||
	    now.st_dev != st->st_dev) {
		close(in);
		return refuse(c, AT_EUNSAFE, 0, "it changed while it was copied");
	}
	out = openat(ddir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (out < 0) {
		rc = refuse_sys(c, "");
		close(in);
		return rc;
	}
	rc = copy_data(c, in, out, now.st_size);
	if (rc == 0)
		rc = copy_xattrs(c, in, out);
	if (rc == 0 && (fchmod(out, st->st_mode & 0777) < 0 || futimens(out, times) < 0))
		rc = refuse_sys(c, "");
	close(in);
	close(out);
	return rc;
}

static int copy_dir(struct copy *c, int sfd, int dfd, int depth);

/* One entry of sdir into ddir. */
static int copy_entry(struct copy *c, int sdir, int ddir, const char *name, int depth)
{
	size_t len = c->len, n = strlen(name);
	char target[PATH_MAX];
	const char *first;
	struct stat st;
	ssize_t tl;
	int rc = 0, s, d;

	if (len + n + 2 >= sizeof(c->rel))
		return refuse(c, AT_EUNSAFE, 0, "too deep");
	if (len)
		c->rel[c->len++] = '/';
	memcpy(c->rel + c->len, name, n + 1);
	c->len += n;
	if (fstatat(sdir, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		rc = errno == ENOENT ? 0 : refuse_sys(c, "");
		goto out;
	}
	if (st.st_dev != c->dev)
		goto out;   /* another mount: not this tree's */
	if (!S_ISDIR(st.st_mode) && st.st_nlink > 1) {
		if ((rc = link_find(c, &st, true, &first)) < 0)
			goto out;
		if (first) {
			if (linkat(c->dst_top, first, ddir, name, 0) < 0)
				rc = refuse_sys(c, "");
			goto out;
		}
	}
	if (S_ISREG(st.st_mode)) {
		rc = copy_file(c, sdir, ddir, name, &st);
	} else if (S_ISLNK(st.st_mode)) {
		tl = readlinkat(sdir, name, target, sizeof(target) - 1);
		if (tl < 0 || (size_t)tl >= sizeof(target) - 1)
			rc = tl < 0 && errno == ENOENT ? 0 : refuse(c, AT_EUNSAFE, 0, "unreadable link");
		else if (target[tl] = '\0', symlinkat(target, ddir, name) < 0)
			rc = refuse_sys(c, "");
	} else if (S_ISFIFO(st.st_mode)) {
		if (mkfifoat(ddir, name, st.st_mode & 0777) < 0)
			rc = refuse_sys(c, "");
	} else if (S_ISCHR(st.st_mode) && st.st_rdev == makedev(0, 0)) {
		if (mknodat(ddir, name, S_IFCHR | 0000, makedev(0, 0)) < 0)
			rc = refuse_sys(c, "cannot make an overlay whiteout");
	} else if (S_ISDIR(st.st_mode)) {
		if (depth + 1 > AT_COPY_DEPTH) {
			rc = refuse(c, AT_EUNSAFE, 0, "too deep");
			goto out;
		}
		s = openat(sdir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (s < 0) {
			rc = errno == ENOENT ? 0 : refuse_sys(c, "");
			goto out;
		}
		if (mkdirat(ddir, name, 0700) < 0 ||
		    (d = openat(ddir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
			rc = refuse_sys(c, "");
			close(s);
			goto out;
		}
		rc = copy_dir(c, s, d, depth + 1);   /* takes s; d closed there too */
		if (rc == 0 && fchmodat(ddir, name, st.st_mode & 0777, 0) < 0)
			rc = refuse_sys(c, "");
	}
	/* A socket, a device: nothing a copy can carry. */
out:
	c->len = len;
	c->rel[len] = '\0';
	return rc;
}

/* Takes sfd and dfd. */
static int copy_dir(struct copy *c, int sfd, int dfd, int depth)
{
	DIR *dir = fdopendir(sfd);
	struct dirent *de;
	int rc;

	if (!dir) {
		rc = refuse_sys(c, "");
		close(sfd);
		close(dfd);
		return rc;
	}
	rc = copy_xattrs(c, dirfd(dir), dfd);
	while (rc == 0 && (errno = 0, de = readdir(dir)))
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			rc = copy_entry(c, dirfd(dir), dfd, de->d_name, depth);
	if (rc == 0 && errno)
		rc = refuse_sys(c, "");
	closedir(dir);
	close(dfd);
	return rc;
}

int at_copytree(const char *src, const char *dst, struct at_error *err)
{
	struct copy c = { .err = err };
	struct stat st;
	size_t i;
	int s, d, rc;

	s = open(src, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (s < 0 || fstat(s, &st) < 0) {
		rc = at_error_sys(err, AT_ESYS, "cannot open '%s'", src);
		if (s >= 0)
			close(s);
		return rc;
	}
	if (mkdir(dst, 0700) < 0 ||
	    (d = open(dst, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		rc = at_error_sys(err, AT_ESYS, "cannot create '%s'", dst);
		close(s);
		return rc;
	}
	c.dev = st.st_dev;
	c.dst_top = fcntl(d, F_DUPFD_CLOEXEC, 0);
	if (c.dst_top < 0) {
		rc = at_error_sys(err, AT_ESYS, "cannot create '%s'", dst);
		close(s);
		close(d);
		return rc;
	}
	rc = copy_dir(&c, s, d, 0);
	if (rc == 0 && fchmod(c.dst_top, st.st_mode & 0777) < 0)
		rc = at_error_sys(err, AT_ESYS, "cannot create '%s'", dst);
	close(c.dst_top);
	for (i = 0; i < c.cap; i++)
		free(c.links[i].rel);
	free(c.links);
	return rc;
}
