#include "app/pick.h"

#include <stdlib.h>
#include <string.h>

#include "app/gitview.h"
#include "app/internal.h"
#include "git/pick.h"

struct at_app_pick {
	struct at_repo *r;
	struct at_task task;
	struct at_pick pick;
};

int at_app_pick_open(const struct at_app *app, const char *name, struct at_app_pick **out,
		     struct at_error *err)
{
	struct at_app_pick *p = calloc(1, sizeof(*p));
	struct at_worktree *w = NULL;
	struct at_task_state st;
	int rc;

	if (!p)
		return at_error_set(err, AT_ESYS, "out of memory");
	rc = at_app_open(app, &p->r, err);
	if (rc == 0)
		rc = at_app_resolve(app, p->r, name, &p->task, err);
	if (rc == 0)
		rc = at_app_import_before(p->r, &p->task, NULL, err);
	if (rc == 0)
		rc = at_worktree_open(&w, p->r, &p->task, err);
	if (rc == 0)
		rc = at_task_state(p->r, &p->task, w, &st, err);
	if (rc == 0)
		rc = at_pick_load(p->r, w, &st, &p->pick, err);
	at_worktree_free(w);
	if (rc < 0) {
		at_app_pick_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

void at_app_pick_free(struct at_app_pick *p)
{
	if (!p)
		return;
	at_pick_release(&p->pick);
	at_repo_free(p->r);
	free(p);
}

const char *at_app_pick_task(const struct at_app_pick *p)
{
	return p->task.name;
}

size_t at_app_pick_nfiles(const struct at_app_pick *p)
{
	return p->pick.n;
}

void at_app_pick_file(const struct at_app_pick *p, size_t i, struct at_app_pick_file *out)
{
	const struct at_pick_file *f = &p->pick.f[i];

	out->path = f->path;
	out->header = f->header ? f->header : "";
	out->whole = f->whole;
	out->nhunks = f->n;
}

const char *at_app_pick_hunk(const struct at_app_pick *p, size_t i, size_t j, char *hdr,
			     size_t size)
{
	at_hunk_header(&p->pick.f[i].hunks[j], hdr, size);
	return p->pick.f[i].hunks[j].body;
}

void at_app_pick_set(struct at_app_pick *p, size_t i, size_t j, bool take)
{
	struct at_pick_file *f = &p->pick.f[i];

	if (f->whole)
		f->take_whole = take;
	else if (j < f->n)
		f->take[j] = take;
}

bool at_app_pick_get(const struct at_app_pick *p, size_t i, size_t j)
{
	const struct at_pick_file *f = &p->pick.f[i];

	return f->whole ? f->take_whole : j < f->n && f->take[j];
}

int at_app_pick_split(struct at_app_pick *p, size_t i, size_t j, size_t *parts,
		      struct at_error *err)
{
	return at_pick_split(&p->pick.f[i], j, parts, err);
}

int at_app_pick_edit(struct at_app_pick *p, size_t i, size_t j, const char *text, size_t len,
		     struct at_error *err)
{
	return at_pick_edit(p->r, &p->pick, &p->pick.f[i], j, text, len, err);
}

int at_app_pick_tree(struct at_app_pick *p, bool rest, struct at_oid *tree, struct at_oid *state,
		     char **stat, struct at_error *err)
{
	int rc = at_pick_tree(p->r, &p->pick, tree, err);

	*state = p->pick.state_tree;
	if (rc == 0)
		rc = at_pick_stat(p->r, &p->pick, tree, stat, err);
	if (rc == 0 && rest && (rc = at_pick_tree_rest(p->r, &p->pick, tree, err)) < 0) {
		free(*stat);
		*stat = NULL;
	}
	return rc;
}
