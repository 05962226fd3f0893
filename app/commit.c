#include "app/commit.h"

#include <string.h>

#include "app/gitview.h"
#include "app/internal.h"
#include "core/audit.h"

static int commit_task(struct at_repo *r, const struct at_app_commit_opts *o,
		       struct at_app_commit_result *out, struct at_error *err)
{
	struct at_commit_opts copts = AT_COMMIT_OPTS_INIT;
	struct at_worktree *w = NULL;
	struct at_task_state st;
	int rc;

	copts.message = o->message;
	rc = at_worktree_open(&w, r, &out->task, err);
	if (rc == 0)
		rc = at_worktree_stage(w, &st, err);
	if (rc == 0)
		rc = at_worktree_commit(w, &copts, &out->commit, &out->made, err);
	at_worktree_free(w);
	return rc;
}

int at_app_commit(const struct at_app *app, const struct at_app_commit_opts *o,
		  struct at_app_commit_result *out, struct at_error *err)
{
	struct at_error aerr = AT_ERROR_INIT;
	struct at_app_locked l;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = at_app_lock(app, &l, o->name, &out->task, err);
	if (rc == 0)
		rc = at_app_import_before(l.r, &out->task, &out->warnings, err);
	if (rc == 0)
		rc = commit_task(l.r, o, out, err);
	if (rc == 0 && out->made)
		at_app_audited(&out->warnings, out->task.name,
			       at_audit_commit(at_repo_paths(l.r), out->task.name, &out->commit,
					       &aerr), &aerr);
	at_app_unlock(&l);
	return rc;
}

void at_app_commit_result_release(struct at_app_commit_result *res)
{
	if (res)
		at_strlist_release(&res->warnings);
}
