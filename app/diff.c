#include "app/diff.h"

#include <stdlib.h>
#include <string.h>

#include "app/gitview.h"
#include "app/internal.h"
#include "core/comments.h"
#include "git/blob.h"
#include "git/checkpoint.h"
#include "git/diff.h"
#include "git/merge.h"

struct at_app_diff {
	struct at_repo *r;
	bool has_task;
	struct at_task task;
	struct at_app_view view;
	struct at_diff *d;
	struct at_strlist warnings;   /* the import's (app/gitview.h) */
	bool has_host;
	struct at_strlist host;       /* the changed files the host runs, on first use */
	bool has_other;
	struct at_task other;         /* --against: the other task, its view */
	struct at_app_view other_view;
};

/* The state against the one the person last reviewed (core/comments.h). */
static int open_since(struct at_app_diff *d, const struct at_task_state *st, struct at_error *err)
{
	struct at_comments c;
	int rc;

	if ((rc = at_comments_load(at_repo_paths(d->r), d->task.name, &c, err)) < 0)
		return rc;
	if (!c.has_reviewed)
		rc = at_error_set(err, AT_EUSAGE,
				  "task '%s' has no review yet: no comment made, no part accepted "
				  "with --keep", d->task.name);
	else
		rc = at_diff_open_since(&d->d, d->r, d->view.w, st, &c.reviewed, err);
	at_comments_release(&c);
	return rc;
}

/* --against: the other task's full state, compared with the task's (st). */
static int open_against(const struct at_app *app, const char *against, struct at_app_diff *d,
			const struct at_task_state *st, struct at_error *err)
{
	const struct at_task_state *ost;
	int rc;

	/* Another repository's task, or none: "no such task", one line. */
	if ((rc = at_app_resolve(app, d->r, against, &d->other, err)) < 0 ||
	    (rc = at_app_import_before(d->r, &d->other, &d->warnings, err)) < 0)
		return rc;
	d->has_other = true;
	at_app_view_init(&d->other_view, d->r, &d->other);
	if ((rc = at_app_view_state(&d->other_view, &ost, err)) < 0)
		return rc;
	if (!d->other_view.w)
		return at_task_worktree_gone(&d->other, err);
	return at_diff_open_against(&d->d, d->r, d->view.w, st, &ost->tree, err);
}

/*
 * --run N, --since N: from checkpoint N to the next one (--run, when there
 * is one: no scan) or to the state now. The worktree's repository is the
 * diff's (it holds the base's attributes), opened without a scan.
 */
static int open_range(const struct at_app_diff_opts *o, struct at_app_diff *d,
		      struct at_error *err)
{
	struct at_checkpoint_list l;
	const struct at_checkpoint *from, *next = NULL;
	const struct at_task_state *st;
	struct at_oid to;
	int rc;

	rc = at_app_checkpoint_pick(d->r, &d->task, o->run ? o->run : o->since, &l, &from, err);
	if (rc == 0 && o->run)
		next = at_checkpoint_next(&l, from);
	if (rc == 0 && next)
		to = next->tree;
	else if (rc == 0 && (rc = at_app_view_state(&d->view, &st, err)) == 0)
		to = st->tree;
	if (rc == 0 && !d->view.w && at_worktree_present(&d->task))
		rc = at_worktree_open(&d->view.w, d->r, &d->task, err);
	if (rc == 0 && !d->view.w)
		rc = at_task_worktree_gone(&d->task, err);
	if (rc == 0)
		rc = at_diff_open_between(&d->d, d->r, d->view.w, &from->commit, &to, err);
	at_checkpoint_list_release(&l);
	return rc;
}

static int open_task(const struct at_app *app, const struct at_app_diff_opts *o,
		     struct at_app_diff *d, struct at_error *err)
{
	const struct at_task_state *st;
	int rc;

	if ((rc = at_app_resolve(app, d->r, o->name, &d->task, err)) < 0)
		return rc;
	if ((rc = at_app_import_before(d->r, &d->task, &d->warnings, err)) < 0)
		return rc;
	d->has_task = true;
	at_app_view_init(&d->view, d->r, &d->task);
	if (o->run || o->since)
		return open_range(o, d, err);
	if ((rc = at_app_view_state(&d->view, &st, err)) < 0)
		return rc;
	if (!d->view.w)
		return at_task_worktree_gone(&d->task, err);
	if (o->since_review)
		return open_since(d, st, err);
	if (o->against)
		return open_against(app, o->against, d, st, err);
	return at_diff_open_state(&d->d, d->r, d->view.w, st, err);
}

