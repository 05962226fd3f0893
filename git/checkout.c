#include "git/checkout.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>


#include "core/array.h"
#include "core/trace.h"
#include "core/util.h"
#include "git/internal.h"
#include "gitfmt/cache_tree.h"
#include "gitfmt/index_file.h"

#define MAX_WORKERS 8
#define FILES_PER_WORKER 512   /* fewer files than this a thread: not worth starting one */

struct entry {
	char *path;              /* relative to the worktree, '/'-separated */
	git_filemode_t mode;     /* one of git's: tree, blob, executable, link, commit */
	git_oid id;
	struct stat st;          /* of what was written */
};

struct plan {
	struct entry *v;
	size_t n, cap;
	bool declined;
};

/* What the workers share: their slices of plan, the first failure. */
struct job {
	struct plan *plan;
	int root;                /* the worktree's directory */
	const char *objects;     /* the object directory each worker opens */
	atomic_bool failed;
	pthread_mutex_t lock;
	struct at_error err;
	atomic_size_t written;   /* files written, by every thread */
	size_t files;
	const struct at_progress_hook *progress;   /* told by the caller's thread only */
};

#define PROGRESS_EVERY 64   /* files between two reports of the caller's thread */

static void say_progress(struct job *job)
{
	at_progress_say(job->progress, "Updating files", atomic_load(&job->written), job->files);
}

struct worker {
	struct job *job;
	size_t from, to;
	pthread_t thread;
};

/* ".git" after dropping what NTFS ignores at the end (dots, spaces) or HFS anywhere (non-ASCII). */
static bool is_dotgit_spelling(const char *name)
{
	char ascii[8];
	size_t n = 0, len;
	const char *p;

	for (p = name; *p; p++) {
		if ((unsigned char)*p >= 0x80)
			continue;
		if (n == sizeof(ascii) - 1)
			return false;
		ascii[n++] = *p;
	}
	ascii[n] = '\0';
	len = n;
	while (len > 4 && (ascii[len - 1] == '.' || ascii[len - 1] == ' '))
		ascii[--len] = '\0';
	return strcasecmp(ascii, ".git") == 0 || strcasecmp(ascii, "git~1") == 0;
}

/* A name this checkout writes as git would; anything else is left to libgit2. */
static bool plain_name(const char *name)
{
	const unsigned char *p;

	if (!name[0] || strcmp(name, ".") == 0 || strcmp(name, "..") == 0 ||
	    is_dotgit_spelling(name))
		return false;
	for (p = (const unsigned char *)name; *p; p++)
		if (*p < 0x20 || *p == 0x7f || *p == '/' || *p == '\\' || *p == ':')
			return false;
	return true;
}

static int plan_entry(const char *root, const git_tree_entry *te, void *payload)
{
	struct plan *plan = payload;
	const char *name = git_tree_entry_name(te);
	git_filemode_t mode = git_tree_entry_filemode(te);
	struct entry *e;
	size_t len;

	if (!plain_name(name) ||
	    (mode != GIT_FILEMODE_TREE && mode != GIT_FILEMODE_BLOB &&
	     mode != GIT_FILEMODE_BLOB_EXECUTABLE && mode != GIT_FILEMODE_LINK &&
	     mode != GIT_FILEMODE_COMMIT) ||
	    (mode == GIT_FILEMODE_LINK && strcasecmp(name, ".gitmodules") == 0))
		goto decline;
	len = strlen(root) + strlen(name);
	if (len >= PATH_MAX)
		goto decline;
	if (AT_ARRAY_GROW(plan->v, plan->cap, plan->n + 1) < 0)
		return -1;
	e = &plan->v[plan->n];
	if (!(e->path = malloc(len + 1)))
		return -1;
	snprintf(e->path, len + 1, "%s%s", root, name);
	e->mode = mode;
	git_oid_cpy(&e->id, git_tree_entry_id(te));
	memset(&e->st, 0, sizeof(e->st));
	plan->n++;
	return 0;
decline:
	plan->declined = true;
	return -1;   /* stops the walk */
}

static void plan_free(struct plan *plan)
{
	size_t i;

	for (i = 0; i < plan->n; i++)
		free(plan->v[i].path);
	free(plan->v);
}

