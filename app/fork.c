/*
 * fork.c - a task made from another's whole state (app/fork.h).
 */
#include "app/fork.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "app/gitview.h"
#include "app/internal.h"
#include "app/lifecycle.h"
#include "core/audit.h"
#include "core/copytree.h"
#include "core/fs.h"
#include "core/name.h"
#include "core/runs.h"
#include "core/state.h"
#include "core/trace.h"
#include "core/util.h"
#include "git/trash.h"

/* src copied to dst (whose parent is made 0700 when missing); a missing src is nothing to copy. */
static int copy_part(const char *parent, const char *src, const char *dst, struct at_error *err)
{
	struct stat st;

	if (lstat(src, &st) < 0 && errno == ENOENT)
		return 0;
	if (mkdir(parent, 0700) < 0 && errno != EEXIST)
		return at_error_sys(err, AT_ESYS, "cannot create '%s'", parent);
	return at_copytree(src, dst, err);
}

/* What is at name below dirfd, when it is a small regular file (no link, no FIFO opened). */
static char *read_small(int dirfd, const char *name, size_t max, size_t *len)
{
	AT_AUTOCLOSE int fd = at_open_beneath(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);

	return fd < 0 ? NULL : at_read_fd(fd, max, len);
}

/*
 * Inside the copy (the task's bytes: every name opened beneath it, no link
 * followed), NAME's worktree's own git files (worktrees/agenttask-NAME: its
 * HEAD, index, logs) become NEW's, and a HEAD on NAME's branch is put on
 * NEW's, which the host made at the same commit.
 */
