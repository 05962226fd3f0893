#include "app/comment.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app/gitview.h"
#include "app/internal.h"
#include "git/blob.h"
#include "git/checkpoint.h"
#include "git/linemap.h"
#include "core/esc.h"
#include "core/util.h"

/* No file larger is read to check or carry a comment's lines. */
#define COMMENT_FILE_MAX (16u * 1024 * 1024)

/* AT_EUSAGE unless lines first..last are in path of tree. */
static int check_lines(struct at_repo *r, const struct at_oid *tree, const char *task,
		       const struct at_app_comment_new *c, struct at_error *err)
{
	AT_AUTOFREE char *text = NULL;
	struct at_error rerr = AT_ERROR_INIT;
	char e[200];
	size_t len, n;
	int rc;

	at_esc(e, sizeof(e), c->path);
	if (!c->path[0] || c->first < 1 || c->last < c->first)
		return at_error_set(err, AT_EUSAGE, "bad line range in '%s'", e);
	rc = at_git_read_file_in_tree(r, tree, c->path, COMMENT_FILE_MAX, &text, &len, &rerr);
	if (rc == AT_ENOTFOUND)
		return at_error_set(err, AT_EUSAGE, "no file '%s' in task '%s'", e, task);
	if (rc < 0)   /* a directory, a link, a file too large */
		return at_error_set(err, AT_EUSAGE, "cannot comment on lines of '%s': %s", e,
				    rerr.msg);
	n = at_line_count(text, len);
	if (c->last > n)
		return at_error_set(err, AT_EUSAGE, "line %zu is outside '%s' (%zu lines)",
				    c->last, e, n);
	return 0;
}

static int add_locked(struct at_repo *r, const struct at_task *t, const struct at_oid *tree,
		      const struct at_app_comment_new *v, size_t n, unsigned long *ids,
		      struct at_error *err)
{
	const struct at_paths *p = at_repo_paths(r);
	struct at_comments c = { 0 };
	const struct at_task_state *st;
	struct at_app_view view;
	size_t i;
	int rc = 0;

	at_app_view_init(&view, r, t);
	if (!tree && (rc = at_app_view_state(&view, &st, err)) == 0)
		tree = &st->tree;
	for (i = 0; rc == 0 && i < n; i++)
		if (v[i].path)
			rc = check_lines(r, tree, t->name, &v[i], err);
	if (rc == 0)
		rc = at_comments_load(p, t->name, &c, err);
	for (i = 0; rc == 0 && i < n; i++)
		rc = at_comments_add(&c, tree, v[i].path, v[i].first, v[i].last, v[i].text,
				     (int64_t)time(NULL), ids ? &ids[i] : NULL, err);
	/* The tree the comments are on kept from git's gc first: no comment without it. */
	if (rc == 0)
		rc = at_review_keep(r, t->name, tree, err);
	if (rc == 0) {
		c.reviewed = *tree;
		c.has_reviewed = true;
		rc = at_comments_save(p, t->name, &c, err);
	}
	at_comments_release(&c);
	at_app_view_release(&view);
	return rc;
}

int at_app_comment_add(const struct at_app *app, const char *name, const struct at_oid *tree,
		       const struct at_app_comment_new *v, size_t n, unsigned long *ids,
		       struct at_error *err)
{
	struct at_app_locked l;
	struct at_task t;
	int rc;

	rc = at_app_lock(app, &l, name, &t, err);
	if (rc == 0)
		rc = at_app_import_before(l.r, &t, NULL, err);
	if (rc == 0)
		rc = add_locked(l.r, &t, tree, v, n, ids, err);
	at_app_unlock(&l);
	return rc;
}

int at_app_comment_resolve(const struct at_app *app, const char *name, unsigned long id,
			   struct at_error *err)
{
	struct at_comments c = { 0 };
	struct at_comment *m;
	struct at_app_locked l;
	struct at_task t;
	int rc;

