#include "git/wtread.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/fs.h"
#include "core/util.h"
#include "git/internal.h"

const char *at_wt_kind(mode_t mode)
{
	if (S_ISFIFO(mode))
		return "a fifo";
	if (S_ISSOCK(mode))
		return "a socket";
	if (S_ISCHR(mode) || S_ISBLK(mode))
		return "a device";
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISLNK(mode))
		return "a symbolic link";
	return "not a file";
}

/*
 * Where a submodule's ".git" file points, lexically from its directory
 * (workdir + path, all real directories: the walkers never cross a link):
 * true if into one of modules, else false.
 */
static bool gitdir_is_ours(const char *workdir, const char *path, const char *target,
			   const char *const modules[2])
{
	char out[PATH_MAX], *end;
	const char *p = target;
	size_t len;
	int i;

	if (target[0] == '/') {
		if (at_fmt(out, sizeof(out), "%s", target) < 0)
			return false;
	} else {
		if (at_fmt(out, sizeof(out), "%s%s", workdir, path) < 0)
			return false;
		while (strncmp(p, "../", 3) == 0 || strcmp(p, "..") == 0) {
			if (!(end = strrchr(out, '/')) || end == out)
				return false;
			*end = '\0';
			p += p[2] ? 3 : 2;
		}
		len = strlen(out);
		if (at_fmt(out + len, sizeof(out) - len, "/%s", p) < 0)
			return false;
	}
	len = strlen(out);
	if (len == 0 || (out[len - 1] != '/' && at_fmt(out + len, sizeof(out) - len, "/") < 0) ||
	    strstr(out, "/../") || strstr(out, "/./") || strstr(out, "//"))
		return false;
	for (i = 0; i < 2; i++)
		if (modules[i][0] && strncmp(out, modules[i], strlen(modules[i])) == 0)
			return true;
	return false;
}

bool at_wt_submodule_git_ok(int sub, const char *workdir, const char *path,
			    const char *const modules[2])
{
	AT_AUTOFREE char *text = NULL;
	struct at_error ignored = AT_ERROR_INIT;
	struct stat st;
	size_t n = 0;
	char *nl;

	if (fstatat(sub, ".git", &st, AT_SYMLINK_NOFOLLOW) < 0)
		return true;   /* none (gone meanwhile, or an uninitialised submodule) */
	if (!S_ISREG(st.st_mode) || st.st_size >= 4096 ||
	    at_wt_read_small(sub, ".git", 4096, &text, &n, &ignored) < 0 || !text ||
	    strncmp(text, "gitdir: ", 8) != 0)
		return false;
	if ((nl = strchr(text, '\n')))
		*nl = '\0';
	return gitdir_is_ours(workdir, path, text + 8, modules);
}

void at_wt_path_list(char *buf, size_t size, const char *const *paths, size_t n)
{
	char e[64];
	size_t i, len;

	buf[0] = '\0';
	for (i = 0; i < n && i < 3; i++) {
		len = strlen(buf);
		snprintf(buf + len, size - len, "%s'%s'", i ? ", " : "",
			 at_esc(e, sizeof(e), paths[i]));
	}
	if (n > 3) {
		len = strlen(buf);
		snprintf(buf + len, size - len, " and %zu more", n - 3);
	}
}

int at_wt_embedded_error(const char *list, struct at_error *err)
{
	return at_error_set(err, AT_EUNSAFE, "embedded repository %s (a '.git' inside): agenttask "
			    "records none, nor reads it; remove it, or add it as a submodule "
			    "yourself", list);
}

int at_wt_open_root(const char *path, struct at_error *err)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return at_error_sys(err, AT_ESYS, "cannot open worktree '%s'", path);
	return fd;
}

/* "100 MiB" and the like, for a message. */
static void human_size(char *buf, size_t size, uint64_t n)
{
	static const char *units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB"};
	size_t u = 0;
	double v = (double)n;

	while (v >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024;
		u++;
	}
	snprintf(buf, size, u ? "%.1f %s" : "%.0f %s", v, units[u]);
}

static int too_large(const char *path, uint64_t size, uint64_t max, const char *what,
		     struct at_error *err)
{
	char e[160], have[32], lim[32];