static int open_revs(const struct at_app_diff_opts *o, struct at_app_diff *d,
		     struct at_error *err)
{
	struct at_oid base, head;
	int rc;

	if ((rc = at_git_resolve_commit(d->r, o->base_rev, &base, err)) < 0 ||
	    (rc = at_git_resolve_commit(d->r, o->head_rev ? o->head_rev : "HEAD", &head, err)) < 0)
		return rc;
	return at_diff_open_commits(&d->d, d->r, &base, &head, err);
}

static int limit(const struct at_app *app, const struct at_app_diff_opts *o,
		 struct at_app_diff *d, struct at_error *err)
{
	struct at_strlist spec;
	int rc = at_app_pathspec(app->dir, d->has_task ? d->task.path : NULL,
				 at_repo_workdir(d->r), o->paths, o->npaths, &spec, err);

	if (rc == 0 && spec.n)
		rc = at_diff_limit(d->d, spec.v, spec.n, err);
	at_strlist_release(&spec);
	return rc;
}

int at_app_diff_open(const struct at_app *app, const struct at_app_diff_opts *o,
		     struct at_app_diff **out, struct at_error *err)
{
	struct at_app_diff *d = calloc(1, sizeof(*d));
	int rc;

	if (!d)
		return at_error_set(err, AT_ESYS, "out of memory");
	rc = at_app_open(app, &d->r, err);
	if (rc == 0)
		rc = o->base_rev ? open_revs(o, d, err) : open_task(app, o, d, err);
	if (rc == 0)
		rc = limit(app, o, d, err);
	if (rc < 0) {
		at_app_diff_free(d);
		return rc;
	}
	*out = d;
	return 0;
}

void at_app_diff_free(struct at_app_diff *d)
{
	if (!d)
		return;
	at_diff_free(d->d);
	if (d->has_other)
		at_app_view_release(&d->other_view);
	if (d->has_task)
		at_app_view_release(&d->view);
	at_repo_free(d->r);
	at_strlist_release(&d->warnings);
	at_strlist_release(&d->host);
	free(d);
}

const struct at_task *at_app_diff_task(const struct at_app_diff *d)
{
	return d->has_task ? &d->task : NULL;
}

int at_app_diff_changes(struct at_app_diff *d, const struct at_change_set **out,
			struct at_error *err)
{
	return at_diff_changes(d->d, out, err);
}

int at_app_diff_host_files(struct at_app_diff *d, const struct at_strlist **out,
			   struct at_error *err)
{
	const struct at_change_set *cs;
	int rc;

	if (!d->has_host) {
		if ((rc = at_diff_changes(d->d, &cs, err)) < 0 ||
		    (rc = at_app_host_files(d->r, cs, &d->host, err)) < 0) {
			at_strlist_release(&d->host);
			return rc;
		}
		d->has_host = true;
	}
	*out = &d->host;
	return 0;
}

int at_app_diff_patch(struct at_app_diff *d, at_diff_line_cb cb, void *payload,
		      struct at_error *err)
{
	return at_diff_patch(d->d, cb, payload, err);
}

int at_app_diff_stat(struct at_app_diff *d, const struct at_diff_stat_opts *o, char **out,
		     struct at_error *err)
{
	return at_diff_stat(d->d, o, out, err);
}

int at_app_diff_names(struct at_app_diff *d, char **out, struct at_error *err)
{
	return at_diff_names(d->d, out, err);
}

void at_app_diff_preview(struct at_app_diff *d, struct at_app_preview *out)
{
	memset(out, 0, sizeof(*out));
	if (!d->has_task) {
		at_error_set(&out->err, AT_EUSAGE, "no task to preview");
		return;
	}
	/* The state the diff shows: no second scan. */
	out->ok = at_merge_preview(d->r, &d->task, &d->view.st.tree, &out->pv, &out->err) == 0;
}

const struct at_strlist *at_app_diff_warnings(const struct at_app_diff *d)
{
	return &d->warnings;
}
