#include "core/state.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/array.h"
#include "core/json.h"
#include "core/name.h"
#include "core/util.h"

#define STATE_MAX_BYTES (64 * 1024)

static const char *phase_name(enum at_task_phase ph)
{
	return ph == AT_TASK_READY ? "ready" : "creating";
}

char *at_task_to_json(const struct at_task *t)
{
	at_json *o = at_json_object();
	char *text = NULL;

	if (!o)
		return NULL;
	if (at_json_add_number(o, "version", 1) == 0 &&
	    at_json_add_string(o, "name", t->name) == 0 &&
	    at_json_add_string(o, "phase", phase_name(t->phase)) == 0 &&
	    at_json_add_string(o, "branch", t->branch) == 0 &&
	    at_json_add_string(o, "base_branch", t->base_branch) == 0 &&
	    at_json_add_string(o, "base_commit", t->base_commit) == 0 &&
	    at_json_add_string(o, "worktree_name", t->worktree_name) == 0 &&
	    at_json_add_string(o, "path", t->path) == 0 &&
	    at_json_add_string(o, "admin_dir", t->admin_dir) == 0 &&
	    at_json_add_number(o, "created", (double)t->created) == 0 &&
	    (t->form != AT_FORM_LAYERED ||
	     (at_json_add_string(o, "form", "layered") == 0 &&
	      at_json_add_string(o, "base_tree", t->base_tree) == 0)))
		text = at_json_print(o, true);
	at_json_free(o);
	return text;
}

static int copy_field(const at_json *o, const char *key, char *dst, size_t size,
		      const char *what, struct at_error *err)
{
	const char *v = at_json_get_string(o, key);

	if (!v)
		return at_error_set(err, AT_ECORRUPT, "corrupt task record '%s': no string '%s'",
				    what, key);
	if (strlen(v) >= size)
		return at_error_set(err, AT_ECORRUPT, "corrupt task record '%s': '%s' too long",
				    what, key);
	strcpy(dst, v);
	return 0;
}

/* "form": absent or "full" (records made before the layered form), or "layered" with its tree. */
static int read_form(const at_json *o, const char *what, struct at_task *t, struct at_error *err)
{
	const char *form = at_json_get_string(o, "form");
	struct at_oid tree;
	int rc;

	if (!form || strcmp(form, "full") == 0)
		return 0;
	if (strcmp(form, "layered") != 0)
		return at_error_set(err, AT_ECORRUPT, "corrupt task record '%s': bad 'form'", what);
	if ((rc = copy_field(o, "base_tree", t->base_tree, sizeof(t->base_tree), what, err)) < 0)
		return rc;
	/* Parsed where it enters: it names a directory of the state (core/paths.h). */
	if (at_oid_parse(&tree, t->base_tree) < 0)
		return at_error_set(err, AT_ECORRUPT, "corrupt task record '%s': bad 'base_tree'",
				    what);
	t->form = AT_FORM_LAYERED;
	return 0;
}

int at_task_from_json(const char *text, const char *what, struct at_task *out,
		      struct at_error *err)
{
	struct at_task t;
	struct at_oid base;
	at_json *o = NULL;
	const char *phase;
	double created;
	int rc;

	memset(&t, 0, sizeof(t));
	rc = at_json_parse(&o, text, what, err);
	if (rc < 0)
		return rc;
	if (!at_json_is_object(o)) {
		rc = at_error_set(err, AT_ECORRUPT, "corrupt task record '%s': not an object", what);
		goto out;
	}
	if ((rc = copy_field(o, "name", t.name, sizeof(t.name), what, err)) < 0 ||
	    (rc = copy_field(o, "branch", t.branch, sizeof(t.branch), what, err)) < 0 ||
	    (rc = copy_field(o, "base_branch", t.base_branch, sizeof(t.base_branch), what, err)) < 0 ||
	    (rc = copy_field(o, "base_commit", t.base_commit, sizeof(t.base_commit), what, err)) < 0 ||
	    (rc = copy_field(o, "worktree_name", t.worktree_name, sizeof(t.worktree_name), what,
			     err)) < 0 ||
	    (rc = copy_field(o, "path", t.path, sizeof(t.path), what, err)) < 0 ||
	    (rc = copy_field(o, "admin_dir", t.admin_dir, sizeof(t.admin_dir), what, err)) < 0)
		goto out;
	if (!at_name_valid(t.name)) {
		rc = at_error_set(err, AT_ECORRUPT, "corrupt task record '%s': invalid name", what);
		goto out;
	}
	/* Parsed here, where it enters: everything after may rely on a well-formed id. */
	if (at_oid_parse(&base, t.base_commit) < 0) {
		rc = at_error_set(err, AT_ECORRUPT, "corrupt task record '%s': bad 'base_commit'",
				  what);
		goto out;
	}
	phase = at_json_get_string(o, "phase");
	if (!phase || (strcmp(phase, "ready") != 0 && strcmp(phase, "creating") != 0)) {
		rc = at_error_set(err, AT_ECORRUPT, "corrupt task record '%s': bad 'phase'", what);
		goto out;
	}
	t.phase = strcmp(phase, "ready") == 0 ? AT_TASK_READY : AT_TASK_CREATING;
	/* Range-checked before the conversion: an out-of-range double is undefined behaviour. */
	if (!at_json_get_number(o, "created", &created) || !(created >= 0 && created < 1e15)) {
		rc = at_error_set(err, AT_ECORRUPT, "corrupt task record '%s': no valid 'created'",
				  what);
		goto out;
	}
	t.created = (int64_t)created;
	if ((rc = read_form(o, what, &t, err)) < 0)
		goto out;
	*out = t;
	rc = 0;
out:
	at_json_free(o);
	return rc;
}

