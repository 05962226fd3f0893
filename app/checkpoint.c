/*
 * checkpoint.c - a task's checkpoints taken and listed with what each run
 * changed (app/checkpoint.h; the commits and refs: git/checkpoint.c).
 */
#include "app/checkpoint.h"

#include <stdlib.h>
#include <string.h>

#include "app/gitview.h"
#include "app/internal.h"
#include "git/checkpoint.h"
#include "git/diff.h"

int at_app_checkpoint_number(const char *text, unsigned *out, struct at_error *err)
{
	unsigned long n = 0;
	const char *p;

	for (p = text; *p >= '0' && *p <= '9' && n <= AT_CHECKPOINT_MAX; p++)
		n = n * 10 + (unsigned long)(*p - '0');
	if (!text[0] || *p || n == 0 || n > AT_CHECKPOINT_MAX)
		return at_error_set(err, AT_EUSAGE, "'%.64s' is not a run's number (1, 2, ...; see "
				    "'agenttask log')", text);
	*out = (unsigned)n;
	return 0;
}

int at_app_checkpoint_take(struct at_app_view *v, enum at_checkpoint_kind kind,
			   struct at_checkpoint *out, struct at_error *err)
{
	const struct at_task_state *st;
	int rc;

	if ((rc = at_app_view_state(v, &st, err)) < 0)
		return rc;
	/* What the state says, not how it was read: a layered task's has no worktree open. */
	if (!st->worktree)
		return at_task_worktree_gone(v->task, err);
	return at_checkpoint_take(v->r, v->task, st, kind, out, err);
}

int at_app_checkpoint_changes(struct at_app_view *v, const struct at_checkpoint *from,
			      const struct at_oid *to_tree, struct at_change_set *out,
			      struct at_error *err)
{
	const struct at_task_state *st = NULL;
	struct at_diff *d = NULL;
	int rc = 0;

	if (!to_tree && (rc = at_app_view_state(v, &st, err)) < 0)
		return rc;
	if (!v->w && at_worktree_present(v->task))
		rc = at_worktree_open(&v->w, v->r, v->task, err);
	if (rc == 0 && !v->w)
		rc = at_task_worktree_gone(v->task, err);
	if (rc == 0)
		rc = at_diff_open_between(&d, v->r, v->w, &from->commit, st ? &st->tree : to_tree,
					  err);
	if (rc == 0)
		rc = at_diff_take_changes(d, out, err);
	at_diff_free(d);
	return rc;
}

int at_app_checkpoint_pick(struct at_repo *r, const struct at_task *t, const char *text,
			   struct at_checkpoint_list *l, const struct at_checkpoint **out,
			   struct at_error *err)
{
	unsigned n;
	int rc;

	l->v = NULL;
	l->n = 0;
	if ((rc = at_app_checkpoint_number(text, &n, err)) < 0 ||
	    (rc = at_checkpoint_list(r, t->name, l, err)) < 0)
		return rc;
	if (!(*out = at_checkpoint_find(l, n)))
		return at_error_set(err, AT_EUSAGE, "task '%s' has no checkpoint %u (%s)", t->name, n,
				    l->n ? "see 'agenttask log'" : "it has not run yet");
	return 0;
}

/* What each run changed, into c->runs. */
static int run_changes(struct at_app_checkpoints *c, struct at_app_view *v, bool changes,
		       struct at_error *err)
{
	struct at_error werr = AT_ERROR_INIT;
	size_t i;
	int rc;

	if (!(c->runs = calloc(c->list.n ? c->list.n : 1, sizeof(*c->runs))))
		return at_error_set(err, AT_ESYS, "out of memory");
	for (i = 0; i < c->list.n; i++) {
		const struct at_checkpoint *cp = &c->list.v[i], *next;
		struct at_app_run_change *rc_ = &c->runs[c->nruns];

		if (cp->kind != AT_CHECKPOINT_RUN)
			continue;
		c->nruns++;
		rc_->before = *cp;
		next = at_checkpoint_next(&c->list, cp);
		rc_->last = !next;
		if (!changes)
			continue;
		rc = at_app_checkpoint_changes(v, cp, next ? &next->tree : NULL, &rc_->cs, &werr);
		if (rc < 0 && next) {
			*err = werr;
			return rc;
		}
		if (rc < 0)
			at_strlist_pushf(&c->warnings, "what run %u changed is not known: %s", cp->n,
					 werr.msg);
		else
			rc_->known = true;
		werr = (struct at_error)AT_ERROR_INIT;
	}
	return 0;
}

int at_app_checkpoints(const struct at_app *app, const char *name, bool changes,
		       struct at_app_checkpoints *out, struct at_error *err)
{
	struct at_app_view v;
	struct at_repo *r = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = at_app_open(app, &r, err)) < 0)
		return rc;
	if ((rc = at_app_resolve(app, r, name, &out->task, err)) == 0)
		rc = at_app_import_before(r, &out->task, &out->warnings, err);
	if (rc == 0)
		rc = at_checkpoint_list(r, out->task.name, &out->list, err);
	at_app_view_init(&v, r, &out->task);
	if (rc == 0)
		rc = run_changes(out, &v, changes, err);
	at_app_view_release(&v);
	at_repo_free(r);
	return rc;
}

void at_app_checkpoints_release(struct at_app_checkpoints *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->nruns; i++)
		at_change_set_release(&c->runs[i].cs);
	free(c->runs);
	c->runs = NULL;
	c->nruns = 0;
	at_checkpoint_list_release(&c->list);
	at_strlist_release(&c->warnings);
}
