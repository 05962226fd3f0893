#include "git/scratch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/fs.h"
#include "core/util.h"
#include "git/internal.h"

#define SCRATCH_PREFIX "gate-"
#define ADMIN_PREFIX "agenttask."
/* A scratch directory this young may be one whose creator has not locked it yet. */
#define SWEEP_GRACE_SECONDS 60

static int scratch_dir(const struct at_paths *p, char *buf, size_t size)
{
	return at_fmt(buf, size, "%s", p->scratch_dir);
}

static int admin_path(const struct at_paths *p, const char *entry, char *buf, size_t size)
{
	char name[NAME_MAX + 1];

	return at_fmt(name, sizeof(name), ADMIN_PREFIX "%s", entry) < 0 ? -1
		: at_paths_admin(p, name, buf, size, NULL);
}

static int write_text(const char *path, const char *text, struct at_error *err)
{
	AT_AUTOCLOSE int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
				   0644);

	if (fd < 0 || at_write_all(fd, text, strlen(text)) < 0)
		return at_error_sys(err, AT_ESYS, "cannot write '%s'", path);
	return 0;
}

/* The directory and its flock; the lock is taken before anything is put in it. */
static int make_locked_dir(const struct at_paths *p, struct at_scratch *s, struct at_error *err)
{
	char dir[PATH_MAX];

	if (scratch_dir(p, dir, sizeof(dir)) < 0 ||
	    at_fmt(s->path, sizeof(s->path), "%s/" SCRATCH_PREFIX "XXXXXX", dir) < 0)
		return at_error_set(err, AT_ESYS, "path too long '%s'", p->state_dir);
	if (at_mkdirs(dir, 0700, err) < 0)
		return err->code;
	if (!mkdtemp(s->path)) {
		s->path[0] = '\0';
		return at_error_sys(err, AT_ESYS, "cannot create a scratch directory in '%s'", dir);
	}
	s->lock_fd = open(s->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (s->lock_fd < 0 || flock(s->lock_fd, LOCK_EX) < 0)
		return at_error_sys(err, AT_ESYS, "cannot lock '%s'", s->path);
	return 0;
}

/* What `git worktree add --detach` writes: the admin files and the .git pointer. */
static int write_worktree_files(const struct at_paths *p, struct at_scratch *s,
				const char *commit_hex, struct at_error *err)
{
	char file[PATH_MAX + 16], text[PATH_MAX + 16];
	const char *entry = strrchr(s->path, '/') + 1;

	if (at_fmt(s->name, sizeof(s->name), ADMIN_PREFIX "%s", entry) < 0 ||
	    admin_path(p, entry, s->admin_dir, sizeof(s->admin_dir)) < 0)
		return at_error_set(err, AT_ESYS, "path too long '%s'", p->common_dir);
	if (at_mkdirs(p->admins_dir, 0755, err) < 0)
		return err->code;
	if (mkdir(s->admin_dir, 0755) < 0) {
		at_error_sys(err, AT_ESYS, "cannot create '%s'", s->admin_dir);
		/* Not ours to remove on the way out: someone else's, or nothing. */
		s->admin_dir[0] = '\0';
		return err->code;
	}
	snprintf(file, sizeof(file), "%s/gitdir", s->admin_dir);
	snprintf(text, sizeof(text), "%s/.git\n", s->path);
	if (write_text(file, text, err) < 0)
		return err->code;
	snprintf(file, sizeof(file), "%s/commondir", s->admin_dir);
	if (write_text(file, "../..\n", err) < 0)
		return err->code;
	snprintf(file, sizeof(file), "%s/HEAD", s->admin_dir);
	snprintf(text, sizeof(text), "%s\n", commit_hex);
	if (write_text(file, text, err) < 0)
		return err->code;
	snprintf(file, sizeof(file), "%s/.git", s->path);
	snprintf(text, sizeof(text), "gitdir: %s\n", s->admin_dir);
	return write_text(file, text, err);
}

static int checkout(git_repository *wt, const git_oid *id, bool update_index,
		    struct at_error *err)
{
	git_checkout_options co = GIT_CHECKOUT_OPTIONS_INIT;
	git_object *obj = NULL;
	int rc = 0;

	co.checkout_strategy = GIT_CHECKOUT_FORCE;
	if (!update_index)
		co.checkout_strategy |= GIT_CHECKOUT_DONT_UPDATE_INDEX;
	if (git_object_lookup(&obj, wt, id, GIT_OBJECT_ANY) < 0 ||
	    git_checkout_tree(wt, obj, &co) < 0)
		rc = at_git_error(err, AT_EGIT, "cannot check out '%s' for the gate",
				  git_oid_tostr_s(id));
	git_object_free(obj);
	return rc;
}

static int fill(struct at_scratch *s, const struct at_oid *commit_id,
		const struct at_oid *tree_id, struct at_error *err)
{
	git_repository *wt = NULL;
	git_commit *commit = NULL;
	git_oid cid, tid;
	int rc;

	at_oid_to_git(&cid, commit_id);
	if (tree_id)
		at_oid_to_git(&tid, tree_id);
	if (git_repository_open_ext(&wt, s->path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0)
		return at_git_error(err, AT_EGIT, "cannot open scratch worktree '%s'", s->path);
	if (git_commit_lookup(&commit, wt, &cid) < 0)
		rc = at_git_error(err, AT_EGIT, "cannot read commit '%s'", git_oid_tostr_s(&cid));
	else
		rc = checkout(wt, &cid, true, err);
	/* The state under review over the commit, as uncommitted changes. */
	if (rc == 0 && tree_id && !git_oid_equal(&tid, git_commit_tree_id(commit)))
		rc = checkout(wt, &tid, false, err);
	git_commit_free(commit);
	git_repository_free(wt);
	return rc;
}

int at_scratch_create(struct at_repo *r, const struct at_oid *commit,
		      const struct at_oid *tree, struct at_scratch *out, struct at_error *err)
{
	char commit_hex[AT_OID_HEXSZ + 1];
	struct at_scratch s;
	int rc;

	at_oid_fmt(commit_hex, commit);
	memset(&s, 0, sizeof(s));
	s.lock_fd = -1;
	rc = make_locked_dir(&r->paths, &s, err);
	if (rc == 0)
		rc = write_worktree_files(&r->paths, &s, commit_hex, err);
	if (rc == 0)
		rc = fill(&s, commit, tree, err);
	if (rc < 0) {
		struct at_error ignored = AT_ERROR_INIT;
		at_scratch_remove(&s, &ignored);
		return rc;
	}
	*out = s;
	return 0;
}

int at_scratch_remove(struct at_scratch *s, struct at_error *err)
{
	int rc = 0;

	if (!s)
		return 0;
	/* The worktree before its admin directory: the sweep relies on that order. */
	if (s->path[0] && at_rmtree(s->path, err) < 0)
		rc = err->code;
	if (rc == 0 && s->admin_dir[0] && at_rmtree(s->admin_dir, err) < 0)
		rc = err->code;
	if (rc == 0) {
		s->path[0] = '\0';
		s->admin_dir[0] = '\0';
	}
	if (s->lock_fd >= 0)
		close(s->lock_fd);
	s->lock_fd = -1;
	return rc;
}

/* Every field of a scratch fits the task's it goes to: nothing is ever cut short. */
#define FITS(a, b) (sizeof(((struct at_task *)0)->a) >= sizeof(((struct at_scratch *)0)->b))
_Static_assert(FITS(worktree_name, name) && FITS(path, path) && FITS(admin_dir, admin_dir) &&
		       FITS(name, name),
	       "a scratch worktree's names fit a task record");

void at_scratch_as_task(const struct at_scratch *s, struct at_task *t)
{
	memset(t, 0, sizeof(*t));
	/* "gate-XXXXXX": the name mkdtemp made, well within a task name. */
	snprintf(t->name, sizeof(t->name), "%s", strrchr(s->path, '/') + 1);
	memcpy(t->worktree_name, s->name, sizeof(s->name));
	memcpy(t->path, s->path, sizeof(s->path));
	memcpy(t->admin_dir, s->admin_dir, sizeof(s->admin_dir));
	t->phase = AT_TASK_READY;
}

/* Is this scratch directory abandoned? Takes its lock when so (*fd_out to close). */
static bool abandoned(const char *path, int *fd_out)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);

	*fd_out = -1;
	if (fd < 0)
		return false;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0 || fstat(fd, &st) < 0 ||
	    time(NULL) - st.st_mtime < SWEEP_GRACE_SECONDS) {
		close(fd);
		return false;
	}
	*fd_out = fd;
	return true;
}

