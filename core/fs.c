#include "core/fs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "core/array.h"
#include "core/util.h"

/*
 * Removing a tree that its owner may still be changing: a command of the
 * task that is still running, or that escaped being stopped. The rules (see
 * fs.h) come down to this: nothing is done through a name that could be
 * swapped between a look and an act, but for unlinkat(), rmdir and
 * openat(O_NOFOLLOW) of one component relative to a directory descriptor,
 * none of which ever follows a link.
 */

#define RM_HELD 32             /* directory descriptors held at once, whatever the depth */
#define RM_DEPTH_MAX 65536     /* deeper than any tree a file system lets a path name */
#define RM_RETRIES 16          /* a name or a directory that keeps changing under us */

struct rm_frame {
	DIR *dir;              /* its listing; NULL while closed to bound the descriptors */
	dev_t dev;
	ino_t ino;
	unsigned passes;       /* listings so far (a directory refilled meanwhile is listed again) */
	char name[NAME_MAX + 1]; /* its name in its parent */
};

struct rm_walk {
	const char *top;       /* the path given, for messages */
	int parent;            /* the top's parent (not owned) */
	struct rm_frame *f;    /* f[0] the top, f[depth - 1] the directory being emptied */
	size_t depth, cap;
	uint64_t mnt_id;       /* the top's mount: another is never entered */
	dev_t dev;
	unsigned restarts;
	struct at_error *err;
};

/* A name of the tree, fit for a message: control characters as \xNN, long ones cut. */
static const char *shown(const char *name, char *buf, size_t size)
{
	size_t i, n = 0;

	for (i = 0; name[i] && n + 5 < size && i < 80; i++) {
		unsigned char c = (unsigned char)name[i];

		if (c < 0x20 || c == 0x7f || (c == 0xc2 && (unsigned char)name[i + 1] >= 0x80 &&
					      (unsigned char)name[i + 1] <= 0x9f))
			n += (size_t)snprintf(buf + n, size - n, "\\x%02x", c);
		else
			buf[n++] = (char)c;
	}
	if (name[i])
		n += (size_t)snprintf(buf + n, size - n, "...");
	buf[n] = '\0';
	return buf;
}

/* A system call failed: the message ends with its errno. */
static int rm_fail(struct rm_walk *w, const char *what, const char *name)
{
	char buf[400];

	return at_error_sys(w->err, AT_ESYS, "cannot remove '%s': %s '%s'", w->top, what,
			    shown(name, buf, sizeof(buf)));
}

/* The remover itself declines: no errno to give. */
static int rm_refuse(struct rm_walk *w, const char *what, const char *name)
{
	char buf[400];

	return at_error_set(w->err, AT_ESYS, "cannot remove '%s': %s '%s'", w->top, what,
			    shown(name, buf, sizeof(buf)));
}

/* fchmod() cannot change an O_PATH descriptor: through its /proc link, or fchmodat2. */
static int chmod_opath(int fd, mode_t mode)
{
	char link[64];

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	if (chmod(link, mode) == 0)
		return 0;
#ifdef SYS_fchmodat2
	return (int)syscall(SYS_fchmodat2, fd, "", mode, AT_EMPTY_PATH);
#else
	return -1;
#endif
}

/*
 * A directory its owner cannot read (chmod 000 by a build): opened as a
 * path, without following a link, checked to be a directory, made 0700
 * through that descriptor, then opened for reading through it (".").
 */
