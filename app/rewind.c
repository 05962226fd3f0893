/*
 * rewind.c - a task brought back to a checkpoint (app/rewind.h).
 *
 * The steps, each a kill point (core/trace.h) of the crash test:
 *   the state now kept as a checkpoint            rewind:saved
 *   the record <cache>/NAME.rewind written        rewind:record
 *   files removed, written, the index             apply:removed, apply:written
 *   the branch moved                              rewind:index (before it)
 *   the git view inside reset                     rewind:view (after it)
 *   the record removed
 */
#include "app/rewind.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/checkpoint.h"
#include "app/gitview.h"
#include "app/internal.h"
#include "core/audit.h"
#include "core/fs.h"
#include "core/runs.h"
#include "core/trace.h"
#include "core/util.h"
#include "git/checkpoint.h"

/* The record of a rewind under way: the checkpoint's number, a line. */
static int record_write(struct at_repo *r, const struct at_task *t, unsigned n,
			struct at_error *err)
{
	char path[PATH_MAX], text[32];
	int len = snprintf(text, sizeof(text), "%u\n", n);

	if (at_paths_rewind(at_repo_paths(r), t->name, path, sizeof(path), err) < 0)
		return err->code;
	if (at_mkdirs(at_repo_paths(r)->cache_dir, 0700, err) < 0)
		return err->code;
	if (at_write_replace(path, text, (size_t)len, 0600) < 0)
		return at_error_sys(err, AT_ESYS, "cannot write '%s'", path);
	return 0;
}

/* 0 with *n, 1 when there is no record (or it is not a number: it was never written whole). */
static int record_read(struct at_repo *r, const struct at_task *t, unsigned *n)
{
	char path[PATH_MAX];
	AT_AUTOFREE char *text = NULL;
	size_t len = 0;
	char *end;
	unsigned long v;

	if (at_paths_rewind(at_repo_paths(r), t->name, path, sizeof(path), NULL) < 0 ||
	    !(text = at_read_file(path, 64, &len)))
		return 1;
	v = strtoul(text, &end, 10);
	if (end == text || *end != '\n' || v == 0 || v > AT_CHECKPOINT_MAX)
		return 1;
	*n = (unsigned)v;
	return 0;
}

static void record_remove(struct at_repo *r, const struct at_task *t)
{
	char path[PATH_MAX];

	if (at_paths_rewind(at_repo_paths(r), t->name, path, sizeof(path), NULL) == 0)
		unlink(path);
}

bool at_app_rewind_pending(struct at_repo *r, const struct at_task *t)
{
	unsigned n;

	return record_read(r, t, &n) == 0;
}

/* The task's git inside follows: its branch, HEAD and index the host's (no view yet: nothing). */
static int reset_view(struct at_repo *r, const struct at_task *t, const struct at_oid *head,
		      struct at_strlist *warnings, struct at_error *err)
{
	struct at_app_gitview v;
	struct stat st;
	int rc;

	at_app_gitview_init(&v);
	if ((rc = at_app_gitview_paths(r, t, &v, err)) < 0)
		return rc;
	if (stat(v.upper, &st) < 0)
		return 0;
	/* The task's runs are stopped: only a reader's import can hold it, briefly. */
	rc = at_app_gitview_lock(&v, err);
	if (rc == 1) {
		at_strlist_pushf(warnings, "the task's git inside was busy: its next run sets it "
				 "to the host's branch");
		return 0;
	}
	if (rc == 0)
		rc = at_app_gitview_reset(&v, t, head, err);
	if (rc == 0)
		rc = at_app_gitview_agree(&v, head, err);
	at_app_gitview_close(&v);
	return rc;
}

/* From the record on: the worktree, index and branch, the view, the record gone. */
static int bring_back(struct at_repo *r, const struct at_task *t, struct at_app_view *v,
		      const struct at_checkpoint *to, struct at_app_rewind_result *out,
		      struct at_error *err)
{
	const struct at_task_state *st;
	int rc;

	if ((rc = at_app_view_state(v, &st, err)) < 0)
		return rc;
	if ((rc = at_checkpoint_restore(r, t, st, to, &out->paths, err)) < 0)
		return rc;
	if ((rc = reset_view(r, t, &to->tip, &out->warnings, err)) < 0)
		return rc;
	at_test_kill_point("rewind:view");
	record_remove(r, t);
	out->head = to->tip;
	return 0;
}