static int sweep_worktrees(struct at_repo *r, struct at_report *rep, struct at_error *err)
{
	char dir[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int rc = 0;

	if (scratch_dir(&r->paths, dir, sizeof(dir)) < 0 || !(d = opendir(dir)))
		return 0;
	while (rc == 0 && (de = readdir(d))) {
		struct at_scratch s;

		memset(&s, 0, sizeof(s));
		if (strncmp(de->d_name, SCRATCH_PREFIX, strlen(SCRATCH_PREFIX)) != 0 ||
		    at_fmt(s.path, sizeof(s.path), "%s/%s", dir, de->d_name) < 0 ||
		    admin_path(&r->paths, de->d_name, s.admin_dir, sizeof(s.admin_dir)) < 0 ||
		    !abandoned(s.path, &s.lock_fd))
			continue;
		/* For gc, a failure is reported and the sweep goes on. */
		if (at_scratch_remove(&s, err) < 0)
			rc = rep ? at_report_fail(rep, err) : err->code;
		else if (rep)
			rc = at_report_add(rep, "removed abandoned gate worktree '%s/%s'", dir,
					      de->d_name);
	}
	closedir(d);
	return rc;
}

/* Admin directories whose worktree is gone (a removal killed between the two). */
static int sweep_admin_dirs(struct at_repo *r, struct at_report *rep, struct at_error *err)
{
	const char *dir = r->paths.admins_dir;
	char sdir[PATH_MAX];
	const size_t plen = strlen(ADMIN_PREFIX SCRATCH_PREFIX);
	struct dirent *de;
	DIR *d;
	int rc = 0;

	if (scratch_dir(&r->paths, sdir, sizeof(sdir)) < 0 || !(d = opendir(dir)))
		return 0;
	while (rc == 0 && (de = readdir(d))) {
		char admin[PATH_MAX], wt[PATH_MAX];
		struct stat st;

		if (strncmp(de->d_name, ADMIN_PREFIX SCRATCH_PREFIX, plen) != 0 ||
		    at_fmt(admin, sizeof(admin), "%s/%s", dir, de->d_name) < 0 ||
		    at_fmt(wt, sizeof(wt), "%s/%s", sdir, de->d_name + strlen(ADMIN_PREFIX)) < 0 ||
		    lstat(wt, &st) == 0)
			continue;
		if (at_rmtree(admin, err) < 0)
			rc = rep ? at_report_fail(rep, err) : err->code;
		else if (rep)
			rc = at_report_add(rep, "removed gate worktree admin directory '%s'",
					      admin);
	}
	closedir(d);
	return rc;
}

int at_scratch_sweep(struct at_repo *r, struct at_report *rep, struct at_error *err)
{
	int rc = sweep_worktrees(r, rep, err);

	if (rc == 0)
		rc = sweep_admin_dirs(r, rep, err);
	return rc;
}