static int open_unreadable(int dfd, const char *name)
{
	struct stat st;
	int pfd, fd;

	pfd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (pfd < 0)
		return -1;
	if (fstat(pfd, &st) < 0 || !S_ISDIR(st.st_mode)) {
		close(pfd);
		errno = ENOTDIR;
		return -1;
	}
	if (chmod_opath(pfd, 0700) < 0) {
		close(pfd);
		errno = EACCES;
		return -1;
	}
	fd = openat(pfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	close(pfd);
	return fd;
}

/*
 * Open the directory `name` below dfd, never through a link, and make it
 * 0700 if its owner lacks rwx (through the descriptor: u+rwx and no
 * setuid, setgid or sticky bit, since it is about to go). -1 with errno
 * ENOTDIR or ELOOP when it is not (or no longer) a directory, EXDEV when it
 * is another mount.
 */
static int open_dir(struct rm_walk *w, int dfd, const char *name, struct statx *stx)
{
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0 && errno == EACCES)
		fd = open_unreadable(dfd, name);
	if (fd < 0)
		return -1;
	if (statx(fd, "", AT_EMPTY_PATH, STATX_TYPE | STATX_MODE | STATX_INO | STATX_MNT_ID,
		  stx) < 0) {
		close(fd);
		return -1;
	}
	if (w->depth > 0 &&
	    ((stx->stx_mask & STATX_MNT_ID) ? stx->stx_mnt_id != w->mnt_id
					    : makedev(stx->stx_dev_major, stx->stx_dev_minor) != w->dev)) {
		close(fd);
		errno = EXDEV;
		return -1;
	}
	if ((stx->stx_mode & 07700) != 0700)
		fchmod(fd, 0700);   /* not ours to change: the removal fails below, and says so */
	return fd;
}

static int push(struct rm_walk *w, int fd, const char *name, const struct statx *stx)
{
	struct rm_frame *f;

	if (w->depth >= RM_DEPTH_MAX || AT_ARRAY_GROW(w->f, w->cap, w->depth + 1) < 0) {
		close(fd);
		return w->depth < RM_DEPTH_MAX ? rm_refuse(w, "out of memory at", name)
					       : rm_refuse(w, "the tree is too deep at", name);
	}
	f = &w->f[w->depth];
	f->dir = fdopendir(fd);
	if (!f->dir) {
		close(fd);
		return rm_fail(w, "cannot list", name);
	}
	f->dev = makedev(stx->stx_dev_major, stx->stx_dev_minor);
	f->ino = stx->stx_ino;
	f->passes = 0;
	snprintf(f->name, sizeof(f->name), "%s", name);
	if (w->depth == 0) {
		w->mnt_id = stx->stx_mnt_id;
		w->dev = f->dev;
	}
	w->depth++;
	/* Bound the descriptors: an ancestor is found again through "..". */
	if (w->depth > RM_HELD) {
		struct rm_frame *old = &w->f[w->depth - 1 - RM_HELD];

		closedir(old->dir);
		old->dir = NULL;
	}
	return 0;
}

/*
 * Remove one entry of directory dfd: a non-directory is unlinked, a
 * directory is entered (pushed) to be emptied first. What is found is only a
 * hint: each act fails harmlessly on the wrong type, and the other is tried.
 */
static int rm_entry(struct rm_walk *w, int dfd, const char *name, bool dir_first)
{
	struct statx stx;
	int tries, fd;

	for (tries = 0; tries < RM_RETRIES; tries++, dir_first = !dir_first) {
		if (!dir_first) {
			if (unlinkat(dfd, name, 0) == 0 || errno == ENOENT)
				return 0;
			if (errno != EISDIR)
				return rm_fail(w, "cannot unlink", name);
			continue;
		}
		fd = open_dir(w, dfd, name, &stx);
		if (fd >= 0)
			return push(w, fd, name, &stx);
		if (errno == ENOENT)
			return 0;
		if (errno == EXDEV)
			return rm_refuse(w, "a file system is mounted at", name);
		if (errno != ENOTDIR && errno != ELOOP)
			return rm_fail(w, "cannot open the directory", name);
	}
	return rm_refuse(w, "it keeps changing at", name);
}

