/*
 * flatten.c - an overlay's layers made into one directory (flatten.h): the
 * lower copied, then the upper applied, each level through descriptors.
 */
#include "core/flatten.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/fs.h"
#include "core/gitlayer.h"

struct flat {
	struct at_error *err;
	int upper, dest;           /* the tops of the upper's walk (apply) */
	char rel[PATH_MAX];        /* the upper's directory being applied, below them; "" the top */
	size_t len;
};

static int fail(struct flat *f, const char *what, const char *name)
{
	return at_error_sys(f->err, AT_ESYS, "cannot %s '%s'", what, name);
}

static int open_dir(int dirfd, const char *name)
{
	return openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* The entries of dirfd's directory, in turn; closedir by the caller. */
static DIR *list(int dirfd)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;

	if (fd >= 0 && !d)
		close(fd);
	return d;
}

static bool dots(const char *name)
{
	return name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2]));
}

/* Remove name below dirfd, a directory with all it holds; no link followed. */
static int remove_at(struct flat *f, int dirfd, const char *name, int depth)
{
	struct dirent *de;
	int fd, rc = 0;
	DIR *d;

	if (unlinkat(dirfd, name, 0) == 0 || errno == ENOENT)
		return 0;
	if (errno != EISDIR && errno != EPERM)
		return fail(f, "remove", name);
	if (depth >= AT_FLATTEN_DEPTH)
		return at_error_set(f->err, AT_EUNSAFE, "too deep at '%s'", name);
	if ((fd = open_dir(dirfd, name)) < 0 || !(d = list(fd))) {
		if (fd >= 0)
			close(fd);
		return fail(f, "open directory", name);
	}
	while (rc == 0 && (errno = 0, de = readdir(d)))
		if (!dots(de->d_name))
			rc = remove_at(f, fd, de->d_name, depth + 1);
	closedir(d);
	close(fd);
	if (rc == 0 && unlinkat(dirfd, name, AT_REMOVEDIR) < 0)
		rc = fail(f, "remove directory", name);
	return rc;
}

