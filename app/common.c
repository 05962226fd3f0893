/*
 * common.c - what every use case starts with: the repository, the task, a
 * shared view of the task's worktree and state.
 */
#include "app/internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/lock.h"

#include "git/worktree.h"

int at_app_open(const struct at_app *app, struct at_repo **out, struct at_error *err)
{
	int rc = at_repo_open(out, app && app->dir ? app->dir : ".", err);

	if (rc == 0 && app && app->max_file_size)
		at_repo_set_max_file_size(*out, app->max_file_size);
	return rc;
}

int at_app_resolve(const struct at_app *app, struct at_repo *r, const char *name,
		   struct at_task *out, struct at_error *err)
{
	return at_task_resolve(r, name, app && app->dir ? app->dir : ".", out, err);
}

int at_app_resolve_present(const struct at_app *app, struct at_repo *r, const char *name,
			   struct at_task *out, struct at_error *err)
{
	int rc = at_app_resolve(app, r, name, out, err);

	if (rc == 0 && !at_worktree_present(out))
		rc = at_task_worktree_gone(out, err);
	return rc;
}

int at_app_lock(const struct at_app *app, struct at_app_locked *l, const char *name,
		struct at_task *task, struct at_error *err)
{
	int rc;

	l->r = NULL;
	l->lock = -1;
	rc = at_app_open(app, &l->r, err);
	if (rc == 0)
		rc = at_lock_acquire(at_repo_paths(l->r), &l->lock, err);
	if (rc == 0 && task)
		rc = at_app_resolve(app, l->r, name, task, err);
	return rc;
}

void at_app_unlock(struct at_app_locked *l)
{
	at_lock_release(l->lock);
	at_repo_free(l->r);
	l->lock = -1;
	l->r = NULL;
}

void at_app_audited(struct at_strlist *warnings, const char *task, int rc,
		    const struct at_error *aerr)
{
	if (rc < 0)
		at_strlist_pushf(warnings, "audit log of task '%s' not written: %s", task,
				 aerr->msg);
}

void at_app_view_init(struct at_app_view *v, struct at_repo *r, const struct at_task *t)
{
	v->r = r;
	v->task = t;
	v->w = NULL;
	v->have_state = false;
}

int at_app_view_state(struct at_app_view *v, const struct at_task_state **out,
		      struct at_error *err)
{
	int rc = 0;

	if (!v->have_state) {
		/* Opened already (for a diff between checkpoints): not twice. */
		if (!v->w && at_worktree_present(v->task))
			rc = at_worktree_open(&v->w, v->r, v->task, err);
		if (rc == 0)
			rc = at_task_state(v->r, v->task, v->w, &v->st, err);
		if (rc < 0)
			return rc;
		v->have_state = true;
	}
	*out = &v->st;
	return 0;
}

void at_app_view_release(struct at_app_view *v)
{
	if (!v)
		return;
	at_worktree_free(v->w);
	v->w = NULL;
	v->have_state = false;
}

void at_app_pick_work(char work[PATH_MAX], char spare[PATH_MAX])
{
	char tmp[PATH_MAX];

	if (at_sandbox_overlay_pick(work, spare) == 0)
		return;
	memcpy(tmp, work, PATH_MAX);
	memcpy(work, spare, PATH_MAX);
	memcpy(spare, tmp, PATH_MAX);
}

int at_app_make_dir(const char *path, struct at_error *err)
{
	struct stat st;

	if (mkdir(path, 0700) < 0 && errno != EEXIST)
		return at_error_sys(err, AT_ESYS, "cannot create '%s'", path);
	if (lstat(path, &st) < 0 || !S_ISDIR(st.st_mode))
		return at_error_set(err, AT_ESANDBOX, "'%s' is not a directory", path);
	return 0;
}
