/*
 * fullform.c - a layered task made full (core/task.h): `agenttask path`
 * gives a real directory with every file, made when first asked for.
 *
 * Under the repository lock, with no run of the task (one that ran on would
 * write into the layer after it was copied): the base's files copied (by
 * reflink where the file system can) and the task's upper applied over them
 * (core/flatten.h: no link the task planted followed, no FIFO opened) into
 * a directory beside the task's path, .removing-like (.full-NAME.PID, a
 * stray for gc if a kill comes first), with the .git pointer git would
 * write; renamed into place in one step; then git's lock of the worktree
 * and the layer removed, and the record flipped to full last. A kill leaves
 * the layered task whole (before the rename) or the full checkout in place
 * (after it: a layered record whose path holds a directory is full, and
 * the next `path` or gc finishes the rest: at_app_fullform_finish).
 */
#include "app/task.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/internal.h"
#include "app/layer.h"
#include "app/lifecycle.h"
#include "core/flatten.h"
#include "core/fs.h"
#include "core/runs.h"
#include "core/state.h"
#include "core/trace.h"
#include "core/util.h"
#include "git/layer.h"
#include "git/worktree.h"

int at_app_fullform_finish(struct at_repo *r, const struct at_task *t, struct at_error *err)
{
	struct at_task full = *t;
	int rc;

	if ((rc = at_task_unlock_layered(t, err)) < 0 ||
	    (rc = at_app_layer_remove(at_repo_paths(r), t->name, err)) < 0)
		return rc;
	full.form = AT_FORM_FULL;
	full.base_tree[0] = '\0';
	return at_state_save(at_repo_paths(r), &full, err);
}

/* The pointer git writes at a worktree's root, made anew (the upper's copy is the task's). */
static int write_pointer(int dir, const struct at_task *t, struct at_error *err)
{
	char text[PATH_MAX + 16];
	int fd, rc = 0;

	if (at_fmt(text, sizeof(text), "gitdir: %s\n", t->admin_dir) < 0)
		return at_error_set(err, AT_ESYS, "path too long '%s'", t->admin_dir);
	if (unlinkat(dir, ".git", 0) < 0 && errno != ENOENT && errno != EISDIR)
		return at_error_sys(err, AT_ESYS, "cannot remove '%s/.git'", t->path);
	fd = openat(dir, ".git", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return at_error_sys(err, AT_ESYS, "cannot create '%s/.git'", t->path);
	if (at_write_all(fd, text, strlen(text)) < 0)
		rc = at_error_sys(err, AT_ESYS, "cannot write '%s/.git'", t->path);
	if (close(fd) < 0 && rc == 0)
		rc = at_error_sys(err, AT_ESYS, "cannot write '%s/.git'", t->path);
	return rc;
}

/*
 * The index made to match the full checkout (git/layer.h): nothing is lost
 * without it (git reads the files again), so a failure leaves the index as
 * it was and path succeeds.
 */
static void restat_index(const struct at_app_layer *l, const struct at_task *t)
{
	struct at_error ignored = AT_ERROR_INIT;
	char index[PATH_MAX];
	int upper = open(l->upper, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int dest = open(t->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (upper >= 0 && dest >= 0 && at_fmt(index, sizeof(index), "%s/index", t->admin_dir) == 0)
		at_layer_restat_index(index, upper, dest, &ignored);
	if (upper >= 0)
		close(upper);
	if (dest >= 0)
		close(dest);
}

/* lower and upper flattened into tmp (made here, 0755 as a checkout's root is). */
static int flatten_into(const struct at_app_layer *l, const struct at_task *t, const char *tmp,
			struct at_error *err)
{
	int lower = -1, upper = -1, dest = -1, rc;

	if (mkdir(tmp, 0755) < 0)
		return at_error_sys(err, AT_ESYS, "cannot create '%s'", tmp);
	lower = open(l->lower, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	upper = open(l->upper, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	dest = open(tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (lower < 0 || upper < 0 || dest < 0)
		rc = at_error_sys(err, AT_ECORRUPT, "cannot open the layers of task '%s'", t->name);
	else if ((rc = at_flatten(lower, upper, dest, err)) == 0)
		rc = write_pointer(dest, t, err);
	if (lower >= 0)
		close(lower);
	if (upper >= 0)
		close(upper);
	if (dest >= 0)
		close(dest);
	return rc;
}

static int make_full(struct at_repo *r, const struct at_task *t, struct at_error *err)
{
	struct at_error ignored = AT_ERROR_INIT;
	struct at_app_layer l;
	char tmp[PATH_MAX];
	const char *slash = strrchr(t->path, '/');
	int rc;

	if ((rc = at_app_layer_paths(at_repo_paths(r), t, &l, err)) < 0)
		return rc;
	if (!slash || at_fmt(tmp, sizeof(tmp), "%.*s/.full-%s.%ld", (int)(slash - t->path),
			     t->path, t->name, (long)getpid()) < 0)
		return at_error_set(err, AT_ESYS, "path too long '%s'", t->path);
	if ((rc = at_rmtree(tmp, err)) < 0)
		return rc;
	rc = flatten_into(&l, t, tmp, err);
	if (rc == 0)
		at_test_kill_point("path:copied");
	if (rc == 0 && rename(tmp, t->path) < 0)
		rc = at_error_sys(err, AT_ESYS, "cannot rename '%s' to '%s'", tmp, t->path);
	if (rc < 0) {
		at_rmtree(tmp, &ignored);
		return rc;
	}
	at_test_kill_point("path:renamed");
	restat_index(&l, t);
	return at_app_fullform_finish(r, t, err);
}

int at_app_full_locked(struct at_repo *r, struct at_task *t, struct at_error *err)
{
	int rc;

	if (t->form != AT_FORM_LAYERED)
		return 0;
	rc = at_task_is_layered(t) ? make_full(r, t, err) : at_app_fullform_finish(r, t, err);
	if (rc == 0) {
		t->form = AT_FORM_FULL;
		t->base_tree[0] = '\0';
	}
	return rc;
}

int at_app_path(const struct at_app *app, const char *name, struct at_task *out,
		struct at_error *err)
{
	struct at_runs_guard guard = AT_RUNS_GUARD_INIT;
	struct at_app_locked l;
	char resolved[AT_NAME_MAX + 1];
	struct at_task t;
	int rc;

	if ((rc = at_app_task(app, name, &t, err)) < 0)
		return rc;
	if (t.form != AT_FORM_LAYERED) {
		*out = t;
		return 0;
	}
	memcpy(resolved, t.name, sizeof(resolved));
	rc = at_app_lock(app, &l, resolved, &t, err);
	if (rc == 0 && t.form == AT_FORM_LAYERED &&
	    (rc = at_runs_stop(at_repo_paths(l.r), t.name, false, &guard, err)) == 0) {
		rc = at_app_full_locked(l.r, &t, err);
		at_runs_release(&guard, false);
	}
	if (rc == 0)
		*out = t;
	at_app_unlock(&l);
	return rc;
}
