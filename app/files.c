#include "app/files.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "app/internal.h"
#include "core/audit.h"
#include "core/esc.h"
#include "core/fs.h"
#include "core/gitlayer.h"
#include "core/util.h"
#include "git/ls_tree.h"

#define ESC(buf, s) at_esc((buf), sizeof(buf), (s))

static int refuse(struct at_error *err, const char *path, const char *why)
{
	char esc[200];

	return at_error_set(err, AT_EUSAGE, "'%s' %s", ESC(esc, path), why);
}

/* Append comp (len bytes) to out, which holds *n bytes; false when it does not fit. */
static bool append(char *out, size_t size, size_t *n, const char *comp, size_t len)
{
	if (*n + (*n ? 1 : 0) + len + 1 > size)
		return false;
	if (*n)
		out[(*n)++] = '/';
	memcpy(out + *n, comp, len);
	*n += len;
	out[*n] = '\0';
	return true;
}

int at_app_file_path(const char *worktree, const char *path, char *out, size_t size,
		     struct at_error *err)
{
	size_t wlen = strlen(worktree), n = 0, len;
	const char *p = path, *end;

	out[0] = '\0';
	if (path[0] == '/') {
		if (strncmp(path, worktree, wlen) != 0 || (path[wlen] && path[wlen] != '/'))
			return refuse(err, path, "is outside the task's worktree");
		p = path + wlen;
	}
	for (; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, '/');
		len = (size_t)(end - p);
		if (len == 0 || (len == 1 && p[0] == '.'))
			continue;
		if (len == 2 && p[0] == '.' && p[1] == '.')
			return refuse(err, path, "goes up with '..': paths stay in the task's worktree");
		if (len == 4 && strncasecmp(p, ".git", 4) == 0)
			return refuse(err, path, "is in git's metadata (.git), which is not the task's");
		if (!append(out, size, &n, p, len))
			return refuse(err, path, "is too long");
	}
	return 0;
}

/* ---- the worktree's descriptors ---- */

/* The task's worktree as a directory descriptor, and path checked against it. */
struct target {
	struct at_repo *r;        /* open while the target is: its paths name the task's log */
	struct at_task task;
	int root;                 /* the worktree; a layered task's: its upper */
	int dir;                  /* the parent directory of the target (or root) */
	char rel[PATH_MAX];
	const char *base;         /* the last component of rel; "" for the worktree itself */
	/*
	 * A layered task (core/task.h) has no worktree on the host: its files
	 * are read as the overlay shows them (layers.upper over layers.lower,
	 * whiteouts and opaque directories honoured: core/gitlayer.h), and
	 * written into the upper (root), a deletion of a lower file as a whiteout.
	 */
	bool layered;
	struct at_gitlayer layers;
};

static void target_close(struct target *t)
{
	if (t->dir >= 0 && t->dir != t->root)
		close(t->dir);
	if (t->root >= 0)
		close(t->root);
	t->dir = t->root = -1;
	if (t->layered) {
		close(t->layers.upper);
		if (t->layers.lower >= 0)
			close(t->layers.lower);
	}
	t->layered = false;
	at_repo_free(t->r);
	t->r = NULL;
}

static int beneath_error(struct at_error *err, const char *path)
{
	char esc[200];

	if (errno == ELOOP || errno == EXDEV)
		return at_error_set(err, AT_EUNSAFE, "'%s' goes through a symbolic link: not "
				    "followed", ESC(esc, path));
	if (errno == ENOENT)
		return at_error_set(err, AT_ENOTFOUND, "no file '%s' in the task's worktree",
				    ESC(esc, path));
	return at_error_sys(err, AT_ESYS, "cannot open '%s'", ESC(esc, path));
}

/*
 * The directory rel below root as a descriptor, each missing component made
 * on the way. Each step is one component relative to the descriptor of the
 * last, so a component swapped for a link midway is refused, never
 * followed (mkdirat of one name never follows it either).
 */