	human_size(have, sizeof(have), size);
	human_size(lim, sizeof(lim), max);
	return at_error_set(err, AT_EUNSAFE, "'%s' is %s, over the %s agenttask reads%s",
			    at_esc(e, sizeof(e), path), have, lim, what);
}

/* .gitattributes, .gitignore, .gitmodules: files git itself reads, in any case. */
static bool is_special_name(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return strcasecmp(base, ".gitattributes") == 0 || strcasecmp(base, ".gitignore") == 0 ||
	       strcasecmp(base, ".gitmodules") == 0;
}

static bool has_git_component(const char *path)
{
	const char *p = path;

	for (;;) {
		size_t n = strcspn(p, "/");

		if (n == 4 && strncasecmp(p, ".git", 4) == 0)
			return true;
		if (!p[n])
			return false;
		p += n + 1;
	}
}

int at_git_check_entry(const char *path, unsigned int mode, uint64_t size, uint64_t max,
		       struct at_error *err)
{
	char e[200];

	if (has_git_component(path))
		return at_error_set(err, AT_EUNSAFE, "'%s': git never records a path inside '.git'",
				    at_esc(e, sizeof(e), path));
	if (is_special_name(path) && mode == GIT_FILEMODE_LINK)
		return at_error_set(err, AT_EUNSAFE,
				    "'%s' is a symbolic link: git does not follow "
				    "one, and agenttask does not record one",
				    at_esc(e, sizeof(e), path));
	if (is_special_name(path) &&
	    (mode == GIT_FILEMODE_BLOB || mode == GIT_FILEMODE_BLOB_EXECUTABLE) &&
	    size > AT_SPECIAL_FILE_MAX)
		return too_large(path, size, AT_SPECIAL_FILE_MAX,
				 " in an ignore, attributes or "
				 "modules file",
				 err);
	if ((mode == GIT_FILEMODE_BLOB || mode == GIT_FILEMODE_BLOB_EXECUTABLE) && size > max)
		return too_large(path, size, max,
				 " (raise it with --max-file-size or "
				 "agenttask.maxFileSize)",
				 err);
	return 0;
}

/* Read exactly size bytes (the file may not have shrunk meanwhile). */
static int read_exact(int fd, char *buf, size_t size)
{
	size_t done = 0;

	while (done < size) {
		ssize_t r = read(fd, buf + done, size - done);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r == 0)
				errno = EIO; /* shrank meanwhile */
			return -1;
		}
		done += (size_t)r;
	}
	return 0;
}

static int hash_stream(git_odb *odb, int fd, size_t size, git_oid *id)
{
	git_odb_stream *stream = NULL;
	char buf[65536];
	size_t done = 0;
	int rc = -1;

	if (git_odb_open_wstream(&stream, odb, (git_object_size_t)size, GIT_OBJECT_BLOB) < 0)
		return -1;
	while (done < size) {
		size_t want = size - done < sizeof(buf) ? size - done : sizeof(buf);

		if (read_exact(fd, buf, want) < 0 || git_odb_stream_write(stream, buf, want) < 0)
			goto out;
		done += want;
	}
	rc = git_odb_stream_finalize_write(id, stream);
out:
	git_odb_stream_free(stream);
	return rc;
}

/* The blob of the file's bytes through the filters its attributes ask for. */
static int hash_filtered(struct at_wt_hasher *h, git_filter_list *fl, int fd, size_t size,
			 git_oid *id)
{
	git_buf out = GIT_BUF_INIT;
	char *buf = malloc(size ? size : 1);
	int rc = -1;

	if (!buf)
		return -1;
	if (read_exact(fd, buf, size) == 0 &&
	    git_filter_list_apply_to_buffer(&out, fl, buf, size) == 0)
		rc = git_odb_write(id, h->odb, out.ptr, out.size, GIT_OBJECT_BLOB);
	git_buf_dispose(&out);
	free(buf);
	return rc;
}

