/*
 * task.c - path, list, status, log.
 */
#include "app/task.h"

#include <stdlib.h>
#include <string.h>

#include "app/internal.h"
#include "core/array.h"
#include "core/audit.h"
#include "core/name.h"
#include "git/config.h"
#include "git/merge.h"
#include "git/worktree.h"

bool at_app_config(const struct at_app *app, const char *key, char *buf, size_t size)
{
	struct at_error ignored = AT_ERROR_INIT;
	struct at_repo *r = NULL;
	bool found = at_app_open(app, &r, &ignored) == 0 &&
		     at_git_user_config(r, key, buf, size);

	at_repo_free(r);
	return found;
}

int at_app_task(const struct at_app *app, const char *name, struct at_task *out,
		struct at_error *err)
{
	struct at_repo *r = NULL;
	int rc = at_app_open(app, &r, err);

	if (rc == 0)
		rc = at_app_resolve(app, r, name, out, err);
	at_repo_free(r);
	return rc;
}

static int list_inspect(struct at_repo *r, struct at_app_list *l, bool inspect,
			struct at_error *err)
{
	size_t i;

	for (i = 0; i < l->records.count; i++) {
		struct at_app_list_entry *e;

		if (AT_ARRAY_GROW(l->v, l->cap, l->n + 1) < 0)
			return at_error_set(err, AT_ESYS, "out of memory");
		e = &l->v[l->n++];
		memset(e, 0, sizeof(*e));
		e->task = l->records.tasks[i];
		if (inspect)
			at_task_inspect(r, &e->task, &e->info, &e->err);
	}
	return 0;
}

static int list(const struct at_app *app, bool inspect, struct at_app_list *out,
		struct at_error *err)
{
	struct at_app_list l;
	struct at_repo *r = NULL;
	int rc;

	memset(&l, 0, sizeof(l));
	rc = at_app_open(app, &r, err);
	if (rc == 0)
		rc = at_state_list(at_repo_paths(r), &l.records, err);
	if (rc == 0)
		rc = list_inspect(r, &l, inspect, err);
	at_repo_free(r);
	if (rc < 0) {
		at_app_list_release(&l);
		return rc;
	}
	*out = l;
	return 0;
}

int at_app_list(const struct at_app *app, struct at_app_list *out, struct at_error *err)
{
	return list(app, true, out, err);
}

int at_app_list_names(const struct at_app *app, struct at_app_list *out, struct at_error *err)
{
	return list(app, false, out, err);
}

void at_app_list_release(struct at_app_list *l)
{
	if (!l)
		return;
	free(l->v);
	at_task_list_release(&l->records);
	memset(l, 0, sizeof(*l));
}

void at_app_preview_release(struct at_app_preview *p)
{
	if (p && p->ok)
		at_merge_preview_release(&p->pv);
}

int at_app_status(const struct at_app *app, const char *name, struct at_app_status *out,
		  struct at_error *err)
{
	struct at_app_status st;
	struct at_repo *r = NULL;
	int rc;

	memset(&st, 0, sizeof(st));
	rc = at_app_open(app, &r, err);
	if (rc == 0)
		rc = at_app_resolve(app, r, name, &st.task, err);
	if (rc == 0)
		rc = at_task_inspect(r, &st.task, &st.info, err);
	if (rc == 0)
		st.preview.ok = at_merge_preview(r, &st.task, NULL, &st.preview.pv,
						 &st.preview.err) == 0;
	at_repo_free(r);
	if (rc == 0)
		*out = st;
	return rc;
}

void at_app_status_release(struct at_app_status *s)
{
	if (s)
		at_app_preview_release(&s->preview);
}

int at_app_log(const struct at_app *app, const char *name, struct at_app_log *out,
	       struct at_error *err)
{
	struct at_app_log l = { "", NULL };
	struct at_repo *r = NULL;
	struct at_task t;
	int rc;

	rc = at_app_open(app, &r, err);
	if (rc == 0 && name)
		rc = at_name_check(name, err);
	else if (rc == 0 && (rc = at_app_resolve(app, r, NULL, &t, err)) == 0)
		name = t.name;
	if (rc == 0) {
		memcpy(l.task, name, strlen(name) + 1);
		rc = at_audit_read(at_repo_paths(r), name, &l.entries, err);
	}
	at_repo_free(r);
	if (rc == 0)
		*out = l;
	return rc;
}

void at_app_log_release(struct at_app_log *l)
{
	if (!l)
		return;
	at_json_free(l->entries);
	l->entries = NULL;
}