/* The parent of the current directory, opened again through ".." if need be. */
#define RM_RESTART 1
static int parent_fd(struct rm_walk *w)
{
	struct rm_frame *cur = &w->f[w->depth - 1], *up;
	struct stat st;
	int fd;

	if (w->depth == 1)
		return w->parent;
	up = &w->f[w->depth - 2];
	if (up->dir)
		return dirfd(up->dir);
	fd = openat(dirfd(cur->dir), "..", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return rm_fail(w, "cannot open the parent of", cur->name);
	/* Moved elsewhere since it was entered: begin again from the top. */
	if (fstat(fd, &st) < 0 || st.st_dev != up->dev || st.st_ino != up->ino) {
		close(fd);
		return -RM_RESTART;
	}
	up->dir = fdopendir(fd);
	if (!up->dir) {
		close(fd);
		return rm_fail(w, "cannot list", up->name);
	}
	return fd;
}

/* The current directory is listed to its end: remove it, or list it again if refilled. */
static int leave(struct rm_walk *w)
{
	struct rm_frame *cur = &w->f[w->depth - 1];
	int pfd = parent_fd(w);

	if (pfd < 0)
		return pfd == -RM_RESTART ? RM_RESTART : w->err->code;
	/*
	 * Gone from its name (ENOENT), or something else put there (ENOTDIR): it
	 * was moved, and the parent's listing meets it again.
	 */
	if (unlinkat(pfd, cur->name, AT_REMOVEDIR) < 0 && errno != ENOENT && errno != ENOTDIR) {
		if ((errno != ENOTEMPTY && errno != EEXIST) || ++cur->passes >= RM_RETRIES)
			return rm_fail(w, "cannot remove the directory", cur->name);
		rewinddir(cur->dir);
		return 0;
	}
	closedir(cur->dir);
	w->depth--;
	return 0;
}

static void close_frames(struct rm_walk *w)
{
	while (w->depth > 0) {
		struct rm_frame *f = &w->f[--w->depth];

		if (f->dir)
			closedir(f->dir);
	}
}

/* Enter the top again after a directory was moved under us; it must be the same one. */
static int restart(struct rm_walk *w)
{
	dev_t dev = w->f[0].dev;
	ino_t ino = w->f[0].ino;
	char name[NAME_MAX + 1];

	memcpy(name, w->f[0].name, sizeof(name));
	close_frames(w);
	if (++w->restarts >= RM_RETRIES)
		return rm_refuse(w, "it keeps changing at", name);
	if (rm_entry(w, w->parent, name, true) < 0)
		return w->err->code;
	if (w->depth == 0)
		return 0;
	if (w->f[0].dev != dev || w->f[0].ino != ino)
		return rm_refuse(w, "it was replaced at", name);
	return 0;
}

static int rm_walk_run(struct rm_walk *w)
{
	struct dirent *de;
	int rc = 0;

	while (rc == 0 && w->depth > 0) {
		struct rm_frame *cur = &w->f[w->depth - 1];

		errno = 0;
		de = readdir(cur->dir);
		if (de) {
			if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
				rc = rm_entry(w, dirfd(cur->dir), de->d_name,
					      de->d_type == DT_DIR || de->d_type == DT_UNKNOWN);
		} else if (errno) {
			rc = rm_fail(w, "cannot list", cur->name);
		} else if ((rc = leave(w)) == RM_RESTART) {
			rc = restart(w);
		}
	}
	return rc;
}

int at_rmtree(const char *path, struct at_error *err)
{
	struct rm_walk w = { .top = path, .err = err };
	char parent[PATH_MAX];
	AT_AUTOCLOSE int pfd = -1;
	char *slash;
	int rc;

	if (at_fmt(parent, sizeof(parent), "%s", path) < 0)
		return at_error_sys(err, AT_ESYS, "path too long '%s'", path);
	slash = strrchr(parent, '/');
	if (!slash || slash[1] == '\0' || strcmp(slash + 1, ".") == 0 ||
	    strcmp(slash + 1, "..") == 0)
		return at_error_set(err, AT_EUSAGE, "refusing to remove '%s'", path);
	*slash = '\0';
	pfd = open(parent[0] ? parent : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pfd < 0)
		return errno == ENOENT ? 0 : at_error_sys(err, AT_ESYS, "cannot open '%s'", parent);
	w.parent = pfd;
	rc = rm_entry(&w, pfd, slash + 1, true);
	if (rc == 0)
		rc = rm_walk_run(&w);
	close_frames(&w);
	free(w.f);
	return rc < 0 ? rc : 0;
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

struct usage {
	struct at_du *du;      /* NULL: a file with several links by its share */
	dev_t dev;
	uint64_t bytes;
	char rel[PATH_MAX];    /* the directory being listed, below the top, for messages */
	size_t len;
	struct at_error *err;
};

static int usage_refuse(struct usage *u, const char *why)
{
	char buf[200];

	return at_error_set(u->err, AT_EUNSAFE, "cannot measure '%s': %s",
			    shown(u->len ? u->rel : ".", buf, sizeof(buf)), why);
}

static int usage_dir(struct usage *u, int fd, int depth);

struct at_du_inode {
	dev_t dev;
	ino_t ino;
	bool used;
};

static size_t du_slot(const struct at_du_inode *v, size_t cap, dev_t dev, ino_t ino)
{
	size_t i = (size_t)(((uint64_t)ino * 0x9e3779b97f4a7c15ULL) ^ (uint64_t)dev) & (cap - 1);

	while (v[i].used && (v[i].dev != dev || v[i].ino != ino))
		i = (i + 1) & (cap - 1);
	return i;
}

/* 1: (dev, ino) was met before; 0: it is remembered now; -1: out of memory. */
static int du_seen(struct at_du *du, dev_t dev, ino_t ino)
{
	size_t i;

	if ((du->nseen + 1) * 2 > du->cap) {
		size_t cap = du->cap ? du->cap * 2 : 256, j;
		struct at_du_inode *v = calloc(cap, sizeof(*v));

		if (!v)
			return -1;
		for (j = 0; j < du->cap; j++)
			if (du->seen[j].used)
				v[du_slot(v, cap, du->seen[j].dev, du->seen[j].ino)] = du->seen[j];
		free(du->seen);
		du->seen = v;
		du->cap = cap;
	}
	i = du_slot(du->seen, du->cap, dev, ino);
	if (du->seen[i].used)
		return 1;
	du->seen[i] = (struct at_du_inode){ dev, ino, true };
	du->nseen++;
	return 0;
}

/* A file: by its share of its links, or (du) whole where first met. */
static int usage_file(struct usage *u, const struct stat *st)
{
	int seen;

	if (!u->du) {
		u->bytes += (uint64_t)st->st_blocks * 512 / (st->st_nlink ? st->st_nlink : 1);
		return 0;
	}
	if (st->st_nlink > 1 && (seen = du_seen(u->du, st->st_dev, st->st_ino)) != 0)
		return seen < 0 ? at_error_set(u->err, AT_ESYS, "out of memory") : 0;
	u->bytes += (uint64_t)st->st_blocks * 512;
	return 0;
}

/* One entry of the directory dfd: counted, and a directory entered. */
static int usage_entry(struct usage *u, int dfd, const char *name, int depth)
{
	size_t len = u->len, n = strlen(name);
	struct stat st;
	int fd, rc;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : usage_refuse(u, strerror(errno));
	if (st.st_dev != u->dev)
		return 0;   /* another mount: not this tree's space */
	if (!S_ISDIR(st.st_mode))
		return usage_file(u, &st);
	u->bytes += (uint64_t)st.st_blocks * 512;
	if (len + n + 2 >= sizeof(u->rel))
		return usage_refuse(u, "too deep");
	if (len)
		u->rel[u->len++] = '/';
	memcpy(u->rel + u->len, name, n + 1);
	u->len += n;
	if (depth + 1 > AT_USAGE_DEPTH)
		return usage_refuse(u, "too deep");
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	/*
	 * du counts a directory it cannot list by its own blocks, as du(1) does:
	 * the kernel makes overlayfs's work dirs 000 in a user namespace, and a
	 * task that has run has them (its git view's, its layer's). A limit
	 * (at_tree_usage) refuses it instead.
	 */
	if (fd < 0 && errno == EACCES && u->du)
		errno = ENOENT;
	if (fd < 0 && errno != ENOENT)
		return usage_refuse(u, strerror(errno));
	rc = fd < 0 ? 0 : usage_dir(u, fd, depth + 1);
	u->len = len;
	u->rel[len] = '\0';
	return rc;
}

/* Takes fd. */
static int usage_dir(struct usage *u, int fd, int depth)
{
	DIR *d = fdopendir(fd);
	struct dirent *de;
	int rc = 0;

	if (!d) {
		close(fd);
		return usage_refuse(u, strerror(errno));
	}
	while (rc == 0 && (errno = 0, de = readdir(d)))
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			rc = usage_entry(u, dirfd(d), de->d_name, depth);
	if (rc == 0 && errno)
		rc = usage_refuse(u, strerror(errno));
	closedir(d);
	return rc;
}

static int tree_usage(struct at_du *du, const char *path, uint64_t *bytes, struct at_error *err)
{
	struct usage u = { .du = du, .err = err };
	struct stat st;
	int fd, rc;

	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		*bytes = 0;
		return 0;
	}
	if (fd < 0 || fstat(fd, &st) < 0) {
		rc = at_error_sys(err, AT_ESYS, "cannot open '%s'", path);
		if (fd >= 0)
			close(fd);
		return rc;
	}
	u.dev = st.st_dev;
	u.bytes = (uint64_t)st.st_blocks * 512;
	if ((rc = usage_dir(&u, fd, 0)) < 0)
		return rc;
	*bytes = u.bytes;
	return 0;
}

int at_tree_usage(const char *path, uint64_t *bytes, struct at_error *err)
{
	return tree_usage(NULL, path, bytes, err);
}

int at_du_tree(struct at_du *du, const char *path, uint64_t *bytes, struct at_error *err)
{
	return tree_usage(du, path, bytes, err);
}

void at_du_release(struct at_du *du)
{
	if (!du)
		return;
	free(du->seen);
	*du = (struct at_du)AT_DU_INIT;
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

/* in's bytes [from, to) into out at the same offsets: copy_file_range, else pread and pwrite. */
static int copy_range(int in, int out, off_t from, off_t to)
{
	char buf[65536];
	off_t ipos = from, opos = from;
	ssize_t n = 0, w;

	while (ipos < to && (n = copy_file_range(in, &ipos, out, &opos, (size_t)(to - ipos), 0)) > 0)
		;
	if (ipos >= to || n == 0)
		return 0;   /* done, or the file ends sooner: the rest is the caller's ftruncate */
	if (errno != EXDEV && errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP)
		return -1;
	while (ipos < to) {
		n = pread(in, buf, (size_t)(to - ipos) < sizeof(buf) ? (size_t)(to - ipos) : sizeof(buf),
			  ipos);
		if (n <= 0)
			return (int)n;
		for (opos = 0; opos < n; opos += w)
			if ((w = pwrite(out, buf + opos, (size_t)(n - opos), ipos + opos)) < 0)
				return -1;
		ipos += n;
	}
	return 0;
}

int at_copy_bytes(int in, int out, off_t size)
{
	off_t pos = 0, data, hole;

	if (ioctl(out, FICLONE, in) == 0)
		return 0;
	/* The data only, hole by hole: a sparse file stays sparse (no terabyte of zeros written). */
	while (pos < size) {
		data = lseek(in, pos, SEEK_DATA);
		if (data < 0 && errno == ENXIO)
			break;   /* holes to the end */
		if (data < 0)
			data = pos, hole = size;   /* no SEEK_DATA here: all of it is data */
		else if ((hole = lseek(in, data, SEEK_HOLE)) <= data || hole > size)
			hole = size;
		if (data >= size)
			break;
		if (copy_range(in, out, data, hole) < 0)
			return -1;
		pos = hole;
	}
	return ftruncate(out, size);
}