static int hash_regular(struct at_wt_hasher *h, int pathfd, const char *path, const struct stat *st,
			git_oid *id)
{
	git_filter_list *fl = NULL;
	char proc[64];
	struct stat again;
	int fd, rc = -1;

	/* The very inode just checked, opened for reading: no name is looked up again. */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pathfd);
	if ((fd = open(proc, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0 || fstat(fd, &again) < 0 ||
	    again.st_ino != st->st_ino || again.st_dev != st->st_dev || !S_ISREG(again.st_mode))
		goto out;
	if (h->filters && git_filter_list_load(&fl, h->repo, NULL, path, GIT_FILTER_TO_ODB,
					       GIT_FILTER_DEFAULT) < 0)
		goto out;
	rc = fl ? hash_filtered(h, fl, fd, (size_t)st->st_size, id)
		: hash_stream(h->odb, fd, (size_t)st->st_size, id);
out:
	git_filter_list_free(fl);
	if (fd >= 0)
		close(fd);
	return rc;
}

static int hash_link(struct at_wt_hasher *h, int pathfd, git_oid *id, struct stat *st)
{
	char target[PATH_MAX + 1];
	ssize_t len = readlinkat(pathfd, "", target, sizeof(target));

	if (len < 0 || (size_t)len >= sizeof(target))
		return -1;
	st->st_size = len;
	return git_odb_write(id, h->odb, target, (size_t)len, GIT_OBJECT_BLOB);
}

int at_wt_hash(struct at_wt_hasher *h, const char *path, git_oid *id, git_filemode_t *mode,
	       struct stat *st, struct at_error *err)
{
	AT_AUTOCLOSE int fd = at_open_beneath(h->root, path, O_PATH | O_NOFOLLOW);
	char e[200];
	int rc;

	if (fd < 0 && (errno == ENOENT || errno == ENOTDIR || errno == ELOOP || errno == EXDEV))
		return 1; /* gone, or a directory on the way became something else */
	if (fd < 0 || fstat(fd, st) < 0)
		return at_error_sys(err, AT_ESYS, "cannot read '%s'", at_esc(e, sizeof(e), path));
	if (S_ISDIR(st->st_mode))
		return 1;
	if (!S_ISREG(st->st_mode) && !S_ISLNK(st->st_mode))
		return at_error_set(err, AT_EUNSAFE,
				    "'%s' is %s: git records only files, symbolic "
				    "links and submodules",
				    at_esc(e, sizeof(e), path), at_wt_kind(st->st_mode));
	*mode = S_ISLNK(st->st_mode)	  ? GIT_FILEMODE_LINK
		: (st->st_mode & S_IXUSR) ? GIT_FILEMODE_BLOB_EXECUTABLE
					  : GIT_FILEMODE_BLOB;
	if ((rc = at_git_check_entry(path, *mode, (uint64_t)st->st_size, h->max_size, err)) < 0)
		return rc;
	rc = S_ISLNK(st->st_mode) ? hash_link(h, fd, id, st) : hash_regular(h, fd, path, st, id);
	if (rc < 0)
		return at_git_error(err, AT_EGIT, "cannot record '%s'", at_esc(e, sizeof(e), path));
	return 0;
}

int at_wt_read_small(int root, const char *path, uint64_t max, char **buf, size_t *len,
		     struct at_error *err)
{
	AT_AUTOCLOSE int fd = at_open_beneath(root, path, O_PATH | O_NOFOLLOW);
	AT_AUTOCLOSE int rd = -1;
	char proc[64], e[200];
	struct stat st;

	*buf = NULL;
	*len = 0;
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return 0; /* absent, below a link, a link, a fifo: not followed, not read */
	if ((uint64_t)st.st_size > max)
		return too_large(path, (uint64_t)st.st_size, max, " in an ignore file", err);
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if ((rd = open(proc, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0 ||
	    !(*buf = malloc((size_t)st.st_size + 1)) ||
	    read_exact(rd, *buf, (size_t)st.st_size) < 0) {
		free(*buf);
		*buf = NULL;
		return at_error_sys(err, AT_ESYS, "cannot read '%s'", at_esc(e, sizeof(e), path));
	}
	(*buf)[st.st_size] = '\0';
	*len = (size_t)st.st_size;
	return 0;
}