	rc = at_app_lock(app, &l, name, &t, err);
	if (rc == 0)
		rc = at_comments_load(at_repo_paths(l.r), t.name, &c, err);
	if (rc == 0 && !(m = at_comments_find(&c, id)))
		rc = at_error_set(err, AT_ENOTFOUND, "no comment '%lu' on task '%s'", id, t.name);
	if (rc == 0) {
		m->resolved = true;
		rc = at_comments_save(at_repo_paths(l.r), t.name, &c, err);
	}
	at_comments_release(&c);
	at_app_unlock(&l);
	return rc;
}

/* Carry m's lines from the tree it was made on to tree; outdated when they are gone. */
static void carry(struct at_repo *r, const struct at_oid *tree, struct at_app_comment_view *out)
{
	const struct at_comment *m = out->c;
	AT_AUTOFREE char *old = NULL;
	AT_AUTOFREE char *new = NULL;
	struct at_error e = AT_ERROR_INIT;
	size_t olen, nlen, first;
	bool outdated = true;

	out->outdated = false;
	if (!m->path)
		return;
	if (at_oid_equal(&m->tree, tree)) {
		out->first = m->first;
		out->last = m->last;
		return;
	}
	if (at_git_read_file_in_tree(r, &m->tree, m->path, COMMENT_FILE_MAX, &old, &olen, &e) < 0 ||
	    at_git_read_file_in_tree(r, tree, m->path, COMMENT_FILE_MAX, &new, &nlen, &e) < 0 ||
	    at_linemap(old, olen, new, nlen, m->first, m->last, &first, &outdated, &e) < 0 ||
	    outdated) {
		out->outdated = true;
		out->first = out->last = 0;
		return;
	}
	out->first = first;
	out->last = first + (m->last - m->first);
}

/*
 * The comments of t (under the lock or not) against tree (NULL: none
 * carried, the lines as made). Used by at_app_comments, run and the gate.
 */
int at_app_comments_of(struct at_repo *r, const struct at_task *t, const struct at_oid *tree,
		       bool all, struct at_app_comments_result *out, struct at_error *err)
{
	size_t i;
	int rc;

	memset(out, 0, sizeof(*out));
	out->task = *t;
	if ((rc = at_comments_load(at_repo_paths(r), t->name, &out->comments, err)) < 0)
		return rc;
	out->open = at_comments_open(&out->comments);
	if (out->comments.n && !(out->v = calloc(out->comments.n, sizeof(*out->v)))) {
		at_app_comments_result_release(out);
		return at_error_set(err, AT_ESYS, "out of memory");
	}
	for (i = 0; i < out->comments.n; i++) {
		struct at_app_comment_view *cv = &out->v[out->n];

		if (!all && out->comments.v[i].resolved)
			continue;
		cv->c = &out->comments.v[i];
		cv->first = cv->c->first;
		cv->last = cv->c->last;
		if (tree)
			carry(r, tree, cv);
		out->n++;
	}
	return 0;
}

int at_app_comments(const struct at_app *app, const char *name, bool all,
		    struct at_app_comments_result *out, struct at_error *err)
{
	const struct at_task_state *st;
	struct at_app_view view;
	struct at_repo *r = NULL;
	struct at_task t;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = at_app_open(app, &r, err)) < 0)
		return rc;
	rc = at_app_resolve(app, r, name, &t, err);
	if (rc == 0)
		rc = at_app_import_before(r, &t, NULL, err);
	if (rc == 0) {
		at_app_view_init(&view, r, &t);
		rc = at_app_view_state(&view, &st, err);
		if (rc == 0)
			rc = at_app_comments_of(r, &t, &st->tree, all, out, err);
		at_app_view_release(&view);
	}
	at_repo_free(r);
	return rc;
}

void at_app_comments_result_release(struct at_app_comments_result *res)
{
	if (!res)
		return;
	at_comments_release(&res->comments);
	free(res->v);
	res->v = NULL;
	res->n = 0;
}
