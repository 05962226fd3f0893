/*
 * layer.c - a layered task's layer made, mounted for a run and removed (layer.h).
 */
#include "app/layer.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/internal.h"
#include "core/fs.h"
#include "core/lock.h"
#include "core/trace.h"
#include "core/util.h"
#include "sandbox/sandbox.h"

int at_app_layer_paths(const struct at_paths *p, const struct at_task *t, struct at_app_layer *l,
		       struct at_error *err)
{
	memset(l, 0, sizeof(*l));
	l->lock = -1;
	if (at_paths_layer(p, t->name, l->dir, sizeof(l->dir), err) < 0 ||
	    at_paths_layer_upper(p, t->name, l->upper, sizeof(l->upper), err) < 0 ||
	    at_paths_base_files(p, t->base_tree, l->lower, sizeof(l->lower), err) < 0)
		return err->code;
	if (at_fmt(l->work, sizeof(l->work), "%s/work", l->dir) < 0 ||
	    at_fmt(l->spare, sizeof(l->spare), "%s/work.1", l->dir) < 0)
		return at_error_set(err, AT_ESYS, "path too long '%s'", l->dir);
	return 0;
}

int at_app_layer_make(const struct at_paths *p, const struct at_task *t, struct at_app_layer *l,
		      struct at_error *err)
{
	int rc;

	if ((rc = at_app_layer_paths(p, t, l, err)) < 0 ||
	    (rc = at_app_make_dir(p->layers_dir, err)) < 0 || (rc = at_app_make_dir(l->dir, err)) < 0 ||
	    (rc = at_app_make_dir(l->upper, err)) < 0 || (rc = at_app_make_dir(l->work, err)) < 0)
		return rc;
	/* The upper's root shows as the worktree's root: the base's mode, not the state's 0700. */
	if (chmod(l->upper, 0755) < 0)
		return at_error_sys(err, AT_ESYS, "cannot chmod '%s'", l->upper);
	return 0;
}

int at_app_layer_remove(const struct at_paths *p, const char *name, struct at_error *err)
{
	char dir[PATH_MAX], doomed[PATH_MAX];

	if (at_paths_layer(p, name, dir, sizeof(dir), err) < 0 ||
	    at_paths_layer_removing(p, name, doomed, sizeof(doomed), err) < 0)
		return err->code;
	if (rename(dir, doomed) < 0)
		return at_rmtree(dir, err);
	at_test_kill_point("remove:renamed");
	return at_rmtree(doomed, err);
}

int at_app_layer_open(const struct at_paths *p, const struct at_task *t, struct at_app_layer *l,
		      struct at_error *err)
{
	char path[PATH_MAX];
	struct stat st;
	int rc;

	if ((rc = at_app_layer_paths(p, t, l, err)) < 0)
		return rc;
	if (lstat(l->upper, &st) < 0 || !S_ISDIR(st.st_mode))
		return at_task_worktree_gone(t, err);   /* its own files: deleted by hand */
	if (lstat(l->lower, &st) < 0 || !S_ISDIR(st.st_mode))
		return at_error_set(err, AT_ECORRUPT, "the base of task '%s' is missing '%s'",
				    t->name, l->lower);
	if (at_fmt(path, sizeof(path), "%s/lock", l->dir) < 0)
		return at_error_set(err, AT_ESYS, "path too long '%s'", l->dir);
	if ((rc = at_lock_try_file(path, &l->lock, err)) < 0)
		return rc;
	if (rc == 0) {
		if ((rc = at_app_make_dir(l->work, err)) < 0)
			return rc;
		at_app_pick_work(l->work, l->spare);
		return 0;
	}
	l->spare[0] = '\0';
	l->own = 1;
	if (at_fmt(l->work, sizeof(l->work), "%s/run.%ld", l->dir, (long)getpid()) < 0)
		return at_error_set(err, AT_ESYS, "path too long '%s'", l->dir);
	if ((rc = at_rmtree(l->work, err)) < 0 || (rc = at_app_make_dir(l->work, err)) < 0)
		return rc;
	return 0;
}

void at_app_layer_aside(const struct at_app_layer *l)
{
	if (l->lock >= 0 && l->spare[0])
		at_sandbox_overlay_tidy(l->spare);
}

void at_app_layer_close(struct at_app_layer *l)
{
	struct at_error ignored = AT_ERROR_INIT;

	if (l->own)
		at_rmtree(l->work, &ignored);
	l->own = 0;
	if (l->lock >= 0)
		close(l->lock);
	l->lock = -1;
}