static int rewind_locked(struct at_repo *r, const struct at_app_rewind_opts *o,
			 struct at_app_rewind_result *out, struct at_error *err)
{
	struct at_checkpoint_list l;
	const struct at_checkpoint *to;
	struct at_checkpoint saved;
	struct at_app_view v;
	int rc;

	if ((rc = at_app_checkpoint_pick(r, &out->task, o->to, &l, &to, err)) < 0) {
		at_checkpoint_list_release(&l);
		return rc;
	}
	out->to = to->n;
	at_app_view_init(&v, r, &out->task);
	at_progress_say(&o->progress, "keeping the task's state as a checkpoint", 0, 0);
	rc = at_app_checkpoint_take(&v, AT_CHECKPOINT_REWIND, &saved, err);
	if (rc < 0)
		at_error_append(err, " (nothing rewound: the state it would replace cannot be kept)");
	if (rc == 0) {
		out->saved = saved.n;
		at_test_kill_point("rewind:saved");
		/*
		 * What was asked can be done: a layered task made full now (its
		 * files are written on the host), its state read again from there.
		 */
		rc = at_app_full_locked(r, &out->task, err);
		at_app_view_release(&v);
	}
	if (rc == 0)
		rc = record_write(r, &out->task, to->n, err);
	if (rc == 0) {
		at_test_kill_point("rewind:record");
		at_progress_say(&o->progress, "bringing the worktree back", 0, 0);
		rc = bring_back(r, &out->task, &v, to, out, err);
	}
	at_app_view_release(&v);
	at_checkpoint_list_release(&l);
	return rc;
}

int at_app_rewind(const struct at_app *app, const struct at_app_rewind_opts *o,
		  struct at_app_rewind_result *out, struct at_error *err)
{
	struct at_runs_guard guard = AT_RUNS_GUARD_INIT;
	struct at_error aerr = AT_ERROR_INIT;
	struct at_app_locked l;
	unsigned n;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!o->to)
		return at_error_set(err, AT_EUSAGE, "no checkpoint to rewind to");
	if ((rc = at_app_checkpoint_number(o->to, &n, err)) < 0)
		return rc;
	rc = at_app_lock(app, &l, o->name, &out->task, err);
	if (rc == 0 && out->task.form != AT_FORM_LAYERED && !at_worktree_present(&out->task))
		rc = at_task_worktree_gone(&out->task, err);
	/* No command of the task runs from here until the rewind is done (or refused). */
	if (rc == 0)
		rc = at_runs_stop(at_repo_paths(l.r), out->task.name, o->force, &guard, err);
	if (rc == 0)
		rc = at_app_import_before(l.r, &out->task, &out->warnings, err);
	if (rc == 0)
		rc = rewind_locked(l.r, o, out, err);
	if (rc == 0)
		at_app_audited(&out->warnings, out->task.name,
			       at_audit_rewind(at_repo_paths(l.r), out->task.name, out->to,
					       out->saved, &out->head, &aerr), &aerr);
	at_runs_release(&guard, false);
	at_app_unlock(&l);
	return rc;
}

int at_app_rewind_finish(struct at_repo *r, const struct at_task *t, bool *done,
			 struct at_error *err)
{
	struct at_app_rewind_result res;
	struct at_checkpoint_list l;
	const struct at_checkpoint *to;
	struct at_app_view v;
	unsigned n;
	int rc;

	*done = false;
	if (record_read(r, t, &n) != 0) {
		record_remove(r, t);   /* none, or never written whole: the rewind had not begun */
		return 0;
	}
	memset(&res, 0, sizeof(res));
	if ((rc = at_checkpoint_list(r, t->name, &l, err)) < 0)
		return rc;
	if (!(to = at_checkpoint_find(&l, n))) {
		at_checkpoint_list_release(&l);
		return at_error_set(err, AT_ECORRUPT, "the rewind of '%s' names checkpoint %u, "
				    "which is gone", t->name, n);
	}
	at_app_view_init(&v, r, t);
	rc = bring_back(r, t, &v, to, &res, err);
	at_app_view_release(&v);
	at_checkpoint_list_release(&l);
	at_strlist_release(&res.warnings);
	*done = rc == 0;
	return rc;
}

void at_app_rewind_result_release(struct at_app_rewind_result *res)
{
	if (res)
		at_strlist_release(&res->warnings);
}
