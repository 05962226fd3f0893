/*
 * du.c - the disk each task takes (app/du.h).
 */
#include "app/du.h"

#include <stdlib.h>
#include <string.h>

#include "app/internal.h"
#include "core/array.h"
#include "core/fs.h"
#include "core/state.h"
#include "core/task.h"
#include "git/trash.h"

const char *const at_du_part_names[AT_DU_NPARTS] = { "worktree", "home", "caches", "git" };

/*
 * A layered task's worktree part is its layer (its own files, the upper, and
 * its work dirs): its path holds nothing on the host, and the base below is
 * shared by every task of that tree, no one task's.
 */
static int part_paths(const struct at_paths *p, const struct at_task *t,
		      struct at_app_du_task *d, struct at_error *err)
{
	size_t n = strlen(t->path);

	if (at_task_is_layered(t)) {
		if (at_paths_layer(p, t->name, d->paths[AT_DU_WORKTREE], PATH_MAX, err) < 0)
			return err->code;
	} else if (n >= sizeof(d->paths[AT_DU_WORKTREE])) {
		return at_error_set(err, AT_ESYS, "the path of task '%s' is too long", t->name);
	} else {
		memcpy(d->paths[AT_DU_WORKTREE], t->path, n + 1);
	}
	if (at_paths_home(p, t->name, d->paths[AT_DU_HOME], PATH_MAX, err) < 0 ||
	    at_paths_caches(p, t->name, d->paths[AT_DU_CACHES], PATH_MAX, err) < 0 ||
	    at_paths_view(p, t->name, d->paths[AT_DU_VIEW], PATH_MAX, err) < 0)
		return err->code;
	return 0;
}

/* One task; a part that cannot be measured spoils only this task (d->err). */
static void measure(struct at_repo *r, struct at_du *du, const struct at_trash_list *trash,
		    const struct at_task *t, struct at_app_du_task *d)
{
	size_t i;

	memset(d, 0, sizeof(*d));
	memcpy(d->name, t->name, sizeof(d->name));
	for (i = 0; i < trash->n; i++)
		if (strcmp(trash->v[i].name, t->name) == 0)
			d->trash_entries++;
	if (part_paths(at_repo_paths(r), t, d, &d->err) < 0)
		return;
	for (i = 0; i < AT_DU_NPARTS; i++) {
		if (at_du_tree(du, d->paths[i], &d->bytes[i], &d->err) < 0)
			return;
		d->total += d->bytes[i];
	}
}

static int measure_all(struct at_repo *r, const char *name, struct at_app_du *out,
		       struct at_error *err)
{
	struct at_trash_list trash = { NULL, 0 };
	struct at_task_list tasks;
	struct at_du du = AT_DU_INIT;
	size_t i;
	int rc;

	memset(&tasks, 0, sizeof(tasks));
	if ((rc = at_state_list(at_repo_paths(r), &tasks, err)) < 0 ||
	    (rc = at_trash_list(r, name, &trash, err)) < 0)
		goto out;
	for (i = 0; i < tasks.count; i++) {
		const struct at_task *t = &tasks.tasks[i];

		if (name && strcmp(name, t->name) != 0)
			continue;
		if (AT_ARRAY_GROW(out->v, out->cap, out->n + 1) < 0) {
			rc = at_error_set(err, AT_ESYS, "out of memory");
			goto out;
		}
		measure(r, &du, &trash, t, &out->v[out->n]);
		out->total += out->v[out->n++].total;
	}
	if (name && out->n == 0)
		rc = at_error_set(err, AT_ENOTFOUND, "no such task '%s'", name);
out:
	at_du_release(&du);
	at_trash_list_release(&trash);
	at_task_list_release(&tasks);
	return rc;
}

int at_app_du(const struct at_app *app, const char *name, struct at_app_du *out,
	      struct at_error *err)
{
	struct at_app_du d;
	struct at_repo *r = NULL;
	struct at_task t;
	int rc;

	memset(&d, 0, sizeof(d));
	rc = at_app_open(app, &r, err);
	/* No name: every task (not the one of the directory: du is a survey). */
	if (rc == 0 && name)
		rc = at_app_resolve(app, r, name, &t, err);
	if (rc == 0)
		rc = measure_all(r, name, &d, err);
	at_repo_free(r);
	if (rc < 0) {
		at_app_du_release(&d);
		return rc;
	}
	*out = d;
	return 0;
}

void at_app_du_release(struct at_app_du *d)
{
	if (!d)
		return;
	free(d->v);
	memset(d, 0, sizeof(*d));
}