static int rename_worktree_files(const char *upper, const struct at_task *from,
				 const struct at_task *to, struct at_error *err)
{
	AT_AUTOCLOSE int top = open(upper, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	AT_AUTOCLOSE int wts = -1, dir = -1, fd = -1;
	char want[AT_REF_MAX + 8];
	AT_AUTOFREE char *text = NULL;
	size_t len = 0;

	if (top < 0)
		return at_error_sys(err, AT_ESYS, "cannot open '%s'", upper);
	wts = at_open_beneath(top, "worktrees", O_RDONLY | O_DIRECTORY);
	if (wts < 0)
		return errno == ENOENT ? 0 : at_error_sys(err, AT_EUNSAFE, "cannot open '%s/worktrees'",
							  upper);
	if (renameat(wts, from->worktree_name, wts, to->worktree_name) < 0)
		return errno == ENOENT ? 0 : at_error_sys(err, AT_ESYS, "cannot rename '%s'",
							  from->worktree_name);
	if ((dir = at_open_beneath(wts, to->worktree_name, O_RDONLY | O_DIRECTORY)) < 0)
		return at_error_sys(err, AT_EUNSAFE, "cannot open '%s'", to->worktree_name);
	if (at_fmt(want, sizeof(want), "ref: %s\n", from->branch) < 0)
		return at_error_set(err, AT_ESYS, "branch name too long");
	text = read_small(dir, "HEAD", AT_REF_MAX + 8, &len);
	if (!text || len != strlen(want) || memcmp(text, want, len) != 0)
		return 0;   /* detached, or on another branch: as it was */
	if (at_fmt(want, sizeof(want), "ref: %s\n", to->branch) < 0)
		return at_error_set(err, AT_ESYS, "branch name too long");
	if ((unlinkat(dir, "HEAD", 0) < 0 && errno != ENOENT) ||
	    (fd = openat(dir, "HEAD", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			 0644)) < 0 ||
	    at_write_all(fd, want, strlen(want)) < 0)
		return at_error_sys(err, AT_ESYS, "cannot write HEAD of '%s'", to->worktree_name);
	return 0;
}

/* NAME's lasting HOME and git view, copied to NEW's places. */
static int copy_parts(struct at_repo *r, const struct at_task *from, const struct at_task *to,
		      struct at_error *err)
{
	const struct at_paths *p = at_repo_paths(r);
	char src[PATH_MAX], dst[PATH_MAX], agreed[PATH_MAX];
	struct at_app_gitview vf, vt;
	int rc;

	if ((rc = at_paths_home(p, from->name, src, sizeof(src), err)) < 0 ||
	    (rc = at_paths_home(p, to->name, dst, sizeof(dst), err)) < 0 ||
	    (rc = copy_part(p->homes_dir, src, dst, err)) < 0)
		return rc;
	at_test_kill_point("fork:home");
	at_app_gitview_init(&vf);
	at_app_gitview_init(&vt);
	if ((rc = at_app_gitview_paths(r, from, &vf, err)) < 0 ||
	    (rc = at_app_gitview_paths(r, to, &vt, err)) < 0)
		return rc;
	if (!at_path_exists(vf.upper))
		return 0;
	if ((mkdir(p->views_dir, 0700) < 0 && errno != EEXIST) ||
	    (mkdir(vt.dir, 0700) < 0 && errno != EEXIST))
		return at_error_sys(err, AT_ESYS, "cannot create '%s'", vt.dir);
	if ((rc = at_copytree(vf.upper, vt.upper, err)) < 0 ||
	    (rc = rename_worktree_files(vt.upper, from, to, err)) < 0)
		return rc;
	/* The commit the branch and HEAD inside last agreed on: the same for both. */
	if (at_fmt(src, sizeof(src), "%s/imported", vf.dir) == 0 &&
	    at_fmt(agreed, sizeof(agreed), "%s/imported", vt.dir) == 0) {
		size_t len = 0;
		char *text = at_read_file(src, AT_OID_HEXSZ + 2, &len);

		if (text && at_write_atomic(agreed, text, len, 0600) < 0)
			rc = at_error_sys(err, AT_ESYS, "cannot write '%s'", agreed);
		free(text);
	}
	if (rc == 0)
		at_test_kill_point("fork:git");
	return rc;
}

/*
 * NEW at NAME's tip, half-made; NAME's uncommitted files over it, its
 * HOME and git view copied; then ready, with NAME's base. Rolled back on
 * any failure.
 */
static int make_fork(struct at_repo *r, const struct at_task *from, const char *new_name,
		     const struct at_task_state *st, struct at_task *out, struct at_error *err)
{
	struct at_error ignored = AT_ERROR_INIT;
	struct at_task t, ready;
	int rc;

	if ((rc = at_app_task_create_at(r, new_name, &st->tip, &t, err)) < 0)
		return rc;
	rc = at_trash_write_tree(&t, &st->tree, err);
	if (rc == 0) {
		at_test_kill_point("fork:files");
		rc = copy_parts(r, from, &t, err);
	}
	if (rc == 0) {
		ready = t;
		memcpy(ready.base_branch, from->base_branch, sizeof(ready.base_branch));
		memcpy(ready.base_commit, from->base_commit, sizeof(ready.base_commit));
		ready.phase = AT_TASK_READY;
		rc = at_state_save(at_repo_paths(r), &ready, err);
	}
	if (rc < 0) {
		/* t, not ready: its base_commit is the tip, so the branch goes too. */
		at_app_task_rollback(r, &t, &ignored);
		return rc;
	}
	*out = ready;
	return 0;
}

static int fork_locked(struct at_repo *r, const struct at_app_fork_opts *o,
		       struct at_task *from, struct at_app_fork_result *out,
		       struct at_error *err)
{
	struct at_runs_guard guard = AT_RUNS_GUARD_INIT;
	const struct at_task_state *st;
	struct at_error e = AT_ERROR_INIT, busy = AT_ERROR_INIT;
	struct at_app_view v;
	struct at_task old;
	int rc;

	/* A name taken: one line, before anything is looked at or made. */
	if (at_state_load(at_repo_paths(r), o->new_name, &old, &e) == 0 &&
	    old.phase == AT_TASK_READY)
		return at_error_set(err, AT_EEXISTS, "task '%s' already exists", o->new_name);
	/* NAME holds still: none of its commands runs while it is copied. */
	if ((rc = at_runs_stop(at_repo_paths(r), from->name, false, &guard, &busy)) < 0) {
		if (rc != AT_EBUSY) {
			*err = busy;
			return rc;
		}
		/* Not discard's "or use --force": fork kills nothing. */
		return at_error_set(err, AT_EBUSY, "task '%s' has a running command; fork it once "
				    "its commands have ended", from->name);
	}
	/* Asked for what can be done: a layered NAME made full (its files then copied). */
	rc = at_app_full_locked(r, from, err);
	if (rc == 0)
		rc = at_app_import_before(r, from, &out->warnings, err);
	at_app_view_init(&v, r, from);
	if (rc == 0)
		rc = at_app_view_state(&v, &st, err);
	if (rc == 0)
		rc = make_fork(r, from, o->new_name, st, &out->task, err);
	if (rc == 0)
		out->tip = st->tip;
	at_app_view_release(&v);
	at_runs_release(&guard, false);
	return rc;
}

int at_app_fork(const struct at_app *app, const struct at_app_fork_opts *o,
		struct at_app_fork_result *out, struct at_error *err)
{
	struct at_error aerr = AT_ERROR_INIT;
	struct at_app_locked l;
	struct at_task from;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = at_name_check(o->new_name, err)) < 0)
		return rc;
	rc = at_app_lock(app, &l, o->name, &from, err);
	if (rc == 0)
		rc = fork_locked(l.r, o, &from, out, err);
	if (rc == 0)
		at_app_audited(&out->warnings, out->task.name,
			       at_audit_fork(at_repo_paths(l.r), &out->task, from.name, &out->tip,
					     &aerr), &aerr);
	at_app_unlock(&l);
	return rc;
}

void at_app_fork_result_release(struct at_app_fork_result *res)
{
	if (res)
		at_strlist_release(&res->warnings);
}
