#include "app/drop.h"

#include <string.h>

#include "app/internal.h"
#include "app/gitview.h"
#include "core/runs.h"
#include "core/trace.h"
#include "git/partial.h"
#include "git/trash.h"

struct drop {
	struct at_strlist paths, exclude;   /* from the top of the tree */
};

static int drop_part(struct at_repo *r, const struct at_app_drop_opts *o, const struct drop *d,
		     struct at_app_drop_result *out, struct at_error *err)
{
	struct at_partial_spec spec = { d->paths.v, d->paths.n, d->exclude.v, d->exclude.n };
	struct at_worktree *w = NULL;
	struct at_task_state st;
	struct at_partial p;
	int rc;

	memset(&p, 0, sizeof(p));
	if ((rc = at_worktree_open(&w, r, &out->task, err)) < 0 ||
	    (rc = at_task_state(r, &out->task, w, &st, err)) < 0)
		goto out;
	if (o->pick_rest && !at_oid_equal(&st.tree, o->pick_state)) {
		rc = at_error_set(err, AT_ESTALE, "task '%s' changed while its hunks were picked; "
				  "pick again", out->task.name);
		goto out;
	}
	if ((rc = o->pick_rest ? at_partial_of_rest(r, w, &st, o->pick_rest, &p, err)
			       : at_partial_split(r, w, &st, &spec, &p, err)) < 0)
		goto out;
	/* Nothing is written into the worktree before the whole state is in the trash. */
	if ((rc = at_trash_save_part(r, &out->task, &st, &p.rest, out->trash, sizeof(out->trash),
				     err)) < 0)
		goto out;
	at_test_kill_point("drop:saved");
	/* What was asked can be done: a layered task made full now (its files are written on the host). */
	if (out->task.form == AT_FORM_LAYERED) {
		at_worktree_free(w);
		w = NULL;
		if ((rc = at_app_full_locked(r, &out->task, err)) < 0 ||
		    (rc = at_worktree_open(&w, r, &out->task, err)) < 0)
			goto out;
	}
	if ((rc = at_partial_drop(w, &p, err)) < 0)
		goto out;
	out->dropped = p.taken;
	out->left = p.left;
	memset(&p.taken, 0, sizeof(p.taken));
	memset(&p.left, 0, sizeof(p.left));
out:
	at_partial_release(&p);
	at_worktree_free(w);
	return rc;
}

int at_app_drop(const struct at_app *app, const struct at_app_drop_opts *o,
		struct at_app_drop_result *out, struct at_error *err)
{
	struct at_runs_guard guard = AT_RUNS_GUARD_INIT;
	struct at_app_locked l = { NULL, -1 };
	struct drop d;
	int rc;

	memset(out, 0, sizeof(*out));
	memset(&d, 0, sizeof(d));
	if (!o->npaths && !o->pick_rest)
		return at_error_set(err, AT_EUSAGE, "drop needs the changes to drop: -- PATHSPEC... "
				    "('discard' throws the whole task away)");
	rc = at_app_lock(app, &l, o->name, &out->task, err);
	if (rc == 0)
		rc = at_app_pathspec(app->dir, out->task.path, at_repo_workdir(l.r), o->paths,
				     o->npaths, &d.paths, err);
	if (rc == 0)
		rc = at_app_pathspec(app->dir, out->task.path, at_repo_workdir(l.r), o->exclude,
				     o->nexclude, &d.exclude, err);
	if (rc == 0 && o->nexclude && !d.exclude.n)
		rc = at_error_set(err, AT_EUSAGE, "--exclude '%s' leaves nothing to drop",
				  o->exclude[0]);
	/* No command of the task writes its worktree meanwhile. */
	if (rc == 0)
		rc = at_runs_stop(at_repo_paths(l.r), out->task.name, o->force, &guard, err);
	if (rc == 0)
		rc = at_app_import_before(l.r, &out->task, &out->warnings, err);
	if (rc == 0)
		rc = drop_part(l.r, o, &d, out, err);
	at_runs_release(&guard, false);
	at_strlist_release(&d.paths);
	at_strlist_release(&d.exclude);
	at_app_unlock(&l);
	return rc;
}

void at_app_drop_result_release(struct at_app_drop_result *res)
{
	if (!res)
		return;
	at_strlist_release(&res->dropped);
	at_strlist_release(&res->left);
	at_strlist_release(&res->warnings);
}
