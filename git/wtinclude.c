/*
 * wtinclude.c - `.worktreeinclude` (the convention of Claude Code and
 * worktrunk): files of the main worktree that git ignores (.env, local
 * settings, a vendored toolchain) and the file lists, in gitignore syntax,
 * are copied into a new task's worktree at the same place.
 *
 * The main worktree is the user's, but it is walked as carefully as a
 * task's: no link is followed (a link is not copied), no fifo or device
 * opened, nothing named .git entered or copied, nothing outside the
 * worktree reached (every open is relative to a directory descriptor,
 * O_NOFOLLOW). A path the checkout already wrote (a tracked file matching
 * an ignore pattern is not ignored; in a layered task's base) is left as
 * checked out. The bytes go by
 * reflink (FICLONE) where the file system shares extents, else
 * copy_file_range, else read and write.
 */
#include "git/internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <linux/fs.h>

#include "core/fs.h"
#include "core/ignore.h"
#include "core/util.h"
#include "git/wtignore.h"
#include "git/wtread.h"
#include "git/worktree.h"

#define INCLUDE_FILE ".worktreeinclude"
#define INCLUDE_MAX ((uint64_t)1 << 20)
#define DEPTH_MAX 256

struct walk {
	struct at_ignore *include;
	struct at_wt_ignore *ignore;
	int dst_root;
	int lower;                /* a layered task's base (its files), else -1 */
	/* The task's directory of the last file copied: the walk copies a directory's files in turn. */
	char last_dir[PATH_MAX];
	int last_fd;
	struct at_include_stats *stats;
	const struct at_progress_hook *progress;
	int64_t told_ms;          /* when progress was last told; -1 never */
	struct at_error *err;
};

#define PROGRESS_WHAT "Copying included files"

/* The files and bytes so far, every AT_INCLUDE_PROGRESS_MS (a clock read a file is cheap). */
static void tell(struct walk *w, bool last)
{
	int64_t t;

	if (!w->progress || !w->progress->fn || (last && !w->stats->files))
		return;
	t = at_mono_ms();
	if (!last && w->told_ms >= 0 && t - w->told_ms < AT_INCLUDE_PROGRESS_MS)
		return;
	w->told_ms = t;
	at_progress_say_bytes(w->progress, PROGRESS_WHAT, w->stats->files, 0, w->stats->bytes);
}

/* The directory rel's parent in the task (made as needed); -1 with errno on failure. */
static int dst_parent(int root, const char *rel, const char **base)
{
	char path[PATH_MAX], *p, *slash;
	int fd = fcntl(root, F_DUPFD_CLOEXEC, 0), next;

	snprintf(path, sizeof(path), "%s", rel);
	for (p = path; fd >= 0 && (slash = strchr(p, '/')); p = slash + 1) {
		*slash = '\0';
		if (mkdirat(fd, p, 0755) < 0 && errno != EEXIST)
			next = -1;
		else
			next = openat(fd, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		fd = next;
	}
	*base = rel + (p - path);
	return fd;
}

/* dst_parent, the last answer kept. */
static int dst_dir(struct walk *w, const char *rel, const char **base)
{
	const char *slash = strrchr(rel, '/');
	size_t n = slash ? (size_t)(slash - rel) : 0;

	if (w->last_fd >= 0 && strlen(w->last_dir) == n && strncmp(w->last_dir, rel, n) == 0) {
		*base = slash ? slash + 1 : rel;
		return w->last_fd;
	}
	if (w->last_fd >= 0)
		close(w->last_fd);
	w->last_fd = dst_parent(w->dst_root, rel, base);
	snprintf(w->last_dir, sizeof(w->last_dir), "%.*s", (int)n, rel);
	return w->last_fd;
}

static int copy_one(struct walk *w, int dfd, const char *name, const char *rel,
		    const struct stat *st)
{
	const char *base;
	int in, out, dir, rc = 0;

	in = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (in < 0)
		return 0;
	dir = dst_dir(w, rel, &base);
	out = dir < 0 ? -1 : openat(dir, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
				    st->st_mode & 0777);
	if (out < 0 && errno != EEXIST && errno != ENOTDIR)
		rc = at_error_sys(w->err, AT_ESYS, "cannot copy '%s' into the task", rel);
	else if (out >= 0 && at_copy_bytes(in, out, st->st_size) < 0)
		rc = at_error_sys(w->err, AT_ESYS, "cannot copy '%s' into the task", rel);
	else if (out >= 0) {
		w->stats->files++;
		w->stats->bytes += (uint64_t)st->st_size;
		tell(w, false);
	}
	if (out >= 0)
		close(out);
	close(in);
	return rc;
}

/* The checkout wrote something at rel: a full task's (O_EXCL refuses it), a layered one's base. */
static bool in_base(const struct walk *w, const char *rel)
{
	int fd;

	if (w->lower < 0)
		return false;
	fd = at_open_beneath(w->lower, rel, O_PATH | O_NOFOLLOW);
	if (fd >= 0) {
		close(fd);
		return true;
	}
	return errno != ENOENT;   /* a link or a file on the way: not copied there either */
}

static int walk_dir(struct walk *w, int dfd, const char *prefix, bool parent_ignored, int depth);

static int visit(struct walk *w, int dfd, const char *name, const char *prefix,
		 bool parent_ignored, int depth)
{
	char rel[PATH_MAX];
	struct stat st;
	bool ignored = parent_ignored;
	int rc, fd;

	if (strcmp(name, ".git") == 0 || fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)) ||
	    at_fmt(rel, sizeof(rel), "%s%s", prefix, name) < 0)
		return 0;
	if (!ignored &&
	    (rc = at_wt_ignored(w->ignore, rel, S_ISDIR(st.st_mode), true, &ignored, w->err)) < 0)
		return rc;
	if (S_ISREG(st.st_mode))
		return ignored && at_ignore_excluded(w->include, rel, false) && !in_base(w, rel)
			       ? copy_one(w, dfd, name, rel, &st) : 0;
	if (depth >= DEPTH_MAX || at_fmt(rel, sizeof(rel), "%s%s/", prefix, name) < 0)
		return 0;
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return fd < 0 ? 0 : walk_dir(w, fd, rel, ignored, depth + 1);
}