static int save(const struct at_paths *p, const struct at_task *t, bool sync_dir,
		struct at_error *err)
{
	AT_AUTOFREE char *text = NULL;
	char path[PATH_MAX];

	if (at_paths_record(p, t->name, path, sizeof(path), err) < 0)
		return err->code;
	if (at_paths_ensure(p, err) < 0)
		return err->code;
	text = at_task_to_json(t);
	if (!text)
		return at_error_set(err, AT_ESYS, "out of memory writing '%s'", path);
	if ((sync_dir ? at_write_atomic : at_write_synced)(path, text, strlen(text), 0600) < 0)
		return at_error_sys(err, AT_ESYS, "cannot write '%s'", path);
	return 0;
}

int at_state_save(const struct at_paths *p, const struct at_task *t, struct at_error *err)
{
	return save(p, t, true, err);
}

int at_state_save_creating(const struct at_paths *p, const struct at_task *t,
			   struct at_error *err)
{
	if (t->phase != AT_TASK_CREATING)
		return at_error_set(err, AT_ESYS, "the record of task '%s' is not a creating one",
				    t->name);
	return save(p, t, false, err);
}

/* A record of the old place, in a repository that has moved since. */
static bool old_place(const struct at_task *rec)
{
	char tail[AT_NAME_MAX + 32];
	size_t n = strlen(rec->path), m;

	if (at_fmt(tail, sizeof(tail), "/agenttask/worktrees/%s", rec->name) < 0)
		return false;
	m = strlen(tail);
	return n > m && strcmp(rec->path + n - m, tail) == 0;
}

/*
 * The branch and the admin directory are derived from the name, never taken
 * from the file: discard and gc remove them, and a record edited to name
 * another branch or directory (refs/heads/main, $HOME) must not make them
 * remove that. The worktree's place depends on the configuration when the
 * task was made, so it is the record's, but only where it is a place of
 * that task's (at_paths_worktree_trusted: the old or the current default
 * place, or what git registered for it); else what git registered is used,
 * and with no registration either, the record is corrupt.
 * A repository moved with its old-style worktrees is followed.
 */
static int derive_paths(const struct at_paths *p, const struct at_task *rec, const char *what,
			struct at_task *out, struct at_error *err)
{
	struct at_task t;

	if (at_task_init(&t, p, rec->name, err) < 0)
		return err->code;
	if (at_paths_worktree_trusted(p, &t, rec->path))
		memcpy(t.path, rec->path, sizeof(t.path));
	else if (at_task_registered(&t, t.path, sizeof(t.path)))
		;    /* edited: git's word for where the task's worktree is */
	else if (old_place(rec))
		at_paths_old_worktree(p, rec->name, t.path, sizeof(t.path), NULL);
	else
		return at_error_set(err, AT_ECORRUPT,
				    "corrupt task record '%s': 'path' is not a worktree git "
				    "registered for task '%s'", what, rec->name);
	memcpy(t.base_branch, rec->base_branch, sizeof(t.base_branch));
	memcpy(t.base_commit, rec->base_commit, sizeof(t.base_commit));
	t.created = rec->created;
	t.phase = rec->phase;
	t.form = rec->form;
	memcpy(t.base_tree, rec->base_tree, sizeof(t.base_tree));
	*out = t;
	return 0;
}

int at_state_load(const struct at_paths *p, const char *name, struct at_task *out,
		  struct at_error *err)
{
	AT_AUTOFREE char *text = NULL;
	char path[PATH_MAX];
	struct at_task t;

