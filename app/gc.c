/*
 * gc.c - removing what interrupted commands left behind: half-made tasks,
 * tasks whose worktree is gone (their commits saved in the trash first),
 * stray directories and records, abandoned gate worktrees, old trash. A
 * task whose commands run is left alone unless --force stops them.
 */
#include "app/gc.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/internal.h"
#include "app/lifecycle.h"
#include "core/fs.h"
#include "core/ports.h"
#include "core/runs.h"
#include "core/state.h"
#include "core/util.h"
#include "git/scratch.h"
#include "git/trash.h"
#include "git/worktree.h"

static bool is_dir(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/*
 * A task whose worktree directory is gone. Its commits are not thrown away:
 * a branch that moved past its base is saved in the trash before removal.
 */
static int gc_orphaned(struct at_repo *r, const struct at_task *t, struct at_report *rep,
		       struct at_error *err)
{
	struct at_task_info info;
	char trash[256] = "";

	if (at_task_inspect(r, t, &info, err) < 0)
		return err->code;
	if (info.commits_ahead > 0 && at_trash_save(r, t, trash, sizeof(trash), err) < 0)
		return err->code;
	if (at_app_task_remove(r, t, err) < 0)
		return err->code;
	if (trash[0])
		return at_report_add(rep, "removed task '%s' (worktree gone); its commits are in '%s'",
				  t->name, trash);
	return at_report_add(rep, "removed task '%s' (worktree gone)", t->name);
}

/*
 * Remove a half-made task or one whose worktree is gone, once no command of
 * it runs (none can start meanwhile): a task whose commands run is left
 * alone, unless force.
 */
static int gc_task(struct at_repo *r, const struct at_task *t, bool force,
		   struct at_report *rep)
{
	struct at_runs_guard guard = AT_RUNS_GUARD_INIT;
	struct at_error e = AT_ERROR_INIT;
	int rc;

	rc = at_runs_stop(at_repo_paths(r), t->name, force, &guard, &e);
	if (rc == AT_EBUSY && !force)
		return at_report_add(rep, "left alone: %s", e.msg);
	if (rc == 0 && t->phase == AT_TASK_CREATING) {
		rc = at_app_task_rollback(r, t, &e);
		if (rc == 0 && at_report_add(rep, "removed half-made task '%s'", t->name) < 0)
			rc = at_error_set(&e, AT_ESYS, "out of memory");
	} else if (rc == 0) {
		rc = gc_orphaned(r, t, rep, &e);
	}
	at_runs_release(&guard, rc == 0);
	if (rc < 0 && at_report_failf(rep, "cannot remove task '%s': %s", t->name, e.msg) < 0)
		return -1;
	return 0;
}

/* A rewind a kill left midway (app/rewind.h): completed, once no command of the task runs. */
static int gc_rewind(struct at_repo *r, const struct at_task *t, bool force,
		     struct at_report *rep)
{
	struct at_runs_guard guard = AT_RUNS_GUARD_INIT;
	struct at_error e = AT_ERROR_INIT;
	bool done = false;
	int rc;

	rc = at_runs_stop(at_repo_paths(r), t->name, force, &guard, &e);
	if (rc == AT_EBUSY && !force)
		return at_report_add(rep, "left alone: %s", e.msg);
	if (rc == 0)
		rc = at_app_rewind_finish(r, t, &done, &e);
	at_runs_release(&guard, false);
	if (rc < 0)
		return at_report_failf(rep, "cannot complete the rewind of task '%s': %s", t->name,
				       e.msg) < 0 ? -1 : 0;
	return done ? at_report_add(rep, "completed the interrupted rewind of task '%s'",
				    t->name) : 0;
}

/*
 * Whether the task's files are gone: a full task's worktree, a layered
 * one's layer (its path holds nothing on the host).
 */
static bool files_gone(struct at_repo *r, const struct at_task *t)
{
	struct at_error ignored = AT_ERROR_INIT;
	struct at_app_layer layer;

	if (!at_task_is_layered(t))
		return !is_dir(t->path);
	return at_app_layer_paths(at_repo_paths(r), t, &layer, &ignored) == 0 &&
	       !is_dir(layer.upper);
}

static int gc_records(struct at_repo *r, struct at_task_list *l, bool force,
		      struct at_report *rep)
{
	char where[PATH_MAX];
	size_t i;
	int rc = 0;

	for (i = 0; rc == 0 && i < l->count; i++) {
		const struct at_task *t = &l->tasks[i];
		struct at_error e = AT_ERROR_INIT;

		/* A full checkout made and renamed into place, the record not yet flipped. */
		if (t->phase == AT_TASK_READY && t->form == AT_FORM_LAYERED &&
		    !at_task_is_layered(t)) {
			if (at_app_fullform_finish(r, t, &e) < 0)
				rc = at_report_fail(rep, &e);
			else
				rc = at_report_add(rep, "finished the full checkout of task '%s'",
						   t->name);
			continue;
		}
		if (t->phase != AT_TASK_CREATING && files_gone(r, t) && !at_task_is_layered(t) &&
		    at_task_moved(t, where, sizeof(where)))
			rc = at_report_add(rep, "left alone task '%s': its worktree was moved to "
					      "'%s'", t->name, where);
		else if (t->phase == AT_TASK_CREATING || files_gone(r, t))
			rc = gc_task(r, t, force, rep);
		else if (at_app_rewind_pending(r, t))
			rc = gc_rewind(r, t, force, rep);
	}
	return rc;
}

static bool has_task_named(const struct at_task_list *l, const char *field_value, bool by_worktree)
{
	size_t i;

	for (i = 0; i < l->count; i++) {
		const char *v = by_worktree ? l->tasks[i].worktree_name : l->tasks[i].name;
		if (strcmp(v, field_value) == 0)
			return true;
	}
	return false;
}

static bool has_problem_named(const struct at_task_list *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->nproblems; i++)
		if (strcmp(l->problems[i].name, name) == 0)
			return true;
	return false;
}

