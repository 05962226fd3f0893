#include "app/lifecycle.h"

#include <dirent.h>
#include <string.h>

#include <limits.h>
#include <time.h>
#include <unistd.h>

#include "core/comments.h"
#include "app/layer.h"
#include "core/fs.h"
#include "core/report.h"
#include "core/state.h"
#include "core/trace.h"
#include "git/checkpoint.h"
#include "core/util.h"
#include "git/layer.h"
#include "git/repo.h"
#include "git/worktree.h"

/* ---- removal ---- */

/*
 * The record goes last: until then a kill leaves a record that names what
 * is left, and the next remover (discard, accept, gc) finishes the job.
 */
static int remove_parts(struct at_repo *r, const struct at_task *t, bool only_unmoved,
			struct at_error *err)
{
	const struct at_paths *p = at_repo_paths(r);
	char path[PATH_MAX];

	/* The audit log (logs/NAME.jsonl) stays: it records what happened. */
	if (at_task_remove_worktree(t, err) < 0)
		return err->code;
	/* A layered task's own files (its base stays for gc: others may share it). */
	if (at_app_layer_remove(p, t->name, err) < 0)
		return err->code;
	/* Its HOME, caches and CA go with it (the trash keeps the branch, not these). */
	if (at_paths_home(p, t->name, path, sizeof(path), err) < 0 || at_rmtree(path, err) < 0 ||
	    at_paths_caches(p, t->name, path, sizeof(path), err) < 0 || at_rmtree(path, err) < 0 ||
	    at_paths_ca(p, t->name, path, sizeof(path), err) < 0 || at_rmtree(path, err) < 0)
		return err->code;
	/* The scan's directory cache (git/dircache.h) goes with the worktree. */
	if (at_paths_scan(p, t->name, path, sizeof(path), NULL) == 0)
		unlink(path);
	/* And the size of its HOME (app/home.c) with the home. */
	if (at_paths_home_size(p, t->name, path, sizeof(path), NULL) == 0)
		unlink(path);
	/* The task's git view (app/gitview.c): what it held was imported, or is refused. */
	if (at_paths_view(p, t->name, path, sizeof(path), NULL) == 0 && at_rmtree(path, err) < 0)
		return err->code;
	/* The person's review comments (core/comments.h; a trash entry keeps a copy). */
	if (at_comments_remove(p, t->name, err) < 0 || at_review_forget(r, t->name, err) < 0)
		return err->code;
	/* Its checkpoints (git/checkpoint.h: a trash entry keeps its own refs to them,
	 * git/trash_keep.h), and the record of a rewind a kill left unfinished. */
	if (at_checkpoint_remove_all(r, t->name, err) < 0)
		return err->code;
	if (at_paths_rewind(p, t->name, path, sizeof(path), NULL) == 0)
		unlink(path);
	if (at_task_delete_branch(r, t, only_unmoved, err) < 0)
		return err->code;
	return at_state_remove(p, t->name, err);
}

int at_app_task_rollback(struct at_repo *r, const struct at_task *t, struct at_error *err)
{
	at_task_clear_branch_leftovers(r, t);
	return remove_parts(r, t, true, err);
}

int at_app_task_remove(struct at_repo *r, const struct at_task *t, struct at_error *err)
{
	char where[PATH_MAX];

	if (at_task_moved(t, where, sizeof(where)))
		return at_error_set(err, AT_EDIRTY,
				    "the worktree of task '%s' was moved to '%s'; move it back "
				    "first (git worktree move '%s' '%s')",
				    t->name, where, where, t->path);
	return remove_parts(r, t, false, err);
}

/* ---- creation ---- */

/* A record still CREATING under the lock means its creator died: undo it. */
static int clear_leftover(struct at_repo *r, const char *name, struct at_error *err)
{
	struct at_error e = AT_ERROR_INIT;
	struct at_task old;

	if (at_state_load(at_repo_paths(r), name, &old, &e) < 0) {
		if (e.code == AT_ENOTFOUND)
			return 0;
		*err = e;
		return e.code;
	}
	if (old.phase == AT_TASK_READY)
		return at_error_set(err, AT_EEXISTS, "task '%s' already exists", name);
	return at_app_task_rollback(r, &old, err);
}

/* Name checked, leftovers of a dead creator undone, nothing in the way. */
static int prepare_task(struct at_repo *r, const char *name, struct at_task *t,
			struct at_error *err)
{
	const struct at_paths *p = at_repo_paths(r);
	int rc;

	if ((rc = at_repo_worktree_home(r, err)) < 0 || (rc = at_task_init(t, p, name, err)) < 0 ||
	    (rc = at_paths_ensure(p, err)) < 0 || (rc = at_paths_ensure_worktree_home(p, err)) < 0 ||
	    (rc = clear_leftover(r, name, err)) < 0)
		return rc;
	return at_task_check_free(r, t, err);
}

/*
 * Full: a checkout at t->path. Layered: its base made if it is not there
 * (or, where it cannot be, the task made full after all: the record says
 * so before anything of the full form is made), then the task's layer and
 * git's worktree, nothing checked out.
 */
static int add_worktree(struct at_repo *r, struct at_task *t,
			const struct at_progress_hook *progress, struct at_app_layer *layer,
			struct at_error *err)
{
	const struct at_paths *p = at_repo_paths(r);
	char index[PATH_MAX], tree[AT_OID_HEXSZ + 1];
	int rc;

