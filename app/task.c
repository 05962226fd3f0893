/*
 * task.c - path, list, status, log.
 */
#include "app/task.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app/checkpoint.h"
#include "app/gitview.h"
#include "app/internal.h"
#include "core/array.h"
#include "core/audit.h"
#include "core/lock.h"
#include "core/name.h"
#include "core/state.h"
#include "core/util.h"
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

/* How long a reader waits for a mutation under way to settle. */
enum { SETTLE_MS = 5000, SETTLE_STEP_MS = 10 };

/*
 * A task inspected by a reader, which takes no lock: a discard or a gc
 * midway (the worktree or its admin dir gone, the record not yet) makes
 * the inspection fail. Then, for up to SETTLE_MS, this waits for the
 * record to go (1: the task was removed meanwhile, nothing to report) or
 * for the repository lock to be free (no mutation under way), and
 * inspects again, from the record as it is then. A failure after that is
 * the task's own. A healthy task costs nothing more.
 */
static int inspect_settled(struct at_repo *r, struct at_task *t, struct at_task_info *info,
			   struct at_error *err)
{
	const struct timespec step = { 0, SETTLE_STEP_MS * 1000000L };
	struct at_error first = AT_ERROR_INIT;
	int waited;

	if (at_task_inspect(r, t, info, &first) == 0)
		return 0;
	for (waited = 0; waited < SETTLE_MS; waited += SETTLE_STEP_MS) {
		struct at_error ignored = AT_ERROR_INIT;
		struct at_task now;
		int fd, rc = at_state_load(at_repo_paths(r), t->name, &now, &ignored);

		if (rc == AT_ENOTFOUND)
			return 1;
		if (at_lock_try(at_repo_paths(r), &fd, &ignored) == 0) {
			at_lock_release(fd);
			if (rc == 0)
				*t = now;
			memset(info, 0, sizeof(*info));
			return at_task_inspect(r, t, info, err);
		}
		nanosleep(&step, NULL);
	}
	*err = first;
	return first.code;
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
		if (inspect && inspect_settled(r, &e->task, &e->info, &e->err) == 1)
			l->n--;   /* removed while we looked: as if listed a moment later */
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

/*
 * The task's setup record (app/setup.c writes it) as `status --json` shows
 * it: {state: "done" | "failed", steps, done, command?, exit_code?,
 * timed_out?}; NULL when it had no setup (or its record cannot be read).
 */
static at_json *setup_record(struct at_repo *r, const char *name)
{
	struct at_error err = AT_ERROR_INIT;
	char path[PATH_MAX];
	AT_AUTOFREE char *text = NULL;
	at_json *o = NULL;

	if (at_paths_setup(at_repo_paths(r), name, path, sizeof(path), NULL) == 0 &&
	    (text = at_read_file(path, 4096, NULL)) &&
	    (at_json_parse(&o, text, path, &err) < 0 || !at_json_is_object(o))) {
		at_json_free(o);
		o = NULL;
	}
	return o;
}

at_json *at_app_setup_json(const struct at_app *app, const char *name)
{
	struct at_repo *r = NULL;
	struct at_error err = AT_ERROR_INIT;
	at_json *o = NULL;

	if (at_app_open(app, &r, &err) == 0)
		o = setup_record(r, name);
	at_repo_free(r);
	return o;
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
		rc = at_app_import_before(r, &st.task, &st.warnings, err);
	if (rc == 0 && (rc = inspect_settled(r, &st.task, &st.info, err)) == 1)
		rc = at_error_set(err, AT_ENOTFOUND, "no such task '%s'", st.task.name);
	if (rc == 0)
		st.preview.ok = at_merge_preview(r, &st.task, NULL, &st.preview.pv,
						 &st.preview.err) == 0;
	if (rc == 0)
		st.setup = setup_record(r, st.task.name);
	at_repo_free(r);
	if (rc == 0)
		*out = st;
	else
		at_strlist_release(&st.warnings);
	return rc;
}

void at_app_status_release(struct at_app_status *s)
{
	if (!s)
		return;
	at_app_preview_release(&s->preview);
	at_strlist_release(&s->warnings);
	at_json_free(s->setup);
	s->setup = NULL;
}

/*
 * What each run of the task as it is now changed (at_app_log_add_changes
 * puts it in the entries): the entries since the task was last made count
 * (a removed task's runs, under the same name, had numbers of their own).
 */
static void log_runs(const struct at_app *app, struct at_app_log *l)
{
	struct at_error cerr = AT_ERROR_INIT;
	const at_json *e;
	const char *event;
	size_t i = 0;

	for (e = at_json_child(l->entries); e; e = at_json_next(e), i++)
		if ((event = at_json_get_string(e, "event")) && strcmp(event, "new") == 0)
			l->since = i;
	if (at_app_checkpoints(app, l->task, true, &l->runs, &cerr) < 0) {
		at_strlist_pushf(&l->warnings, "what each run changed is not known: %s", cerr.msg);
		at_app_checkpoints_release(&l->runs);
		return;
	}
	for (i = 0; i < l->runs.warnings.n; i++)
		at_strlist_push(&l->warnings, l->runs.warnings.v[i]);
	l->has_runs = true;
}

int at_app_log(const struct at_app *app, const char *name, struct at_app_log *out,
	       struct at_error *err)
{
	struct at_app_log l;
	struct at_repo *r = NULL;
	struct at_task t;
	int rc;

	memset(&l, 0, sizeof(l));
	rc = at_app_open(app, &r, err);
	if (rc == 0 && name)
		rc = at_name_check(name, err);
	else if (rc == 0 && (rc = at_app_resolve(app, r, NULL, &t, err)) == 0)
		name = t.name;
	if (rc == 0) {
		memcpy(l.task, name, strlen(name) + 1);
		rc = at_audit_read(at_repo_paths(r), name, &l.entries, err);
	}
	if (rc == 0 && at_task_resolve(r, name, ".", &t, NULL) == 0)
		log_runs(app, &l);
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
	at_strlist_release(&l->warnings);
	at_app_checkpoints_release(&l->runs);
}