static bool text_within(const char *text, const char *dir)
{
	char real[PATH_MAX];
	const char *root = realpath(dir, real) ? real : dir;
	size_t n = strlen(root);

	return n > 0 && strncmp(text, root, n) == 0 && text[n] == '/';
}

/*
 * Whether an admin directory named agenttask-* is ours: its gitdir file points
 * into <state>/worktrees or the worktree home, or there is none yet (a
 * worktree add killed midway). A user's own `git worktree add ../agenttask-x`
 * points elsewhere: not ours.
 */
static bool admin_dir_ours(const struct at_paths *p, const char *admin)
{
	AT_AUTOFREE char *text = NULL;
	char file[PATH_MAX];

	if (at_fmt(file, sizeof(file), "%s/gitdir", admin) < 0)
		return false;
	text = at_read_file(file, PATH_MAX + 16, NULL);
	if (!text)
		return errno == ENOENT;
	return text_within(text, p->worktrees_dir) ||
	       (p->worktree_home[0] && text_within(text, p->worktree_home));
}

/* <common>/worktrees/agenttask-NAME with no task record: a leftover admin directory. */
static int gc_admin_dirs(struct at_repo *r, const struct at_task_list *l,
			 struct at_report *rep, struct at_error *err)
{
	const char *dir = at_repo_paths(r)->admins_dir;
	struct dirent *de;
	DIR *d;
	int rc = 0;

	d = opendir(dir);
	if (!d)
		return 0;
	while (rc == 0 && (de = readdir(d))) {
		const char *name = de->d_name + strlen(AT_WORKTREE_PREFIX);
		char path[PATH_MAX];

		if (strncmp(de->d_name, AT_WORKTREE_PREFIX, strlen(AT_WORKTREE_PREFIX)) != 0)
			continue;
		if (has_task_named(l, de->d_name, true) || has_problem_named(l, name))
			continue;
		if (at_fmt(path, sizeof(path), "%s/%s", dir, de->d_name) < 0 ||
		    !admin_dir_ours(at_repo_paths(r), path))
			continue;
		if (at_rmtree(path, err) < 0)
			rc = at_report_fail(rep, err);
		else
			rc = at_report_add(rep, "removed worktree admin directory '%s'", path);
	}
	closedir(d);
	return rc;
}

/*
 * In dir (<state>/worktrees, the worktree home, <state>/homes, caches, and
 * <state>/git, the tasks' git views of app/gitview.c): NAME with no record,
 * and .removing-NAME.PID: what a killed rollback or discard left. Every one
 * of these directories is agenttask's own.
 */