static void job_fail(struct job *job, const char *what, const char *path)
{
	int saved = errno;

	pthread_mutex_lock(&job->lock);
	errno = saved;
	if (saved)
		at_error_sys(&job->err, AT_ESYS, "cannot %s '%s'", what, path);
	else
		at_git_error(&job->err, AT_EGIT, "cannot %s '%s'", what, path);
	pthread_mutex_unlock(&job->lock);
	atomic_store(&job->failed, true);
}

/* One file, link or gitlink's directory, and its stat data for the index. */
static int write_entry(struct job *job, git_odb *odb, struct entry *e)
{
	git_odb_object *obj = NULL;
	const char *data;
	size_t size;
	char *target;
	int fd, rc = -1;

	if (e->mode == GIT_FILEMODE_COMMIT) {
		/* A submodule: git leaves its directory empty. */
		if (mkdirat(job->root, e->path, 0777) < 0 ||
		    fstatat(job->root, e->path, &e->st, AT_SYMLINK_NOFOLLOW) < 0)
			goto sys_failed;
		return 0;
	}
	errno = 0;
	if (git_odb_read(&obj, odb, &e->id) < 0 || git_odb_object_type(obj) != GIT_OBJECT_BLOB) {
		job_fail(job, "read the blob of", e->path);
		goto out;
	}
	data = git_odb_object_data(obj);
	size = git_odb_object_size(obj);
	if (e->mode == GIT_FILEMODE_LINK) {
		if (memchr(data, '\0', size) || !(target = strndup(data, size))) {
			errno = memchr(data, '\0', size) ? EINVAL : ENOMEM;
			goto sys_failed;
		}
		rc = symlinkat(target, job->root, e->path);
		free(target);
		if (rc < 0 || fstatat(job->root, e->path, &e->st, AT_SYMLINK_NOFOLLOW) < 0) {
			rc = -1;
			goto sys_failed;
		}
		goto out;
	}
	fd = openat(job->root, e->path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    e->mode == GIT_FILEMODE_BLOB_EXECUTABLE ? 0777 : 0666);
	if (fd < 0)
		goto sys_failed;
	rc = at_write_all(fd, data, size) < 0 || fstat(fd, &e->st) < 0 ? -1 : 0;
	if (close(fd) < 0 || rc < 0) {
		rc = -1;
		goto sys_failed;
	}
	goto out;
sys_failed:
	job_fail(job, "write", e->path);
	rc = -1;
out:
	git_odb_object_free(obj);
	return rc;
}

/* report: this is the caller's thread, which tells the progress hook. */
static void write_range(struct job *job, git_odb *odb, size_t from, size_t to, bool report)
{
	size_t i;

	for (i = from; i < to && !atomic_load(&job->failed); i++) {
		if (job->plan->v[i].mode == GIT_FILEMODE_TREE)
			continue;
		if (write_entry(job, odb, &job->plan->v[i]) < 0)
			return;
		if (atomic_fetch_add(&job->written, 1) % PROGRESS_EVERY == 0 && report)
			say_progress(job);
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	git_odb *odb = NULL;

	errno = 0;
	if (git_odb_open(&odb, w->job->objects) < 0)
		job_fail(w->job, "open the object database", w->job->objects);
	else
		write_range(w->job, odb, w->from, w->to, false);
	git_odb_free(odb);
	return NULL;
}

static size_t worker_count(size_t files)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t n = cpus > 0 ? (size_t)cpus : 1;

	if (n > MAX_WORKERS)
		n = MAX_WORKERS;
	if (n > files / FILES_PER_WORKER)
		n = files / FILES_PER_WORKER;
	return n ? n : 1;
}

/*
 * The directories first, in the walk's order (parents before children),
 * then the files in N slices: this thread takes the first, one thread
 * each the others.
 */
