#include "git/apply_paths.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/proc.h"
#include "core/trace.h"
#include "core/util.h"
#include "git/index_read.h"
#include "git/index_update.h"
#include "git/internal.h"
#include "git/wtread.h"

#define TMP_DIR "agenttask-tmp"     /* in the worktree's git directory */
#define TMP_PREFIX "agenttask-"
#define INDEX_COPY TMP_PREFIX "index"     /* the new index, before it goes in */
#define OWNER "owner"                      /* who is putting INDEX_COPY in, not swept */

struct apply {
	git_repository *repo;
	git_tree *to;
	git_tree *index_to;         /* the index's entries: `to`, or another tree */
	const git_oid *attr_commit; /* the filters' attributes, or NULL: the worktree's */
	char *const *paths;
	size_t n;
	char *const *index_paths;   /* the index entries to change: `paths`, or a list of
				       their own (at_apply_opts) */
	size_t nindex;
	bool index_file;            /* the index read from its file, index_update.c's way */
	const char *workdir;        /* the worktree's path */
	int root;                   /* the worktree */
	int tmp;                    /* TMP_DIR, or -1: temporary files go beside their paths */
	unsigned serial;
	bool symlinks;              /* core.symlinks */
	char dir[PATH_MAX];         /* the directory of the last path, kept open for the next */
	int dir_fd;
	struct at_error *err;
};

static void forget_dir(struct apply *a)
{
	if (a->dir_fd >= 0)
		close(a->dir_fd);
	a->dir_fd = -1;
	a->dir[0] = '\0';
}

/*
 * The directory that holds path, opened one component at a time from the
 * worktree, never through a link; with create, missing directories are
 * made. *base is the last component. -1 with errno: ENOENT (absent, without
 * create), ENOTDIR or ELOOP (a file or a link on the way).
 */
static int dir_of(struct apply *a, const char *path, bool create, const char **base)
{
	const char *slash = strrchr(path, '/');
	size_t len = slash ? (size_t)(slash - path) : 0;
	char comp[PATH_MAX];
	const char *p = path;
	int fd, e;

	*base = slash ? slash + 1 : path;
	if (len == 0)
		return a->root;
	if (a->dir_fd >= 0 && strlen(a->dir) == len && strncmp(a->dir, path, len) == 0)
		return a->dir_fd;
	forget_dir(a);
	if (len >= sizeof(a->dir)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = fcntl(a->root, F_DUPFD_CLOEXEC, 0);
	while (fd >= 0 && p < path + len) {
		const char *end = memchr(p, '/', (size_t)(path + len - p));
		size_t clen = end ? (size_t)(end - p) : (size_t)(path + len - p);
		int next;

		memcpy(comp, p, clen);
		comp[clen] = '\0';
		next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0 && errno == ENOENT && create && mkdirat(fd, comp, 0777) == 0)
			next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		e = errno;
		close(fd);
		errno = e;
		fd = next;
		p += clen + 1;
	}
	if (fd < 0)
		return -1;
	memcpy(a->dir, path, len);
	a->dir[len] = '\0';
	a->dir_fd = fd;
	return fd;
}

/* What `to` holds at path: a blob, link or gitlink entry (*e, to free), else none. */
static bool file_in(git_tree *tree, const char *path, git_tree_entry **e)
{
	*e = NULL;
	if (git_tree_entry_bypath(e, tree, path) < 0) {
		git_error_clear();
		return false;
	}
	if (git_tree_entry_type(*e) == GIT_OBJECT_TREE) {
		git_tree_entry_free(*e);
		*e = NULL;
		return false;
	}
	return true;
}

static bool file_in_to(struct apply *a, const char *path, git_tree_entry **e)
{
	return file_in(a->to, path, e);
}