static int gc_stray_dirs(const char *dir, const char *what, const struct at_task_list *l,
			 struct at_report *rep, struct at_error *err)
{
	struct dirent *de;
	DIR *d;
	int rc = 0;

	if (!dir[0] || !(d = opendir(dir)))
		return 0;
	while (rc == 0 && (de = readdir(d))) {
		char path[PATH_MAX];

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
		    has_task_named(l, de->d_name, false) ||
		    has_problem_named(l, de->d_name))
			continue;
		if (at_fmt(path, sizeof(path), "%s/%s", dir, de->d_name) < 0)
			continue;
		if (at_rmtree(path, err) < 0)
			rc = at_report_fail(rep, err);
		else
			rc = at_report_add(rep, "removed stray %s '%s'", what, path);
	}
	closedir(d);
	return rc;
}

static int gc_worktree_dirs(struct at_repo *r, const struct at_task_list *l,
			    struct at_report *rep, struct at_error *err)
{
	const struct at_paths *p = at_repo_paths(r);
	int rc = gc_stray_dirs(p->worktrees_dir, "worktree directory", l, rep, err);

	if (rc == 0)
		rc = gc_stray_dirs(p->worktree_home, "worktree directory", l, rep, err);
	if (rc == 0)
		rc = gc_stray_dirs(p->homes_dir, "home directory", l, rep, err);
	if (rc == 0)
		rc = gc_stray_dirs(p->caches_dir, "cache directory", l, rep, err);
	return rc;
}

/*
 * FILE.tmp.PID in dir (whose names hold marker): a write killed before its
 * rename. <state>/tasks/NAME.json.tmp.PID, made under the task's lock; and
 * <state>/cache's records, which a run writes under no lock of gc's: one
 * whose process is alive is still being written.
 */
static int gc_tmp_files(const char *dir, const char *marker, bool live_ones, const char *what,
			struct at_report *rep, struct at_error *err)
{
	struct dirent *de;
	DIR *d;
	int rc = 0;

	d = opendir(dir);
	if (!d)
		return 0;
	while (rc == 0 && (de = readdir(d))) {
		const char *tmp = strstr(de->d_name, marker);
		char path[PATH_MAX];
		long pid;

		if (!tmp || at_fmt(path, sizeof(path), "%s/%s", dir, de->d_name) < 0)
			continue;
		pid = strtol(strrchr(de->d_name, '.') + 1, NULL, 10);
		if (live_ones && pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM))
			continue;
		if (unlink(path) < 0 && errno != ENOENT) {
			at_error_sys(err, AT_ESYS, "cannot remove '%s'", path);
			rc = at_report_fail(rep, err);
		} else {
			rc = at_report_add(rep, "removed unfinished %s '%s'", what, path);
		}
	}
	closedir(d);
	return rc;
}

static int gc_tmp_records(struct at_repo *r, struct at_report *rep, struct at_error *err)
{
	const struct at_paths *p = at_repo_paths(r);
	int rc = gc_tmp_files(p->tasks_dir, ".json.tmp.", false, "task record", rep, err);

	if (rc == 0)
		rc = gc_tmp_files(p->cache_dir, ".tmp.", true, "record", rep, err);
	/* the review comments (core/comments.h), written under the lock gc holds */
	if (rc == 0)
		rc = gc_tmp_files(p->comments_dir, ".json.tmp.", false, "comments file", rep, err);
	return rc;
}

/* The published ports' records of runs and tasks gone (core/ports.h). */
struct gc_ports {
	const struct at_task_list *l;
	struct at_report *rep;
	struct at_error *err;
};

static bool ports_task_there(const char *task, void *arg)
{
	const struct gc_ports *g = arg;

	return has_task_named(g->l, task, false) || has_problem_named(g->l, task);
}

static int ports_remove(const char *path, void *arg)
{
	struct gc_ports *g = arg;

	if (unlink(path) < 0 && errno != ENOENT) {
		at_error_sys(g->err, AT_ESYS, "cannot remove '%s'", path);
		return at_report_fail(g->rep, g->err);
	}
	return at_report_add(g->rep, "removed stale published-port record '%s'", path);
}