static int open_parents(int root, const char *rel, struct at_error *err)
{
	char comp[NAME_MAX + 1], esc[200];
	const char *p = rel, *end;
	int cur = fcntl(root, F_DUPFD_CLOEXEC, 0), next;

	for (; cur >= 0 && *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, '/');
		if ((size_t)(end - p) > NAME_MAX) {
			close(cur);
			return refuse(err, rel, "has a name too long");
		}
		memcpy(comp, p, (size_t)(end - p));
		comp[end - p] = '\0';
		if (mkdirat(cur, comp, 0755) < 0 && errno != EEXIST) {
			close(cur);
			return at_error_sys(err, AT_ESYS, "cannot make the directory '%s'",
					    ESC(esc, rel));
		}
		next = at_open_beneath(cur, comp, O_PATH | O_DIRECTORY);
		close(cur);
		if (next < 0)
			return beneath_error(err, rel);
		cur = next;
	}
	return cur < 0 ? at_error_sys(err, AT_ESYS, "cannot open '%s'", ESC(esc, rel)) : cur;
}

/* A layered task's layers: the upper (root, and layers.upper) and the base's files. */
static int open_layers(struct target *t, struct at_error *err)
{
	const struct at_paths *p = at_repo_paths(t->r);
	char upper[PATH_MAX], lower[PATH_MAX];

	if (at_paths_layer_upper(p, t->task.name, upper, sizeof(upper), err) < 0 ||
	    at_paths_base_files(p, t->task.base_tree, lower, sizeof(lower), err) < 0)
		return err->code;
	t->root = open(upper, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	t->layers.upper = open(upper, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	t->layers.lower = open(lower, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	t->layered = true;
	if (t->layers.upper < 0 || t->layers.lower < 0)
		return at_error_sys(err, AT_ECORRUPT, "cannot open the layers of task '%s'",
				    t->task.name);
	return 0;
}

/* The target's parent in the upper of a layered task, made there when it is not yet. */
static int upper_parent(struct target *t, struct at_error *err)
{
	char dir[PATH_MAX];
	char *slash;
	int fd;

	if (t->dir >= 0)
		return 0;
	memcpy(dir, t->rel, sizeof(dir));
	slash = strrchr(dir, '/');
	if (!slash) {
		t->dir = t->root;
		return 0;
	}
	*slash = '\0';
	if ((fd = open_parents(t->root, dir, err)) < 0)
		return fd;
	t->dir = fd;
	return 0;
}

/* Resolve the task, open its worktree and the parent of path (made when create). */
static int target_open(const struct at_app *app, const char *name, const char *path,
		       bool create, struct target *t, struct at_error *err)
{
	char *slash;
	int rc;

	t->root = t->dir = -1;
	t->r = NULL;
	t->layered = false;
	if ((rc = at_app_open(app, &t->r, err)) < 0 ||
	    (rc = at_app_resolve(app, t->r, name, &t->task, err)) < 0)
		return rc;
	if ((rc = at_app_file_path(t->task.path, path, t->rel, sizeof(t->rel), err)) < 0)
		return rc;
	if (at_task_is_layered(&t->task))
		rc = open_layers(t, err);
	else
		t->root = open(t->task.path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (rc < 0)
		return rc;
	if (t->root < 0)
		return at_error_sys(err, AT_ESYS, "cannot open the worktree of task '%s'",
				    t->task.name);
	slash = strrchr(t->rel, '/');
	t->base = slash ? slash + 1 : t->rel;
	if (!slash) {
		t->dir = t->root;
		return 0;
	}
	*slash = '\0';
	if (create) {
		rc = open_parents(t->root, t->rel, err);
		t->dir = rc < 0 ? -1 : rc;
		rc = rc < 0 ? rc : 0;
	} else if (!t->layered) {
		t->dir = at_open_beneath(t->root, t->rel, O_PATH | O_DIRECTORY);
		rc = t->dir < 0 ? beneath_error(err, t->rel) : 0;
	}   /* a layered task's: read through the layers, made in the upper when written */
	*slash = '/';
	return rc;
}

/* The target of a layered task, opened as the overlay shows it: 0 (*fd), 1 missing, or an error. */
static int layered_file(const struct target *t, int *fd, struct at_error *err)
{
	char esc[200];
	int rc = at_gitlayer_open(&t->layers, t->rel, fd);

	if (rc == 2)
		return at_error_set(err, AT_EUNSAFE, "'%s' is not a regular file (a link, a "
				    "directory, a FIFO: not followed, not opened)", ESC(esc, t->rel));
	if (rc < 0)
		return at_error_sys(err, AT_ESYS, "cannot open '%s'", ESC(esc, t->rel));
	return rc;
}

static int layered_stat(const struct target *t, struct stat *st, struct at_error *err)
{
	char esc[200];
	int fd = -1, rc = layered_file(t, &fd, err);

	if (rc != 0)
		return rc;
	if (fstat(fd, st) < 0)
		rc = at_error_sys(err, AT_ESYS, "cannot look at '%s'", ESC(esc, t->rel));
	close(fd);
	return rc;
}

/* The target's kind: 0 regular (st set), 1 missing, or an error for anything else. */
static int target_stat(const struct target *t, struct stat *st, struct at_error *err)
{
	char esc[200];

	if (!t->base[0])
		return refuse(err, t->rel[0] ? t->rel : ".", "is a directory");
	if (t->layered)
		return layered_stat(t, st, err);
	if (fstatat(t->dir, t->base, st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 1 : at_error_sys(err, AT_ESYS, "cannot look at '%s'",
							  ESC(esc, t->rel));
	if (S_ISLNK(st->st_mode))
		return at_error_set(err, AT_EUNSAFE, "'%s' is a symbolic link: not followed",
				    ESC(esc, t->rel));
	if (S_ISDIR(st->st_mode))
		return refuse(err, t->rel, "is a directory");
	if (!S_ISREG(st->st_mode))
		return at_error_set(err, AT_EUNSAFE, "'%s' is not a regular file",
				    ESC(esc, t->rel));
	return 0;
}

/* The whole of the target, a regular file of at most AT_APP_FILE_MAX bytes. */
static int slurp(const struct target *t, char **buf, size_t *len, mode_t *mode,
		 struct at_error *err)
{
	struct stat st;
	char esc[200];
	ssize_t n = 0;
	size_t got = 0;
	int fd, rc;

	if ((rc = target_stat(t, &st, err)) != 0)
		return rc == 1 ? at_error_set(err, AT_ENOTFOUND, "no file '%s' in the task's "
					      "worktree", ESC(esc, t->rel)) : rc;
	if (t->layered) {
		if ((rc = layered_file(t, &fd, err)) != 0)
			return rc == 1 ? at_error_set(err, AT_ENOTFOUND, "no file '%s' in the task's "
						      "worktree", ESC(esc, t->rel)) : rc;
	} else if ((fd = at_open_beneath(t->dir, t->base,
					 O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY)) < 0) {
		return beneath_error(err, t->rel);
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > AT_APP_FILE_MAX) {
		close(fd);
		return S_ISREG(st.st_mode)
			       ? at_error_set(err, AT_EUSAGE, "'%s' is larger than %zu bytes",
					      ESC(esc, t->rel), AT_APP_FILE_MAX)
			       : at_error_set(err, AT_EUNSAFE, "'%s' is not a regular file",
					      ESC(esc, t->rel));
	}
	/* One byte more than it says: a file that grows is cut at the bound, not overrun. */
	*buf = malloc((size_t)st.st_size + 2);
	while (*buf && got <= (size_t)st.st_size &&
	       (n = read(fd, *buf + got, (size_t)st.st_size + 1 - got)) > 0)
		got += (size_t)n;
	close(fd);
	if (!*buf || n < 0) {
		free(*buf);
		*buf = NULL;
		return at_error_sys(err, AT_ESYS, "cannot read '%s'", ESC(esc, t->rel));
	}
	if (got > (size_t)st.st_size)
		got = (size_t)st.st_size;
	(*buf)[got] = '\0';
	*len = got;
	*mode = st.st_mode & 0777;
	return 0;
}

/* The task's file at path, whole: t open, *buf the caller's to free. */
static int read_target(const struct at_app *app, const char *name, const char *path,
		       struct target *t, char **buf, size_t *len, mode_t *mode,
		       struct at_error *err)
{
	int rc = target_open(app, name, path, false, t, err);

	return rc < 0 ? rc : slurp(t, buf, len, mode, err);
}

/* ---- read ---- */

/* Where line `line` (from 1) starts in buf, or len when there are fewer. */
static size_t line_start(const char *buf, size_t len, uint64_t line)
{
	size_t i = 0;
	const char *nl;

	while (--line > 0 && i < len) {
		if (!(nl = memchr(buf + i, '\n', len - i)))
			return len;
		i = (size_t)(nl - buf) + 1;
	}
	return i;
}

static uint64_t count_lines(const char *buf, size_t len)
{
	uint64_t n = 0;
	const char *p = buf, *end = buf + len;

	while (p < end && (p = memchr(p, '\n', (size_t)(end - p)))) {
		n++;
		p++;
	}
	return n + (len && buf[len - 1] != '\n');
}

static void take_lines(struct at_app_file_text *out, char *buf, size_t len, uint64_t first,
		       uint64_t limit)
{
	size_t start = line_start(buf, len, first), end = start;
	const char *nl;

	out->total_lines = count_lines(buf, len);
	out->first_line = first;
	while (out->lines < limit && end < len) {
		nl = memchr(buf + end, '\n', len - end);
		size_t next = nl ? (size_t)(nl - buf) + 1 : len;

		if (next - start > AT_APP_READ_MAX && out->lines > 0)
			break;
		end = next - start > AT_APP_READ_MAX ? start + AT_APP_READ_MAX : next;
		out->lines++;
	}
	out->truncated = end < len;
	memmove(buf, buf + start, end - start);
	buf[end - start] = '\0';
	out->data = buf;
	out->len = end - start;
}

int at_app_file_read(const struct at_app *app, const struct at_app_file_read_opts *o,
		     struct at_app_file_text *out, struct at_error *err)
{
	struct target t;
	char *buf = NULL;
	size_t len;
	mode_t mode;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = read_target(app, o->name, o->path, &t, &buf, &len, &mode, err);
	if (rc == 0) {
		memcpy(out->task, t.task.name, sizeof(out->task));
		out->size = len;
		take_lines(out, buf, len, o->offset ? o->offset : 1,
			   o->limit ? o->limit : AT_APP_READ_LINES);
	}
	target_close(&t);
	return rc;
}

void at_app_file_text_release(struct at_app_file_text *t)
{
	if (t) {
		free(t->data);
		t->data = NULL;
	}
}

/* ---- write, edit, delete ---- */

/* The bytes to a new file beside the target, renamed over it. */
static int replace(struct target *t, const char *data, size_t len, mode_t mode,
		   struct at_error *err)
{
	static unsigned int counter;
	char tmp[64], esc[200];
	int fd, rc = 0;

	if (t->layered && (rc = upper_parent(t, err)) < 0)
		return rc;

	snprintf(tmp, sizeof(tmp), ".agenttask-write-%d-%u", (int)getpid(), counter++);
	fd = openat(t->dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return at_error_sys(err, AT_ESYS, "cannot write '%s'", ESC(esc, t->rel));
	if (at_write_all(fd, data, len) < 0 || fchmod(fd, mode & 0777) < 0)
		rc = at_error_sys(err, AT_ESYS, "cannot write '%s'", ESC(esc, t->rel));
	if (close(fd) < 0 && rc == 0)
		rc = at_error_sys(err, AT_ESYS, "cannot write '%s'", ESC(esc, t->rel));
	if (rc == 0 && renameat(t->dir, tmp, t->dir, t->base) < 0)
		rc = at_error_sys(err, AT_ESYS, "cannot write '%s'", ESC(esc, t->rel));
	if (rc < 0)
		unlinkat(t->dir, tmp, 0);
	return rc;
}

/* The change made: in the result, and in the task's log (a log that fails is a warning). */
static void changed(struct at_app_file_change *out, const struct target *t, const char *op,
		    uint64_t bytes, bool created)
{
	struct at_error aerr = AT_ERROR_INIT;

	memcpy(out->task, t->task.name, sizeof(out->task));
	out->bytes = bytes;
	out->created = created;
	if (at_audit_file(at_repo_paths(t->r), t->task.name, op, t->rel, bytes, created,
			  &aerr) < 0)
		snprintf(out->warning, sizeof(out->warning), "the change was not logged: %s",
			 aerr.msg);
}

int at_app_file_write(const struct at_app *app, const char *name, const char *path,
		      const char *data, size_t len, struct at_app_file_change *out,
		      struct at_error *err)
{
	struct target t;
	struct stat st;
	int rc;

	memset(out, 0, sizeof(*out));
	if (len > AT_APP_FILE_MAX)
		return at_error_set(err, AT_EUSAGE, "%zu bytes is more than a write may hold "
				    "(%zu)", len, AT_APP_FILE_MAX);
	rc = target_open(app, name, path, true, &t, err);
	if (rc == 0 && (rc = target_stat(&t, &st, err)) >= 0) {
		bool created = rc == 1;

		rc = replace(&t, data, len, created ? 0644 : st.st_mode, err);
		if (rc == 0)
			changed(out, &t, "write", len, created);
	}
	target_close(&t);
	return rc;
}

/* Where old occurs in buf: *count of them (stopping at 2), *at the first. */
static void find(const char *buf, size_t len, const char *old, size_t old_len, size_t *count,
		 size_t *at)
{
	const char *p = buf, *end = buf + len, *hit;

	*count = 0;
	while (*count < 2 && (hit = memmem(p, (size_t)(end - p), old, old_len))) {
		if ((*count)++ == 0)
			*at = (size_t)(hit - buf);
		p = hit + 1;
	}
}

static int edit_buffer(struct target *t, const char *buf, size_t len, mode_t mode,
		  const char *old, size_t old_len, const char *new, size_t new_len,
		  struct at_app_file_change *out, struct at_error *err)
{
	size_t count, at = 0, total;
	char *res, esc[200];
	int rc;

	find(buf, len, old, old_len, &count, &at);
	if (count == 0)
		return at_error_set(err, AT_ENOTFOUND, "the text to replace is not in '%s'",
				    ESC(esc, t->rel));
	if (count > 1)
		return at_error_set(err, AT_EUSAGE, "the text to replace occurs more than once in "
				    "'%s': give more of it, so that it is unique", ESC(esc, t->rel));
	total = len - old_len + new_len;
	if (total > AT_APP_FILE_MAX)
		return at_error_set(err, AT_EUSAGE, "'%s' would be larger than %zu bytes",
				    ESC(esc, t->rel), AT_APP_FILE_MAX);
	if (!(res = malloc(total + 1)))
		return at_error_set(err, AT_ESYS, "out of memory");
	memcpy(res, buf, at);
	memcpy(res + at, new, new_len);
	memcpy(res + at + new_len, buf + at + old_len, len - at - old_len);
	rc = replace(t, res, total, mode, err);
	if (rc == 0)
		changed(out, t, "edit", total, false);
	free(res);
	return rc;
}

int at_app_file_edit(const struct at_app *app, const char *name, const char *path,
		     const char *old, size_t old_len, const char *new, size_t new_len,
		     struct at_app_file_change *out, struct at_error *err)
{
	struct target t;
	char *buf = NULL;
	size_t len;
	mode_t mode;
	int rc;

	memset(out, 0, sizeof(*out));
	if (old_len == 0)
		return at_error_set(err, AT_EUSAGE, "the text to replace is empty");
	rc = read_target(app, name, path, &t, &buf, &len, &mode, err);
	if (rc == 0)
		rc = edit_buffer(&t, buf, len, mode, old, old_len, new, new_len, out, err);
	free(buf);
	target_close(&t);
	return rc;
}

/*
 * A layered task's file deleted: the upper's copy removed, and a whiteout
 * (a 0:0 character device, which an unprivileged process may make) where
 * the lower has the file, so that the overlay no longer shows it.
 */
static int layered_delete(struct target *t, struct at_error *err)
{
	char esc[200];
	int fd = -1, rc = layered_file(t, &fd, err);

	if (rc == 1)
		return at_error_set(err, AT_ENOTFOUND, "no file '%s' in the task's worktree",
				    ESC(esc, t->rel));
	if (rc < 0)
		return rc;
	close(fd);
	if ((rc = upper_parent(t, err)) < 0)
		return rc;
	if (unlinkat(t->dir, t->base, 0) < 0 && errno != ENOENT)
		return at_error_sys(err, AT_ESYS, "cannot delete '%s'", ESC(esc, t->rel));
	/* Still shown: the lower's, which a whiteout hides. */
	if ((rc = at_gitlayer_open(&t->layers, t->rel, &fd)) == 0) {
		close(fd);
		if (mknodat(t->dir, t->base, S_IFCHR | 0000, makedev(0, 0)) < 0)
			return at_error_sys(err, AT_ESYS, "cannot delete '%s'", ESC(esc, t->rel));
	}
	return 0;
}

int at_app_file_delete(const struct at_app *app, const char *name, const char *path,
		       struct at_app_file_change *out, struct at_error *err)
{
	struct target t;
	struct stat st;
	char esc[200];
	int rc;

	memset(out, 0, sizeof(*out));
	rc = target_open(app, name, path, false, &t, err);
	if (rc == 0 && !t.base[0])
		rc = refuse(err, ".", "is the worktree itself");
	if (rc == 0 && t.layered) {
		rc = layered_delete(&t, err);
		if (rc == 0)
			changed(out, &t, "delete", 0, false);
		target_close(&t);
		return rc;
	}
	if (rc == 0 && fstatat(t.dir, t.base, &st, AT_SYMLINK_NOFOLLOW) < 0)
		rc = errno == ENOENT ? at_error_set(err, AT_ENOTFOUND, "no file '%s' in the task's "
						    "worktree", ESC(esc, t.rel))
				     : at_error_sys(err, AT_ESYS, "cannot look at '%s'", ESC(esc, t.rel));
	if (rc == 0 && S_ISDIR(st.st_mode))
		rc = refuse(err, t.rel, "is a directory: only files are deleted");
	/* A link is removed as a link: unlinkat never follows the last component. */
	if (rc == 0 && unlinkat(t.dir, t.base, 0) < 0)
		rc = at_error_sys(err, AT_ESYS, "cannot delete '%s'", ESC(esc, t.rel));
	if (rc == 0)
		changed(out, &t, "delete", 0, false);
	target_close(&t);
	return rc;
}

/* ---- list ---- */

int at_app_file_list(const struct at_app *app, const char *name, const char *dir,
		     struct at_app_file_list *out, struct at_error *err)
{
	const struct at_task_state *st;
	struct at_app_view v;
	struct at_repo *r = NULL;
	struct at_task task;
	char rel[PATH_MAX];
	int rc;

	memset(out, 0, sizeof(*out));
	rc = at_app_open(app, &r, err);
	if (rc == 0)
		rc = at_app_resolve(app, r, name, &task, err);
	if (rc == 0)
		rc = at_app_file_path(task.path, dir ? dir : "", rel, sizeof(rel), err);
	if (rc < 0) {
		at_repo_free(r);
		return rc;
	}
	memcpy(out->task, task.name, sizeof(out->task));
	at_app_view_init(&v, r, &task);
	rc = at_app_view_state(&v, &st, err);
	if (rc == 0)
		rc = at_git_ls_tree(r, &st->tree, rel, AT_APP_LIST_MAX, &out->paths,
				    &out->truncated, err);
	at_app_view_release(&v);
	at_repo_free(r);
	return rc;
}

void at_app_file_list_release(struct at_app_file_list *l)
{
	if (l)
		at_strlist_release(&l->paths);
}