static bool to_be_removed(struct apply *a, const char *path)
{
	git_tree_entry *e;
	size_t lo = 0, hi = a->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(a->paths[mid], path);

		if (c == 0) {
			if (file_in_to(a, path, &e)) {
				git_tree_entry_free(e);
				return false;
			}
			return true;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/*
 * Before anything is written: every directory on the way to a path to be
 * written is a directory, or a file or link that goes first.
 */
static int check_the_way(struct apply *a, const char *path)
{
	char sub[PATH_MAX];
	const char *slash;
	struct stat st;

	for (slash = strchr(path, '/'); slash; slash = strchr(slash + 1, '/')) {
		if ((size_t)(slash - path) >= sizeof(sub))
			break;
		memcpy(sub, path, (size_t)(slash - path));
		sub[slash - path] = '\0';
		/* The shorter prefixes are directories: this looks up no link. */
		if (fstatat(a->root, sub, &st, AT_SYMLINK_NOFOLLOW) < 0 || to_be_removed(a, sub))
			return 0;   /* made afresh from here on */
		if (!S_ISDIR(st.st_mode))
			return at_error_set(a->err, AT_EDIRTY, "'%s' is in the way of '%s'", sub,
					    path);
	}
	return 0;
}

/* Deletions: the file at path, then the directories left empty above it. */
static int remove_path(struct apply *a, const char *path)
{
	char up[PATH_MAX];
	const char *base;
	struct stat st;
	char *slash;
	int fd = dir_of(a, path, false, &base);

	if (fd < 0)
		return 0;   /* nothing there */
	if (fstatat(fd, base, &st, AT_SYMLINK_NOFOLLOW) < 0 || S_ISDIR(st.st_mode))
		return 0;   /* gone, or a directory: a tree of `to`, a submodule, or not ours */
	if (unlinkat(fd, base, 0) < 0 && errno != ENOENT)
		return at_error_sys(a->err, AT_ESYS, "cannot remove '%s'", path);
	if (at_fmt(up, sizeof(up), "%s", path) < 0)
		return 0;
	while ((slash = strrchr(up, '/'))) {
		*slash = '\0';
		forget_dir(a);
		fd = dir_of(a, up, false, &base);
		if (fd < 0 || unlinkat(fd, base, AT_REMOVEDIR) < 0)
			break;
	}
	forget_dir(a);
	return 0;
}

/* A temporary name on the file system of dfd: in TMP_DIR when it is the same one. */
static int tmp_dir_for(struct apply *a, int dfd, char *name, size_t size)
{
	struct stat d, t;
	bool here = a->tmp < 0 || fstat(dfd, &d) < 0 || fstat(a->tmp, &t) < 0 ||
		    d.st_dev != t.st_dev;

	snprintf(name, size, "%s" TMP_PREFIX "%ld-%u", here ? "." : "", (long)getpid(),
		 a->serial++);
	return here ? dfd : a->tmp;
}

/* Write bytes (or a link to them) under a temporary name, then rename it over path. */
static int put(struct apply *a, const char *path, int dfd, const char *base, const void *data,
	       size_t len, git_filemode_t mode)
{
	char tmp[64], target[PATH_MAX];
	int tfd = tmp_dir_for(a, dfd, tmp, sizeof(tmp)), fd, rc = 0;

	if (mode == GIT_FILEMODE_LINK && a->symlinks) {
		if (len >= sizeof(target))
			return at_error_set(a->err, AT_ESYS, "link '%s' too long", path);
		memcpy(target, data, len);
		target[len] = '\0';
		if (symlinkat(target, tfd, tmp) < 0)
			return at_error_sys(a->err, AT_ESYS, "cannot write '%s'", path);
	} else {
		fd = openat(tfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    mode == GIT_FILEMODE_BLOB_EXECUTABLE ? 0777 : 0666);
		if (fd < 0)
			return at_error_sys(a->err, AT_ESYS, "cannot write '%s'", path);
		if (at_write_all(fd, data, len) < 0)
			rc = at_error_sys(a->err, AT_ESYS, "cannot write '%s'", path);
		if (close(fd) < 0 && rc == 0)
			rc = at_error_sys(a->err, AT_ESYS, "cannot write '%s'", path);
	}
	/* An empty directory where the file goes (a tree of the old state) goes first. */
	if (rc == 0 && renameat(tfd, tmp, dfd, base) < 0 &&
	    (errno != EISDIR || unlinkat(dfd, base, AT_REMOVEDIR) < 0 ||
	     renameat(tfd, tmp, dfd, base) < 0))
		rc = at_error_sys(a->err, AT_ESYS, "cannot put '%s' in place", path);
	if (rc < 0)
		unlinkat(tfd, tmp, 0);
	return rc;
}

static int write_path(struct apply *a, const char *path, const git_tree_entry *e)
{
	git_filemode_t mode = git_tree_entry_filemode(e);
	git_blob_filter_options fo = GIT_BLOB_FILTER_OPTIONS_INIT;
	git_buf buf = { NULL, 0, 0 };
	git_blob *blob = NULL;
	const char *base;
	int rc, fd = dir_of(a, path, true, &base);

	if (fd < 0)
		return at_error_sys(a->err, AT_ESYS, "cannot make the directory of '%s'", path);
	if (mode == GIT_FILEMODE_COMMIT) {   /* a submodule: its directory, as git makes it */
		struct stat st;

		if (fstatat(fd, base, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(st.st_mode) &&
		    unlinkat(fd, base, 0) < 0)
			return at_error_sys(a->err, AT_ESYS, "cannot remove '%s'", path);
		if (mkdirat(fd, base, 0777) < 0 && errno != EEXIST)
			return at_error_sys(a->err, AT_ESYS, "cannot make '%s'", path);
		return 0;
	}
	/* Not GIT_BLOB_FILTER_CHECK_FOR_BINARY: it makes a binary blob empty. */
	fo.flags = 0;
	if (a->attr_commit) {
		fo.flags = GIT_BLOB_FILTER_NO_SYSTEM_ATTRIBUTES | GIT_BLOB_FILTER_ATTRIBUTES_FROM_COMMIT;
		git_oid_cpy(&fo.attr_commit_id, a->attr_commit);
	}
	if (git_blob_lookup(&blob, a->repo, git_tree_entry_id(e)) < 0 ||
	    (mode != GIT_FILEMODE_LINK && git_blob_filter(&buf, blob, path, &fo) < 0)) {
		rc = at_git_error(a->err, AT_EGIT, "cannot read '%s'", path);
	} else if (mode == GIT_FILEMODE_LINK) {
		rc = put(a, path, fd, base, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob),
			 mode);
	} else {
		rc = put(a, path, fd, base, buf.ptr, buf.size, mode);
	}
	git_buf_dispose(&buf);
	git_blob_free(blob);
	return rc;
}

/* Does `to` hold e (the index's entry) at path: what was written there? */
static bool same_entry(struct apply *a, const char *path, const git_tree_entry *e)
{
	git_tree_entry *w;
	bool same = file_in_to(a, path, &w) &&
		    git_tree_entry_filemode(w) == git_tree_entry_filemode(e) &&
		    git_oid_equal(git_tree_entry_id(w), git_tree_entry_id(e));

	git_tree_entry_free(w);
	return same;
}

/* The index entry of path as `to` has it, with the stat data of what was written. */
static int stage(struct apply *a, git_index *idx, const char *path, const git_tree_entry *e)
{
	git_index_entry ie;
	const char *base;
	struct stat st;
	int fd;

	memset(&ie, 0, sizeof(ie));
	ie.path = path;
	ie.mode = git_tree_entry_filemode(e);
	git_oid_cpy(&ie.id, git_tree_entry_id(e));
	/* The stat data of what was written vouches for the entry only when it is that. */
	if (a->index_to != a->to && !same_entry(a, path, e))
		fd = -1;
	else if (ie.mode != GIT_FILEMODE_COMMIT && (fd = dir_of(a, path, false, &base)) >= 0 &&
	    fstatat(fd, base, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		ie.ctime.seconds = (int32_t)st.st_ctim.tv_sec;
		ie.ctime.nanoseconds = (uint32_t)st.st_ctim.tv_nsec;
		ie.mtime.seconds = (int32_t)st.st_mtim.tv_sec;
		ie.mtime.nanoseconds = (uint32_t)st.st_mtim.tv_nsec;
		ie.dev = (uint32_t)st.st_dev;
		ie.ino = (uint32_t)st.st_ino;
		ie.uid = st.st_uid;
		ie.gid = st.st_gid;
		ie.file_size = (uint32_t)st.st_size;
	}
	if (git_index_add(idx, &ie) < 0)
		return at_git_error(a->err, AT_EGIT, "cannot stage '%s'", path);
	return 0;
}

/* The index entries of every path, in idx. */
static int stage_all(struct apply *a, git_index *idx)
{
	git_tree_entry *e;
	size_t i;
	int rc = 0;

	for (i = 0; i < a->nindex && rc == 0; i++) {
		if (file_in(a->index_to, a->index_paths[i], &e)) {
			rc = stage(a, idx, a->index_paths[i], e);
			git_tree_entry_free(e);
		} else if (git_index_remove(idx, a->index_paths[i], 0) < 0) {
			git_error_clear();   /* it was not staged */
		}
	}
	return rc;
}

/* Copy the worktree's index file to TMP_DIR/INDEX_COPY (none: an empty index). */
static int copy_index(struct apply *a, int gitdir)
{
	AT_AUTOCLOSE int in = openat(gitdir, "index", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	AT_AUTOCLOSE int out = -1;
	char buf[65536];
	ssize_t n;

	unlinkat(a->tmp, INDEX_COPY, 0);
	if (in < 0)
		return errno == ENOENT ? 0 : -1;
	out = openat(a->tmp, INDEX_COPY, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (out < 0)
		return -1;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (at_write_all(out, buf, (size_t)n) < 0)
			return -1;
	return n < 0 ? -1 : 0;
}

/*
 * The new index, written in TMP_DIR as INDEX_COPY, goes in as git's protocol
 * wants: as index.lock, created only if there is none (another git command
 * may be at work), then renamed over the index. Before that, OWNER records
 * this process and INDEX_COPY's inode and birth time: a kill meanwhile
 * leaves an index.lock that at_apply_clear_stale_lock() can tell is ours.
 */
static int publish_index(struct apply *a, int gitdir)
{
	struct statx copy;
	char line[128];
	int fd, n;

	if (statx(a->tmp, INDEX_COPY, AT_SYMLINK_NOFOLLOW, STATX_INO | STATX_BTIME, &copy) < 0)
		goto fail;
	n = snprintf(line, sizeof(line), "%d %lld %llu %lld.%u\n", (int)getpid(),
		     at_proc_self_start(), (unsigned long long)copy.stx_ino,
		     (long long)copy.stx_btime.tv_sec, copy.stx_btime.tv_nsec);
	fd = openat(a->tmp, OWNER ".tmp", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		goto fail;
	if (at_write_all(fd, line, (size_t)n) < 0 || close(fd) < 0 ||
	    renameat(a->tmp, OWNER ".tmp", a->tmp, OWNER) < 0)
		goto fail;
	/* index.lock made atomically, only if absent: a link where renameat2 cannot. */
	if (renameat2(a->tmp, INDEX_COPY, gitdir, "index.lock", RENAME_NOREPLACE) < 0 &&
	    (errno != EINVAL || linkat(a->tmp, INDEX_COPY, gitdir, "index.lock", 0) < 0)) {
		if (errno == EEXIST)
			return at_error_set(a->err, AT_ESYS, "another git command is running in "
					    "'%s' ('%sindex.lock' exists)", a->workdir,
					    git_repository_path(a->repo));
		goto fail;
	}
	if (renameat(gitdir, "index.lock", gitdir, "index") < 0) {
		unlinkat(gitdir, "index.lock", 0);
		goto fail;
	}
	unlinkat(a->tmp, INDEX_COPY, 0);
	unlinkat(a->tmp, OWNER, 0);
	return 0;
fail:
	return at_error_sys(a->err, AT_ESYS, "cannot write the index of '%s'",
			    a->workdir);
}

/* The index file at path read, the entries staged, written back, all by libgit2. */
static int stage_in(struct apply *a, const char *path)
{
	git_index *idx = NULL;
	int rc;

	if (git_index_open(&idx, path) < 0)
		rc = at_git_error(a->err, AT_EGIT, "cannot read the index");
	else if ((rc = stage_all(a, idx)) == 0 && git_index_write(idx) < 0)
		rc = at_git_error(a->err, AT_EGIT, "cannot write the index");
	git_index_free(idx);
	return rc;
}

/* The index changes of index_paths, as index_to has them (git/index_update.h); NULL: no memory. */
static struct at_index_change *index_changes(struct apply *a)
{
	struct at_index_change *c = calloc(a->nindex ? a->nindex : 1, sizeof(*c));
	git_tree_entry *e;
	size_t i;

	for (i = 0; c && i < a->nindex; i++) {
		c[i].path = a->index_paths[i];
		if (!file_in(a->index_to, c[i].path, &e)) {
			c[i].remove = true;
			continue;
		}
		c[i].mode = git_tree_entry_filemode(e);
		git_oid_cpy(&c[i].id, git_tree_entry_id(e));
		git_tree_entry_free(e);
	}
	return c;
}

/*
 * INDEX_COPY in TMP_DIR (without copy, the index itself, through
 * index.lock) made from the index file by git/index_update.c: the changed
 * entries only. AT_INDEX_DECLINED when it does not take that index.
 */
static int index_fast(struct apply *a, bool copy)
{
	AT_AUTOFREE struct at_index_change *c = NULL;
	char index[PATH_MAX];
	int fd, rc;

	if (at_fmt(index, sizeof(index), "%sindex", git_repository_path(a->repo)) < 0)
		return at_error_set(a->err, AT_ESYS, "path too long '%s'",
				    git_repository_path(a->repo));
	if (!(c = index_changes(a)))
		return at_error_set(a->err, AT_ESYS, "out of memory");
	if (!copy)
		return at_index_update(index, c, a->nindex, a->err);
	unlinkat(a->tmp, INDEX_COPY, 0);
	fd = openat(a->tmp, INDEX_COPY, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (fd < 0)
		return at_error_sys(a->err, AT_ESYS, "cannot copy the index of '%s'", a->workdir);
	rc = at_index_update_to(index, fd, INDEX_COPY, c, a->nindex, a->err);
	if (close(fd) < 0 && rc == 0)
		rc = at_error_sys(a->err, AT_ESYS, "cannot copy the index of '%s'", a->workdir);
	return rc;
}

/*
 * Last: the index, in one rename. Without TMP_DIR, libgit2 writes it (its
 * own lock file and rename: a kill then may leave index.lock behind, as a
 * git command killed while writing it does). With index_file, from the
 * index file, the changed entries only (libgit2 where that declines).
 */
static int write_index(struct apply *a)
{
	AT_AUTOCLOSE int gitdir = -1;
	git_index *idx = NULL;
	char copy[PATH_MAX];
	int rc;

	if (a->index_file && a->nindex == 0)
		return 0;   /* no entry to change */
	if (a->tmp < 0 && a->index_file) {
		rc = index_fast(a, false);
		if (rc == AT_INDEX_DECLINED &&
		    at_fmt(copy, sizeof(copy), "%sindex", git_repository_path(a->repo)) == 0)
			rc = stage_in(a, copy);
		return rc;
	}
	if (a->tmp < 0) {
		if (git_repository_index(&idx, a->repo) < 0 || git_index_read(idx, true) < 0)
			rc = at_git_error(a->err, AT_EGIT, "cannot read the index");
		else if ((rc = stage_all(a, idx)) == 0 && git_index_write(idx) < 0)
			rc = at_git_error(a->err, AT_EGIT, "cannot write the index");
		git_index_free(idx);
		return rc;
	}
	gitdir = open(git_repository_path(a->repo), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (gitdir < 0)
		return at_error_sys(a->err, AT_ESYS, "cannot copy the index of '%s'",
				    a->workdir);
	rc = a->index_file ? index_fast(a, true) : AT_INDEX_DECLINED;
	if (rc == AT_INDEX_DECLINED) {
		if (copy_index(a, gitdir) < 0 ||
		    at_fmt(copy, sizeof(copy), "%s" TMP_DIR "/" INDEX_COPY,
			   git_repository_path(a->repo)) < 0)
			return at_error_sys(a->err, AT_ESYS, "cannot copy the index of '%s'",
					    a->workdir);
		rc = stage_in(a, copy);
	}
	return rc == 0 ? publish_index(a, gitdir) : rc;
}

bool at_apply_clear_stale_lock(git_repository *repo)
{
	char path[PATH_MAX], lock[PATH_MAX];
	AT_AUTOFREE char *text = NULL;
	unsigned long long ino;
	long long start, sec;
	struct statx st;
	unsigned nsec;
	int pid;

	if (at_fmt(path, sizeof(path), "%s" TMP_DIR "/" OWNER, git_repository_path(repo)) < 0 ||
	    at_fmt(lock, sizeof(lock), "%sindex.lock", git_repository_path(repo)) < 0 ||
	    !(text = at_read_file(path, 4096, NULL)) ||
	    sscanf(text, "%d %lld %llu %lld.%u", &pid, &start, &ino, &sec, &nsec) != 5 ||
	    at_proc_alive(pid, start) ||
	    statx(AT_FDCWD, lock, AT_SYMLINK_NOFOLLOW, STATX_INO | STATX_BTIME, &st) < 0)
		return false;
	/* The very file that apply made (by inode and birth time), left by its death. */
	if (st.stx_ino != ino || st.stx_btime.tv_sec != sec || st.stx_btime.tv_nsec != nsec)
		return false;
	return unlink(lock) == 0 && unlink(path) == 0;
}

/* TMP_DIR, emptied of what a killed apply left there; -1 when it cannot be had. */
static int open_tmp_dir(git_repository *repo)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int fd;

	if (at_fmt(path, sizeof(path), "%s" TMP_DIR, git_repository_path(repo)) < 0 ||
	    (mkdir(path, 0700) < 0 && errno != EEXIST) ||
	    (fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return -1;
	if ((d = fdopendir(fcntl(fd, F_DUPFD_CLOEXEC, 0)))) {
		while ((de = readdir(d)))
			if (strncmp(de->d_name, TMP_PREFIX, strlen(TMP_PREFIX)) == 0)
				unlinkat(fd, de->d_name, 0);
		closedir(d);
	}
	return fd;
}

static int apply_all(struct apply *a)
{
	git_tree_entry *e;
	size_t i;
	int rc = 0;

	for (i = 0; i < a->n && rc == 0; i++) {
		if (file_in_to(a, a->paths[i], &e)) {
			rc = check_the_way(a, a->paths[i]);
			git_tree_entry_free(e);
		}
	}
	/* Deletions deepest first, so that the directories they empty can go. */
	for (i = a->n; i > 0 && rc == 0; i--) {
		if (file_in_to(a, a->paths[i - 1], &e))
			git_tree_entry_free(e);
		else
			rc = remove_path(a, a->paths[i - 1]);
	}
	if (rc == 0)
		at_test_kill_point("apply:removed");
	for (i = 0; i < a->n && rc == 0; i++) {
		if (file_in_to(a, a->paths[i], &e)) {
			rc = write_path(a, a->paths[i], e);
			git_tree_entry_free(e);
		}
	}
	if (rc == 0)
		at_test_kill_point("apply:written");
	return rc == 0 ? write_index(a) : rc;
}

int at_apply_paths(git_repository *repo, git_tree *to, char *const *paths, size_t n,
		   struct at_error *err)
{
	return at_apply_paths_ext(repo, to, NULL, paths, n, err);
}

int at_apply_paths_ext(git_repository *repo, git_tree *to, const struct at_apply_opts *o,
		       char *const *paths, size_t n, struct at_error *err)
{
	struct apply a = {
		.repo = repo, .to = to, .index_to = o && o->index_to ? o->index_to : to,
		.attr_commit = o ? o->attr_commit : NULL, .paths = paths, .n = n,
		.index_paths = o && o->own_index ? o->index_paths : paths,
		.nindex = o && o->own_index ? o->nindex_paths : n,
		.index_file = o && o->own_index, .root = -1, .tmp = -1, .symlinks = true,
		.dir_fd = -1, .err = err,
	};
	const char *workdir = o && o->workdir ? o->workdir : git_repository_workdir(repo);
	int rc;

	a.workdir = workdir;
	if (!workdir)
		return at_error_set(err, AT_EGIT, "'%s' has no worktree", git_repository_path(repo));
	/* A task's worktree (o->workdir) is the agent's: its top never through a link either. */
	if (o && o->workdir) {
		if ((a.root = at_wt_open_root(workdir, err)) < 0)
			return err->code;
	} else if ((a.root = open(workdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		return at_error_sys(err, AT_ESYS, "cannot open '%s'", workdir);
	}
	a.symlinks = at_git_config_bool(repo, "core.symlinks", true);
	a.tmp = open_tmp_dir(repo);
	rc = apply_all(&a);
	forget_dir(&a);
	if (a.tmp >= 0)
		close(a.tmp);
	close(a.root);
	return rc;
}

/* Does the blob `id` hold the text of the link at base in dfd? */
static bool link_is(int dfd, const char *base, const git_oid *id)
{
	char target[PATH_MAX];
	ssize_t len = readlinkat(dfd, base, target, sizeof(target));
	git_oid got;

	return len >= 0 && (size_t)len < sizeof(target) &&
	       git_odb_hash(&got, target, (size_t)len, GIT_OBJECT_BLOB) == 0 && git_oid_equal(&got, id);
}

static bool file_is(struct apply *a, const char *path, const git_tree_entry *e)
{
	git_filemode_t mode = git_tree_entry_filemode(e);
	const char *base;
	struct stat st;
	git_oid got;
	int fd = dir_of(a, path, false, &base);

	if (fd < 0 || fstatat(fd, base, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return false;
	if (mode == GIT_FILEMODE_COMMIT)
		return S_ISDIR(st.st_mode);
	if (mode == GIT_FILEMODE_LINK && a->symlinks)
		return S_ISLNK(st.st_mode) && link_is(fd, base, git_tree_entry_id(e));
	if (!S_ISREG(st.st_mode))
		return false;
	if (mode != GIT_FILEMODE_LINK && at_git_config_bool(a->repo, "core.filemode", true) &&
	    ((st.st_mode & S_IXUSR) != 0) != (mode == GIT_FILEMODE_BLOB_EXECUTABLE))
		return false;
	/* Through the filters git cleans a file with ("" for a link's text: none). */
	if (git_repository_hashfile(&got, a->repo, path, GIT_OBJECT_BLOB,
				    mode == GIT_FILEMODE_LINK ? "" : NULL) < 0) {
		git_error_clear();
		return false;
	}
	return git_oid_equal(&got, git_tree_entry_id(e));
}

bool at_apply_path_is_new(git_repository *repo, git_tree *to, const char *path)
{
	struct apply a = {
		.repo = repo, .to = to, .index_to = to, .workdir = git_repository_workdir(repo),
		.root = -1, .tmp = -1, .symlinks = true, .dir_fd = -1,
	};
	const char *workdir = git_repository_workdir(repo), *base;
	git_tree_entry *e = NULL;
	struct stat st;
	bool is;
	int fd;

	if (!workdir || (a.root = open(workdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return false;
	a.symlinks = at_git_config_bool(repo, "core.symlinks", true);
	if (file_in_to(&a, path, &e)) {
		is = file_is(&a, path, e);
	} else {
		/* Nothing there, or a directory (a tree of `to`). */
		fd = dir_of(&a, path, false, &base);
		is = fd < 0 || fstatat(fd, base, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		     S_ISDIR(st.st_mode);
	}
	git_tree_entry_free(e);
	forget_dir(&a);
	close(a.root);
	return is;
}

int at_apply_task_paths(git_repository *repo, const char *worktree, const git_oid *base,
			git_tree *to, char *const *paths, size_t n, struct at_error *err)
{
	const struct at_apply_opts o = { NULL, base, worktree };
	bool any;
	int rc;

	if (git_repository_workdir(repo))
		return at_error_set(err, AT_EUSAGE, "a task's repository opened with its worktree");
	/* The filters see the base's attributes only: none of the task's files or index. */
	if ((rc = at_git_attrs_from_base(repo, base, (const char *const *)paths, n, &any, err)) < 0)
		return rc;
	return at_apply_paths_ext(repo, to, &o, paths, n, err);
}
