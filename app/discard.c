#include "app/discard.h"

#include <limits.h>
#include <string.h>

#include "app/gitview.h"
#include "app/internal.h"
#include "app/lifecycle.h"
#include "core/audit.h"
#include "core/runs.h"
#include "core/state.h"
#include "core/trace.h"
#include "git/partial.h"
#include "git/trash.h"
#include "git/trash_keep.h"
#include "git/worktree.h"

static int save(struct at_repo *r, const struct at_app_discard_opts *o,
		struct at_app_discard_result *out, struct at_error *err)
{
	const struct at_task *t = &out->task;
	struct at_error full = AT_ERROR_INIT;
	char where[PATH_MAX];

	/* A moved worktree is not saved here: refuse before the trash is written. */
	if (at_task_moved(t, where, sizeof(where)))
		return at_app_task_remove(r, t, err);
	if (at_trash_save(r, t, out->trash, sizeof(out->trash), &full) == 0)
		return 0;
	if (!o->force) {
		*err = full;
		at_error_append(err, " (nothing removed; 'discard --force' saves the commits only)");
		return err->code;
	}
	out->commits_only = true;
	at_strlist_pushf(&out->warnings, "%s: saving the commits only (--force)", full.msg);
	return at_trash_save_ext(r, t, true, out->trash, sizeof(out->trash), err);
}

int at_app_discard_task(struct at_repo *r, bool force, const struct at_progress_hook *progress,
			struct at_app_discard_result *out, struct at_error *err)
{
	struct at_app_discard_opts o = { .force = force };
	struct at_runs_guard guard = AT_RUNS_GUARD_INIT;
	struct at_error aerr = AT_ERROR_INIT;
	int rc;

	if (progress)
		o.progress = *progress;
	/* No command of the task runs from here until it is gone (or refused). */
	rc = at_runs_stop(at_repo_paths(r), out->task.name, force, &guard, err);
	/* Its runs are over, and have imported: what is left is imported now, then saved. */
	if (rc == 0)
		rc = at_app_import_before(r, &out->task, &out->warnings, err);
	if (rc == 0) {
		at_progress_say(&o.progress, "saving the task in the trash", 0, 0);
		rc = save(r, &o, out, err);
	}
	if (rc == 0) {
		at_progress_say(&o.progress, "removing the task", 0, 0);
		rc = at_app_task_remove(r, &out->task, err);
	}
	if (rc == 0)
		at_app_audited(&out->warnings, out->task.name,
			       at_audit_discard(at_repo_paths(r), out->task.name, out->trash,
						out->commits_only, &aerr), &aerr);
	at_runs_release(&guard, rc == 0);
	return rc;
}

int at_app_discard(const struct at_app *app, const struct at_app_discard_opts *o,
		   struct at_app_discard_result *out, struct at_error *err)
{
	struct at_app_locked l;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = at_app_lock(app, &l, o->name, &out->task, err);
	if (rc == 0)
		rc = at_app_discard_task(l.r, o->force, &o->progress, out, err);
	at_app_unlock(&l);
	return rc;
}

/*
 * Bring back a trash entry: branch agenttask/NAME at the tip it had, its
 * worktree with the committed state checked out, the uncommitted state
 * written over it, its checkpoints and review comments as the entry kept
 * them (git/trash_keep.h), and the task's base from the entry's trailers;
 * the entry is deleted afterwards. All or nothing: the task stays half-made (CREATING,
 * its base the tip, so a rollback deletes the branch too) until its record
 * is saved ready.
 */
/*
 * A drop's entry while its task is there: the dropped files put back
 * (git/partial.h), then the entry deleted. The task's commands are stopped
 * meanwhile, as drop stops them.
 */
static int put_back(struct at_repo *r, const struct at_trash_pick *pick, bool force,
		    struct at_app_restore_result *out, struct at_error *err)
{
	struct at_runs_guard guard = AT_RUNS_GUARD_INIT;
	int rc;