static int gc_ports(struct at_repo *r, const struct at_task_list *l, struct at_report *rep,
		    struct at_error *err)
{
	struct gc_ports g = { l, rep, err };

	return at_ports_stale(at_repo_paths(r), ports_task_there, ports_remove, &g);
}

/*
 * The end of one step of gc: a failure it reported (err set) becomes an item
 * and gc goes on; one with err unset was out of memory while reporting,
 * after which gc cannot go on.
 */
static int step(struct at_report *rep, int rc, struct at_error *err)
{
	if (rc >= 0)
		return 0;
	if (at_error_isset(err) && at_report_fail(rep, err) == 0)
		return 0;
	return at_error_set(err, AT_ESYS, "out of memory");
}

/*
 * A failure with one thing is reported (a line marked failed) and gc goes
 * on with the rest; the return is negative only when gc could not go on at
 * all (the records unreadable, out of memory).
 */
static int gc(struct at_repo *r, const struct at_app_gc_opts *opts, struct at_report *report,
	      struct at_error *err)
{
	const struct at_paths *p = at_repo_paths(r);
	struct at_report rep = AT_REPORT_INIT;
	struct at_task_list l = { 0 };
	size_t i;
	int rc;

	/* Where new tasks go: a half-made one there is rolled back, strays swept. */
	rc = at_repo_worktree_home(r, err);
	if (rc == 0 && opts->max_age_days >= 0)
		rc = step(&rep, at_app_gc_aged(r, opts->max_age_days, false, &rep, err), err);
	if (rc == 0)
		rc = at_state_list(p, &l, err);
	if (rc == 0)
		rc = step(&rep, gc_records(r, &l, opts->force, &rep), err);
	at_task_list_release(&l);
	/* List again: records removed above no longer protect their leftovers. */
	if (rc == 0)
		rc = at_state_list(p, &l, err);
	if (rc == 0)
		rc = step(&rep, gc_admin_dirs(r, &l, &rep, err), err);
	if (rc == 0)
		rc = step(&rep, gc_worktree_dirs(r, &l, &rep, err), err);
	if (rc == 0)
		rc = step(&rep, gc_stray_dirs(p->views_dir, "task git view", &l, &rep, err), err);
	/* Layered tasks' layers no record claims, and the bases no layered task uses. */
	if (rc == 0)
		rc = step(&rep, gc_stray_dirs(p->layers_dir, "task layer", &l, &rep, err), err);
	if (rc == 0)
		rc = step(&rep, at_app_bases_prune(r, &rep, err), err);
	if (rc == 0)
		rc = step(&rep, gc_tmp_records(r, &rep, err), err);
	if (rc == 0)
		rc = step(&rep, gc_ports(r, &l, &rep, err), err);
	for (i = 0; rc == 0 && i < l.nproblems; i++)
		rc = step(&rep, at_report_add(&rep, "left alone unreadable task record '%s': %s",
						 l.problems[i].name, l.problems[i].err.msg), err);
	at_task_list_release(&l);
	if (rc == 0)
		at_runs_sweep(p);
	if (rc == 0)
		rc = step(&rep, at_scratch_sweep(r, &rep, err), err);
	if (rc == 0)
		rc = step(&rep, at_trash_prune(r, opts->trash_days, &rep, err), err);
	if (rc < 0) {
		at_report_release(&rep);
		return rc;
	}
	*report = rep;
	return 0;
}

int at_app_gc(const struct at_app *app, const struct at_app_gc_opts *o,
	      struct at_app_gc_result *out, struct at_error *err)
{
	struct at_app_locked l;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = at_app_lock(app, &l, NULL, NULL, err);
	if (rc == 0) {
		at_progress_say(&o->progress, "collecting what interrupted commands left", 0, 0);
		/* --dry-run: what --max-age would move, and nothing else looked at or done. */
		if (o->dry_run && o->max_age_days >= 0)
			rc = at_app_gc_aged(l.r, o->max_age_days, true, &out->done, err);
		else
			rc = gc(l.r, o, &out->done, err);
	}
	at_app_unlock(&l);
	return rc;
}

void at_app_gc_result_release(struct at_app_gc_result *res)
{
	if (res)
		at_report_release(&res->done);
}