	if (at_name_check(name, err) < 0)
		return err->code;
	if (at_paths_record(p, name, path, sizeof(path), err) < 0)
		return err->code;
	text = at_read_file(path, STATE_MAX_BYTES, NULL);
	if (!text) {
		if (errno == ENOENT)
			return at_error_set(err, AT_ENOTFOUND, "no such task '%s'", name);
		if (errno == EINVAL)   /* at_read_file: a directory, a FIFO, a device */
			return at_error_set(err, AT_ECORRUPT,
					    "cannot read task record '%s': not a regular file", path);
		return at_error_sys(err, AT_ECORRUPT, "cannot read task record '%s'", path);
	}
	if (at_task_from_json(text, path, &t, err) < 0)
		return err->code;
	if (strcmp(t.name, name) != 0)
		return at_error_set(err, AT_ECORRUPT, "corrupt task record '%s': names task '%s'",
				    path, t.name);
	return derive_paths(p, &t, path, out, err);
}

int at_state_remove(const struct at_paths *p, const char *name, struct at_error *err)
{
	char path[PATH_MAX];

	if (at_paths_record(p, name, path, sizeof(path), err) < 0)
		return err->code;
	if (unlink(path) < 0 && errno != ENOENT)
		return at_error_sys(err, AT_ESYS, "cannot remove '%s'", path);
	return 0;
}

static int task_cmp(const void *a, const void *b)
{
	return strcmp(((const struct at_task *)a)->name, ((const struct at_task *)b)->name);
}

static int list_add_problem(struct at_task_list *l, const char *name, const struct at_error *e)
{
	struct at_state_problem *np;

	if (AT_ARRAY_GROW(l->problems, l->problems_cap, l->nproblems + 1) < 0)
		return -1;
	np = &l->problems[l->nproblems++];
	memset(np, 0, sizeof(*np));
	/* A record's name is the file name without ".json": cut to fit, it names the file only. */
	snprintf(np->name, sizeof(np->name), "%s", name);
	np->err = *e;
	return 0;
}

static int list_add_task(struct at_task_list *l, const struct at_task *t)
{
	if (AT_ARRAY_GROW(l->tasks, l->cap, l->count + 1) < 0)
		return -1;
	l->tasks[l->count++] = *t;
	return 0;
}

/* "NAME.json" -> NAME in buf; false for anything else (temporary files included). */
static bool record_name(const char *file, char *buf, size_t size)
{
	size_t len = strlen(file);

	if (len <= 5 || strcmp(file + len - 5, ".json") != 0 || len - 5 >= size)
		return false;
	memcpy(buf, file, len - 5);
	buf[len - 5] = '\0';
	return true;
}

int at_state_list(const struct at_paths *p, struct at_task_list *out, struct at_error *err)
{
	struct at_task_list l = { 0 };
	struct dirent *de;
	DIR *d;

	d = opendir(p->tasks_dir);
	if (!d) {
		if (errno == ENOENT) {
			*out = l;
			return 0;
		}
		return at_error_sys(err, AT_ESYS, "cannot read '%s'", p->tasks_dir);
	}
	while ((de = readdir(d))) {
		char name[AT_NAME_MAX + 1];
		struct at_error e = AT_ERROR_INIT;
		struct at_task t;
		int rc;

		if (!record_name(de->d_name, name, sizeof(name)) || !at_name_valid(name))
			continue;
		if (at_state_load(p, name, &t, &e) == 0)
			rc = list_add_task(&l, &t);
		else
			rc = list_add_problem(&l, name, &e);
		if (rc < 0) {
			closedir(d);
			at_task_list_release(&l);
			return at_error_set(err, AT_ESYS, "out of memory listing tasks");
		}
	}
	closedir(d);
	if (l.count)
		qsort(l.tasks, l.count, sizeof(*l.tasks), task_cmp);
	*out = l;
	return 0;
}

void at_task_list_release(struct at_task_list *l)
{
	if (!l)
		return;
	free(l->tasks);
	free(l->problems);
	memset(l, 0, sizeof(*l));
}

static bool path_within(const char *dir, const char *root)
{
	size_t n = strlen(root);

	return strncmp(dir, root, n) == 0 && (dir[n] == '\0' || dir[n] == '/');
}

int at_state_find_by_dir(const struct at_paths *p, const char *dir, struct at_task *out,
			 struct at_error *err)
{
	struct at_task_list l;
	size_t i;

	if (at_state_list(p, &l, err) < 0)
		return err->code;
	for (i = 0; i < l.count; i++) {
		char real[PATH_MAX];
		const char *root = realpath(l.tasks[i].path, real) ? real : l.tasks[i].path;

		if (path_within(dir, root)) {
			*out = l.tasks[i];
			at_task_list_release(&l);
			return 0;
		}
	}
	at_task_list_release(&l);
	return at_error_set(err, AT_ENOTASK,
			    "no task named and '%s' is not inside a task's worktree", dir);
}