static int write_files(git_repository *wt, struct job *job, struct at_error *err)
{
	struct worker workers[MAX_WORKERS];
	size_t i, files = 0, n, started = 0;
	git_odb *odb = NULL;

	for (i = 0; i < job->plan->n; i++) {
		if (job->plan->v[i].mode != GIT_FILEMODE_TREE)
			files++;
		else if (mkdirat(job->root, job->plan->v[i].path, 0777) < 0)
			return at_error_sys(err, AT_ESYS, "cannot create directory '%s'",
					    job->plan->v[i].path);
	}
	job->files = files;
	at_test_kill_point("new:directories");
	n = worker_count(files);
	for (i = 0; i < n; i++) {
		workers[i].job = job;
		workers[i].from = job->plan->n * i / n;
		workers[i].to = job->plan->n * (i + 1) / n;
	}
	for (i = 1; i < n; i++) {
		if (pthread_create(&workers[i].thread, NULL, worker_main, &workers[i]) != 0)
			break;
		started = i;
	}
	if (git_repository_odb(&odb, wt) < 0)
		job_fail(job, "open the object database", job->objects);
	else
		write_range(job, odb, workers[0].from, workers[0].to, true);
	/* The slices of threads that did not start: done here. */
	for (i = started + 1; i < n && odb; i++)
		write_range(job, odb, workers[i].from, workers[i].to, true);
	git_odb_free(odb);
	for (i = 1; i <= started; i++)
		pthread_join(workers[i].thread, NULL);
	if (atomic_load(&job->failed)) {
		*err = job->err;
		return err->code;
	}
	say_progress(job);
	at_test_kill_point("new:files");
	return 0;
}

/* Index entries are in byte order of their paths, as the tree walk gives them. */
static int entry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->path, ((const struct entry *)b)->path);
}

static void put32(unsigned char **p, uint32_t v)
{
	(*p)[0] = (unsigned char)(v >> 24);
	(*p)[1] = (unsigned char)(v >> 16);
	(*p)[2] = (unsigned char)(v >> 8);
	(*p)[3] = (unsigned char)v;
	*p += 4;
}

static uint32_t index_mode(git_filemode_t mode)
{
	return mode == GIT_FILEMODE_BLOB_EXECUTABLE ? 0100755 : (uint32_t)mode;
}

/* One entry of the index, version 2: stat data, mode, id, flags, NUL-padded path. */
static unsigned char *put_entry(unsigned char *p, const struct entry *e)
{
	size_t len = strlen(e->path), size = (62 + len + 8) & ~(size_t)7;

	memset(p, 0, size);
	put32(&p, (uint32_t)e->st.st_ctim.tv_sec);
	put32(&p, (uint32_t)e->st.st_ctim.tv_nsec);
	put32(&p, (uint32_t)e->st.st_mtim.tv_sec);
	put32(&p, (uint32_t)e->st.st_mtim.tv_nsec);
	put32(&p, (uint32_t)e->st.st_dev);
	put32(&p, (uint32_t)e->st.st_ino);
	put32(&p, index_mode(e->mode));
	put32(&p, (uint32_t)e->st.st_uid);
	put32(&p, (uint32_t)e->st.st_gid);
	put32(&p, e->mode == GIT_FILEMODE_COMMIT ? 0 : (uint32_t)e->st.st_size);
	memcpy(p, e->id.id, GIT_OID_RAWSZ);
	p += GIT_OID_RAWSZ;
	*p++ = (unsigned char)((len < 0xfff ? len : 0xfff) >> 8);
	*p++ = (unsigned char)(len < 0xfff ? len : 0xfff);
	memcpy(p, e->path, len);
	return p + (size - 62);
}

/*
 * The index git would write after this checkout, without extensions, in
 * one buffer: to index.lock, then renamed over the index.
 */
/* The cache-tree extension for the plan, directories included (before they leave it). */
static int cache_tree(const struct plan *plan, const git_oid *root, unsigned char **ext,
		      size_t *len)
{
	struct at_tree_item *items = calloc(plan->n ? plan->n : 1, sizeof(*items));
	size_t i;
	int rc;

	if (!items)
		return -1;
	for (i = 0; i < plan->n; i++) {
		items[i].path = plan->v[i].path;
		items[i].dir = plan->v[i].mode == GIT_FILEMODE_TREE;
		items[i].id = &plan->v[i].id;
	}
	rc = at_cache_tree_encode(root, items, plan->n, ext, len);
	free(items);
	return rc;
}

static int write_index(const char *path, struct plan *plan, const git_oid *root,
		       struct at_error *err)
{
	size_t i, count = 0, size = 12 + GIT_OID_RAWSZ, extlen = 0;
	char lock[PATH_MAX];
	unsigned char *buf, *p, *ext = NULL;
	bool sorted = true;
	int fd, rc = 0;

	if (cache_tree(plan, root, &ext, &extlen) < 0)
		return at_error_set(err, AT_ESYS, "out of memory writing the index");
	size += 8 + extlen;