	rc = at_runs_stop(at_repo_paths(r), out->task.name, force, &guard, err);
	if (rc == 0)
		rc = at_app_import_before(r, &out->task, &out->warnings, err);
	if (rc == 0)
		rc = at_partial_put_back(r, &out->task, &pick->tree, &pick->part_left, err);
	at_runs_release(&guard, false);
	if (rc < 0)
		return rc;
	if (!at_trash_drop(r, pick->ref))
		at_strlist_pushf(&out->warnings, "could not delete trash entry '%s'", pick->ref);
	memcpy(out->trash, pick->ref, sizeof(out->trash));
	out->put_back = true;
	return 0;
}

static int restore(struct at_repo *r, const struct at_app_restore_opts *o,
		   struct at_app_restore_result *out, struct at_error *err)
{
	struct at_error ignored = AT_ERROR_INIT;
	struct at_trash_pick pick;
	struct at_task t, ready;
	int rc;

	if ((rc = at_task_init(&t, at_repo_paths(r), o->name, err)) < 0 ||
	    (rc = at_trash_pick(r, o->name, o->entry, &pick, err)) < 0)
		return rc;
	/* A drop's entry goes back into its task, while the task is there. */
	if (pick.part && at_task_resolve(r, o->name, ".", &out->task, &ignored) == 0)
		return at_task_is_layered(&out->task)
			       ? at_error_set(err, AT_EUSAGE, "task '%s' is layered: 'agenttask path "
					      "%s' makes it full, then restore", o->name, o->name)
			       : put_back(r, &pick, o->force, out, err);
	if ((rc = at_app_task_create_at(r, o->name, &pick.tip, &t, err)) < 0)
		return rc;
	ready = t;
	at_trash_pick_base(&pick, &ready);
	ready.phase = AT_TASK_READY;
	rc = at_trash_write_back(&t, &pick, err);
	/* Its checkpoints and review back while it is CREATING: a rollback removes them. */
	if (rc == 0 && (rc = at_trash_keep_restore(r, pick.ref, err)) == 0)
		at_test_kill_point("restore:kept");
	if (rc == 0)
		rc = at_state_save(at_repo_paths(r), &ready, err);
	if (rc < 0) {
		/* t, not ready: its base_commit is the tip, so the branch goes too. */
		at_app_task_rollback(r, &t, &ignored);
		return rc;
	}
	at_test_kill_point("restore:ready");
	if (!at_trash_drop(r, pick.ref))
		at_strlist_pushf(&out->warnings, "could not delete trash entry '%s'", pick.ref);
	out->task = ready;
	memcpy(out->trash, pick.ref, sizeof(out->trash));
	return 0;
}

int at_app_restore(const struct at_app *app, const struct at_app_restore_opts *o,
		   struct at_app_restore_result *out, struct at_error *err)
{
	struct at_error aerr = AT_ERROR_INIT;
	struct at_app_locked l;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = at_app_lock(app, &l, NULL, NULL, err);
	if (rc == 0)
		rc = restore(l.r, o, out, err);
	if (rc == 0)
		at_app_audited(&out->warnings, out->task.name,
			       at_audit_restore(at_repo_paths(l.r), &out->task, out->trash, &aerr),
			       &aerr);
	at_app_unlock(&l);
	return rc;
}

int at_app_trash(const struct at_app *app, const char *name, struct at_trash_list *out,
		 struct at_error *err)
{
	struct at_repo *r = NULL;
	int rc = at_app_open(app, &r, err);

	if (rc == 0)
		rc = at_trash_list(r, name, out, err);
	else
		memset(out, 0, sizeof(*out));
	at_repo_free(r);
	return rc;
}

void at_app_discard_result_release(struct at_app_discard_result *res)
{
	if (res)
		at_strlist_release(&res->warnings);
}

void at_app_restore_result_release(struct at_app_restore_result *res)
{
	if (res)
		at_strlist_release(&res->warnings);
}
