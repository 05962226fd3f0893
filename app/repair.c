/*
 * repair.c - `agenttask repair`: a task's stuck git inside set back to the
 * host's (repair.h).
 */
#include "app/repair.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "app/gitview.h"
#include "app/internal.h"
#include "core/audit.h"
#include "core/runs.h"
#include "core/trace.h"
#include "git/import.h"

/* How long an import a reader (status, diff) runs may hold the view before we give up. */
#define VIEW_WAIT_MS 5000

/*
 * The view's lock. No run of the task holds it (at_runs_stop said so, and
 * none starts): only an import that `status` or `diff` started, or a run's
 * last step after its run lock went, which end soon. 0, 1 when the task has
 * no view at all.
 */
static int lock_view(struct at_repo *r, const struct at_task *t, struct at_app_gitview *v,
		     struct at_error *err)
{
	const struct timespec pause = { 0, 20 * 1000 * 1000 };
	struct stat st;
	int rc, waited;

	if ((rc = at_app_gitview_paths(r, t, v, err)) < 0)
		return rc;
	if (lstat(v->dir, &st) < 0)
		return errno == ENOENT ? 1 : at_error_sys(err, AT_ESYS, "cannot read '%s'", v->dir);
	for (waited = 0; (rc = at_app_gitview_lock(v, err)) == 1 && waited < VIEW_WAIT_MS;
	     waited += 20)
		nanosleep(&pause, NULL);
	if (rc == 1)
		return at_error_set(err, AT_EBUSY, "the git of task '%s' is busy (an import); "
				    "try again", t->name);
	return rc;
}

/* Under both locks: import what can be, note what HEAD names, set the layer aside. */
static int reset(struct at_repo *r, struct at_app_gitview *v, struct at_app_repair_result *out,
		 struct at_error *err)
{
	const struct at_task *t = &out->task;
	struct at_error ierr = AT_ERROR_INIT, aerr = AT_ERROR_INIT;
	struct at_app_import imp;
	struct at_oid head, agreed;
	int rc;

	memset(&imp, 0, sizeof(imp));
	if (at_app_import(r, t, v, &imp, &ierr) < 0)
		memcpy(out->reason, ierr.msg, sizeof(out->reason));
	out->imported = imp.imported;
	at_app_import_release(&imp);
	if ((rc = at_git_branch_tip(r, t, &out->tip, err)) < 0)
		return rc;
	ierr = (struct at_error)AT_ERROR_INIT;
	rc = at_app_gitview_head(r, t, v, &head, &ierr);
	/* HEAD at the commit last agreed on: the host alone moved; nothing of the task's is lost. */
	if (rc == 0 && !at_oid_equal(&head, &out->tip) &&
	    (at_app_gitview_agreed(v, &agreed) != 0 || !at_oid_equal(&head, &agreed))) {
		out->dropped = true;
		out->dropped_head = head;
	} else if (rc < 0 && !out->reason[0]) {
		memcpy(out->reason, ierr.msg, sizeof(out->reason));
	}
	at_test_kill_point("repair:import");
	if ((rc = at_app_gitview_drop(v, out->kept, sizeof(out->kept), err)) != 0)
		return rc < 0 ? rc : 0;
	out->repaired = true;
	/* Agreed on the host's tip: the fresh view's HEAD shows it through. */
	if ((rc = at_app_gitview_agree(v, &out->tip, err)) < 0)
		return rc;
	at_app_audited(&out->warnings, t->name,
		       at_audit_repair(at_repo_paths(r), t->name, &out->tip,
				       out->dropped ? &out->dropped_head : NULL,
				       out->reason[0] ? out->reason : NULL, out->kept, &aerr),
		       &aerr);
	return 0;
}

int at_app_repair(const struct at_app *app, const struct at_app_repair_opts *o,
		  struct at_app_repair_result *out, struct at_error *err)
{
	struct at_runs_guard guard = AT_RUNS_GUARD_INIT;
	struct at_app_gitview v;
	struct at_app_locked l;
	int rc;

	memset(out, 0, sizeof(*out));
	at_app_gitview_init(&v);
	rc = at_app_lock(app, &l, o->name, &out->task, err);
	/* No run of the task has its git from here on, and none starts (as for discard). */
	if (rc == 0)
		rc = at_runs_stop(at_repo_paths(l.r), out->task.name, o->force, &guard, err);
	if (rc == 0)
		rc = lock_view(l.r, &out->task, &v, err);
	if (rc == 0)
		rc = reset(l.r, &v, out, err);
	at_app_gitview_close(&v);
	at_runs_release(&guard, false);
	at_app_unlock(&l);
	return rc < 0 ? rc : 0;
}

void at_app_repair_result_release(struct at_app_repair_result *res)
{
	if (res)
		at_strlist_release(&res->warnings);
}