	/* The directories leave the plan: an index holds files, links and gitlinks. */
	for (i = 0; i < plan->n; i++) {
		if (plan->v[i].mode == GIT_FILEMODE_TREE) {
			free(plan->v[i].path);
			continue;
		}
		plan->v[count++] = plan->v[i];
		size += (62 + strlen(plan->v[i].path) + 8) & ~(size_t)7;
		if (count > 1 && strcmp(plan->v[count - 2].path, plan->v[count - 1].path) >= 0)
			sorted = false;
	}
	plan->n = count;
	if (!sorted)
		qsort(plan->v, count, sizeof(*plan->v), entry_cmp);
	if (at_fmt(lock, sizeof(lock), "%s.lock", path) < 0) {
		free(ext);
		return at_error_set(err, AT_ESYS, "index path '%s' too long", path);
	}
	if (!(buf = malloc(size))) {
		free(ext);
		return at_error_set(err, AT_ESYS, "out of memory writing the index '%s'", path);
	}
	p = buf;
	memcpy(p, "DIRC", 4);
	p += 4;
	put32(&p, 2);
	put32(&p, (uint32_t)count);
	for (i = 0; i < count; i++)
		p = put_entry(p, &plan->v[i]);
	memcpy(p, "TREE", 4);
	p += 4;
	put32(&p, (uint32_t)extlen);
	memcpy(p, ext, extlen);
	p += extlen;
	free(ext);
	if (at_index_checksum(p, buf, (size_t)(p - buf)) < 0) {
		free(buf);
		return at_error_set(err, AT_ESYS, "cannot hash the index '%s'", path);
	}
	fd = open(lock, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (fd < 0) {
		free(buf);
		return at_error_sys(err, AT_ESYS, "cannot create '%s'", lock);
	}
	if (at_write_all(fd, buf, size) < 0)
		rc = at_error_sys(err, AT_ESYS, "cannot write '%s'", lock);
	if (close(fd) < 0 && rc == 0)
		rc = at_error_sys(err, AT_ESYS, "cannot write '%s'", lock);
	if (rc == 0 && rename(lock, path) < 0)
		rc = at_error_sys(err, AT_ESYS, "cannot rename '%s'", lock);
	if (rc < 0)
		unlink(lock);
	free(buf);
	return rc;
}

int at_checkout_into(git_repository *repo, git_tree *tree, const char *dir,
		     const char *index_path, const struct at_progress_hook *progress,
		     struct at_error *err)
{
	struct plan plan = { NULL, 0, 0, false };
	char objects[PATH_MAX];
	struct job job;
	int rc;

	if (!at_git_config_bool(repo, "core.symlinks", true))
		return AT_CHECKOUT_DECLINED;
	if (git_tree_walk(tree, GIT_TREEWALK_PRE, plan_entry, &plan) < 0 && !plan.declined) {
		rc = at_git_error(err, AT_EGIT, "cannot read the tree to check out");
		goto out;
	}
	git_error_clear();
	if (plan.declined) {
		rc = AT_CHECKOUT_DECLINED;
		goto out;
	}
	if (at_fmt(objects, sizeof(objects), "%sobjects", git_repository_commondir(repo)) < 0) {
		rc = at_error_set(err, AT_ESYS, "object directory of '%s' too long",
				  git_repository_commondir(repo));
		goto out;
	}
	memset(&job, 0, sizeof(job));
	job.plan = &plan;
	job.objects = objects;
	atomic_init(&job.failed, false);
	atomic_init(&job.written, 0);
	job.progress = progress;
	pthread_mutex_init(&job.lock, NULL);
	job.root = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (job.root < 0)
		rc = at_error_sys(err, AT_ESYS, "cannot open worktree '%s'", dir);
	else if ((rc = write_files(repo, &job, err)) == 0)
		rc = write_index(index_path, &plan, git_tree_id(tree), err);
	if (job.root >= 0)
		close(job.root);
	pthread_mutex_destroy(&job.lock);
out:
	plan_free(&plan);
	return rc;
}

int at_checkout_fresh(git_repository *wt, git_tree *tree, const struct at_progress_hook *progress,
		      struct at_error *err)
{
	char index[PATH_MAX];

	if (at_fmt(index, sizeof(index), "%sindex", git_repository_path(wt)) < 0)
		return at_error_set(err, AT_ESYS, "index path of '%s' too long",
				    git_repository_path(wt));
	return at_checkout_into(wt, tree, git_repository_workdir(wt), index, progress, err);
}