/* A regular file: opened without blocking on a FIFO swapped in, checked to be the one seen. */
static int copy_file(struct flat *f, int src, int dst, const char *name, const struct stat *st)
{
	struct stat now;
	int in, out, rc = 0;

	in = openat(src, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (in < 0)
		return fail(f, "open", name);
	if (fstat(in, &now) < 0 || !S_ISREG(now.st_mode) || now.st_ino != st->st_ino ||
	    now.st_dev != st->st_dev) {
		close(in);
		return at_error_set(f->err, AT_EUNSAFE, "'%s' changed while it was copied", name);
	}
	out = openat(dst, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		     now.st_mode & 0777);
	if (out < 0)
		rc = fail(f, "create", name);
	else if (at_copy_bytes(in, out, now.st_size) < 0 || fchmod(out, now.st_mode & 0777) < 0)
		rc = fail(f, "copy", name);
	if (out >= 0 && close(out) < 0 && rc == 0)
		rc = fail(f, "write", name);
	close(in);
	return rc;
}

static int copy_link(struct flat *f, int src, int dst, const char *name)
{
	char text[PATH_MAX];
	ssize_t n = readlinkat(src, name, text, sizeof(text) - 1);

	if (n < 0)
		return fail(f, "read link", name);
	text[n] = '\0';
	if (symlinkat(text, dst, name) < 0)
		return fail(f, "create link", name);
	return 0;
}

static int copy_tree(struct flat *f, int src, int dst, int depth);

/* One entry of src copied into dst (where nothing of its name is). */
static int copy_entry(struct flat *f, int src, int dst, const char *name, const struct stat *st,
		      int depth)
{
	int s, d, rc;

	if (S_ISREG(st->st_mode))
		return copy_file(f, src, dst, name, st);
	if (S_ISLNK(st->st_mode))
		return copy_link(f, src, dst, name);
	if (S_ISFIFO(st->st_mode))
		return mkfifoat(dst, name, st->st_mode & 0777) < 0 ? fail(f, "create", name) : 0;
	if (!S_ISDIR(st->st_mode))
		return 0;    /* a socket or a device: no file of a checkout */
	if (depth >= AT_FLATTEN_DEPTH)
		return at_error_set(f->err, AT_EUNSAFE, "too deep at '%s'", name);
	if (mkdirat(dst, name, (st->st_mode & 0777) | 0700) < 0)
		return fail(f, "create directory", name);
	if ((s = open_dir(src, name)) < 0)
		return fail(f, "open directory", name);
	if ((d = open_dir(dst, name)) < 0) {
		close(s);
		return fail(f, "open directory", name);
	}
	rc = copy_tree(f, s, d, depth + 1);
	close(s);
	close(d);
	return rc;
}

static int copy_tree(struct flat *f, int src, int dst, int depth)
{
	struct dirent *de;
	struct stat st;
	int rc = 0;
	DIR *d = list(src);

	if (!d)
		return fail(f, "list", ".");
	while (rc == 0 && (errno = 0, de = readdir(d))) {
		if (dots(de->d_name))
			continue;
		if (fstatat(src, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			rc = fail(f, "stat", de->d_name);
		else
			rc = copy_entry(f, src, dst, de->d_name, &st, depth);
	}
	closedir(d);
	return rc;
}

/*
 * The upper's directory f->rel, or the destination's, opened anew from its
 * top (no link followed on the way): the upper's walk holds no descriptor
 * while it is below, so that its depth is the upper's, bounded by PATH_MAX
 * alone, as the state's reader (git/layerstate.h) and a full checkout have it.
 */
static int reopen(const struct flat *f, int top)
{
	int fd = f->len ? at_open_beneath(top, f->rel, O_RDONLY | O_DIRECTORY)
			: fcntl(top, F_DUPFD_CLOEXEC, 0);

	return fd < 0 ? fail((struct flat *)f, "open directory", f->len ? f->rel : ".") : fd;
}

/* The names of dirfd's entries but . and .., each NUL-ended, in *out (malloc'd): their count. */
static ssize_t names_of(struct flat *f, int dirfd, char **out)
{
	struct dirent *de;
	size_t len = 0, cap = 0, n;
	ssize_t count = 0;
	char *buf = NULL, *grown;
	DIR *d = list(dirfd);

	if (!d)
		return fail(f, "list", f->len ? f->rel : ".");
	while ((errno = 0, de = readdir(d))) {
		if (dots(de->d_name))
			continue;
		n = strlen(de->d_name) + 1;
		if (len + n > cap) {
			cap = (len + n) * 2;
			if (!(grown = realloc(buf, cap))) {
				free(buf);
				closedir(d);
				return at_error_set(f->err, AT_ESYS, "out of memory");
			}
			buf = grown;
		}
		memcpy(buf + len, de->d_name, n);
		len += n;
		count++;
	}
	n = (size_t)errno;
	closedir(d);
	if (n) {
		free(buf);
		errno = (int)n;
		return fail(f, "list", f->len ? f->rel : ".");
	}
	*out = buf;
	return count;
}

/*
 * An upper directory over dst's entry of its name made ready: merged into a
 * lower directory, or replacing it (opaque) or whatever else is there (a
 * file, a link: removed, never entered).
 */
static int ready_dir(struct flat *f, int upper, int dst, const char *name, const struct stat *st)
{
	struct stat there;
	int u, d, rc = 0;

	if ((u = open_dir(upper, name)) < 0)
		return fail(f, "open directory", name);
	if (fstatat(dst, name, &there, AT_SYMLINK_NOFOLLOW) == 0 &&
	    (!S_ISDIR(there.st_mode) || at_layer_is_opaque(u)))
		rc = remove_at(f, dst, name, 0);
	close(u);
	if (rc == 0 && mkdirat(dst, name, (st->st_mode & 0777) | 0700) < 0 && errno != EEXIST)
		rc = fail(f, "create directory", name);
	if (rc == 0 && (d = open_dir(dst, name)) < 0)
		rc = fail(f, "open directory", name);
	if (rc == 0) {
		fchmod(d, (st->st_mode & 0777) | 0700);
		close(d);
	}
	return rc;
}

/* The upper's directory f->rel applied over the destination's. */
static int apply(struct flat *f)
{
	int upper = reopen(f, f->upper), dst = upper < 0 ? -1 : reopen(f, f->dest);
	char *names = NULL, *name;
	ssize_t count = upper < 0 || dst < 0 ? -1 : names_of(f, upper, &names);
	size_t len = f->len, n;
	struct stat st;
	int rc = count < 0 ? -1 : 0;

	for (name = names; rc == 0 && count-- > 0; name += strlen(name) + 1) {
		if (fstatat(upper, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			rc = fail(f, "stat", name);
		} else if (!S_ISDIR(st.st_mode)) {
			if ((rc = remove_at(f, dst, name, 0)) == 0 && !at_layer_is_whiteout(&st))
				rc = copy_entry(f, upper, dst, name, &st, 0);
		} else if ((rc = ready_dir(f, upper, dst, name, &st)) == 0) {
			/* Below it with no descriptor of this level held: reopened after. */
			close(upper);
			close(dst);
			upper = dst = -1;
			n = strlen(name);
			if (len + (len ? 1 : 0) + n >= sizeof(f->rel))
				rc = at_error_set(f->err, AT_EUNSAFE, "path too long at '%s/%s'",
						  f->rel, name);
			if (rc == 0) {
				if (len)
					f->rel[f->len++] = '/';
				memcpy(f->rel + f->len, name, n + 1);
				f->len += n;
				rc = apply(f);
				f->len = len;
				f->rel[len] = '\0';
			}
			if (rc == 0 && ((upper = reopen(f, f->upper)) < 0 ||
					(dst = reopen(f, f->dest)) < 0))
				rc = -1;
		}
	}
	free(names);
	if (upper >= 0)
		close(upper);
	if (dst >= 0)
		close(dst);
	return rc < 0 ? f->err->code : 0;
}

int at_flatten(int lower, int upper, int dest, struct at_error *err)
{
	struct flat f = { .err = err, .upper = upper, .dest = dest };
	int rc = copy_tree(&f, lower, dest, 0);

	return rc < 0 ? rc : apply(&f);
}