/* Takes fd. prefix: "" or "a/b/". */
static int walk_dir(struct walk *w, int dfd, const char *prefix, bool parent_ignored, int depth)
{
	struct dirent *de;
	DIR *d = fdopendir(dfd);
	int rc = 0;

	if (!d) {
		close(dfd);
		return 0;
	}
	while (rc == 0 && (de = readdir(d)))
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			rc = visit(w, dirfd(d), de->d_name, prefix, parent_ignored, depth);
	closedir(d);
	return rc;
}

int at_worktree_include(struct at_repo *r, const char *task_path, const char *lower,
			const struct at_progress_hook *progress, struct at_include_stats *stats,
			struct at_error *err)
{
	struct walk w = { .stats = stats, .err = err, .dst_root = -1, .lower = -1, .last_fd = -1,
			  .progress = progress, .told_ms = -1 };
	const char *workdir = at_repo_workdir(r);
	AT_AUTOFREE char *text = NULL;
	int root, rc;
	size_t len;

	memset(stats, 0, sizeof(*stats));
	if (!workdir)
		return 0;
	root = open(workdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		return 0;
	rc = at_wt_read_small(root, INCLUDE_FILE, INCLUDE_MAX, &text, &len, err);
	if (rc < 0 || !text)
		goto out;
	if (!(w.include = at_ignore_new()) || at_ignore_add_dir(w.include, "", text, len) < 0) {
		rc = at_error_set(err, AT_ESYS, "out of memory");
		goto out;
	}
	if ((rc = at_wt_ignore_open(&w.ignore, r->repo, root, err)) < 0)
		goto out;
	w.dst_root = open(task_path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (w.dst_root < 0) {
		rc = at_error_sys(err, AT_ESYS, "cannot open '%s'", task_path);
		goto out;
	}
	if (lower && (w.lower = open(lower, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		rc = at_error_sys(err, AT_ESYS, "cannot open '%s'", lower);
		goto out;
	}
	rc = walk_dir(&w, fcntl(root, F_DUPFD_CLOEXEC, 0), "", false, 0);
	if (rc == 0)
		tell(&w, true);
out:
	if (w.last_fd >= 0)
		close(w.last_fd);
	if (w.dst_root >= 0)
		close(w.dst_root);
	if (w.lower >= 0)
		close(w.lower);
	at_wt_ignore_free(w.ignore);
	at_ignore_free(w.include);
	close(root);
	return rc;
}