	if (t->form == AT_FORM_LAYERED &&
	    (rc = at_layer_base(r, t->base_commit, tree, progress, err)) != 0) {
		if (rc < 0)
			return rc;
		t->form = AT_FORM_FULL;
		t->base_tree[0] = '\0';
		if ((rc = at_state_save(p, t, err)) < 0)
			return rc;
	}
	if (t->form != AT_FORM_LAYERED)
		return at_task_add_worktree(r, t, progress, err);
	if ((rc = at_app_layer_make(p, t, layer, err)) < 0 ||
	    (rc = at_paths_base_index(p, t->base_tree, index, sizeof(index), err)) < 0)
		return rc;
	return at_task_add_layered(r, t, layer->upper, index, err);
}

/* The form of the new task, and for a layered one its base's tree (made later: add_worktree). */
static int choose_form(struct at_repo *r, struct at_task *t, const struct at_app_create_opts *o,
		       struct at_error *err)
{
	t->form = AT_FORM_FULL;
	if (!o || o->form != AT_FORM_LAYERED)
		return 0;
	t->form = AT_FORM_LAYERED;
	return at_layer_tree_of(r, t->base_commit, t->base_tree, err);
}

/*
 * The CREATING record goes first: from there on a crash leaves a marked task.
 * Then the branch and the worktree at t->base_commit; on failure all of it
 * goes again. With ready, the record is flipped to AT_TASK_READY last.
 */
static int make_task(struct at_repo *r, struct at_task *t, bool ready,
		     const struct at_progress_hook *progress, struct at_include_stats *included,
		     struct at_error *err)
{
	const struct at_paths *p = at_repo_paths(r);
	struct at_error ignored = AT_ERROR_INIT;
	struct at_include_stats none;
	struct at_app_layer layer;
	int rc;

	t->created = (int64_t)time(NULL);
	rc = at_state_save(p, t, err);
	if (rc == 0) {
		at_test_kill_point("new:record");
		rc = add_worktree(r, t, progress, &layer, err);
	}
	/* A new task (not a restored one) gets the main worktree's listed ignored files. */
	if (rc == 0 && ready)
		rc = at_worktree_include(r, t->form == AT_FORM_LAYERED ? layer.upper : t->path,
					 t->form == AT_FORM_LAYERED ? layer.lower : NULL,
					 progress, included ? included : &none, err);
	if (rc == 0 && ready) {
		at_test_kill_point("new:ready");
		t->phase = AT_TASK_READY;
		rc = at_state_save(p, t, err);
	}
	if (rc < 0)
		at_app_task_rollback(r, t, &ignored);
	return rc;
}

int at_app_task_create(struct at_repo *r, const char *name, const struct at_app_create_opts *opts,
		       struct at_task *out, struct at_error *err)
{
	struct at_task t;
	int rc;

	if ((rc = prepare_task(r, name, &t, err)) < 0 ||
	    (rc = at_task_base(r, opts ? opts->base_rev : NULL, opts && opts->base_on_branches, &t,
			       err)) < 0 ||
	    (rc = choose_form(r, &t, opts, err)) < 0)
		return rc;
	rc = make_task(r, &t, true, opts ? &opts->progress : NULL, opts ? opts->included : NULL,
		       err);
	if (rc == 0)
		*out = t;
	return rc;
}

int at_app_task_create_at(struct at_repo *r, const char *name, const struct at_oid *tip,
			  struct at_task *out, struct at_error *err)
{
	struct at_task t;
	int rc;

	if ((rc = prepare_task(r, name, &t, err)) < 0 || (rc = at_task_base_at(r, tip, &t, err)) < 0)
		return rc;
	rc = make_task(r, &t, false, NULL, NULL, err);
	if (rc == 0)
		*out = t;
	return rc;
}

/* ---- bases ---- */

/* Whether a task of the list is layered over tree (hex). */
static bool base_used(const struct at_task_list *l, const char *tree)
{
	size_t i;

	for (i = 0; i < l->count; i++)
		if (l->tasks[i].form == AT_FORM_LAYERED && strcmp(l->tasks[i].base_tree, tree) == 0)
			return true;
	return false;
}

/* A record that cannot be read may name any base: then only the leftovers go. */
int at_app_bases_prune(struct at_repo *r, struct at_report *report, struct at_error *err)
{
	const struct at_paths *p = at_repo_paths(r);
	struct at_task_list tasks;
	struct at_error e;
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int rc;

	memset(&tasks, 0, sizeof(tasks));
	if (!(d = opendir(p->bases_dir)))
		return 0;
	if ((rc = at_state_list(p, &tasks, err)) < 0) {
		closedir(d);
		return rc;
	}
	while ((de = readdir(d))) {
		const char *name = de->d_name;
		bool tmp = strncmp(name, ".new-", 5) == 0;

		if ((name[0] == '.' && !tmp) ||
		    (!tmp && (tasks.nproblems || base_used(&tasks, name))) ||
		    at_fmt(path, sizeof(path), "%s/%s", p->bases_dir, name) < 0)
			continue;
		e = (struct at_error)AT_ERROR_INIT;
		if (at_rmtree(path, &e) < 0)
			at_report_fail(report, &e);
		else
			at_report_add(report, "removed base '%s'%s", name,
				      tmp ? " (left by an interrupted 'new')" : ", which no task uses");
	}
	closedir(d);
	at_task_list_release(&tasks);
	return rc < 0 ? rc : 0;
}
