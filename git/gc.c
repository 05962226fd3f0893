#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/fs.h"
#include "core/state.h"
#include "core/util.h"
#include "git/gc.h"
#include "git/internal.h"
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
static int gc_orphaned(struct at_repo *r, const struct at_task *t, struct at_strlist *rep,
		       struct at_error *err)
{
	struct at_task_info info;
	char trash[256] = "";

	if (at_task_inspect(r, t, &info, err) < 0)
		return err->code;
	if (info.commits_ahead > 0 && at_trash_save(r, t, trash, sizeof(trash), err) < 0)
		return err->code;
	if (at_task_remove(r, t, err) < 0)
		return err->code;
	if (trash[0])
		return at_strlist_pushf(rep, "removed task '%s' (worktree gone); its commits are in '%s'",
				  t->name, trash);
	return at_strlist_pushf(rep, "removed task '%s' (worktree gone)", t->name);
}

static int gc_records(struct at_repo *r, struct at_task_list *l, struct at_strlist *rep,
		      struct at_error *err)
{
	char where[PATH_MAX];
	size_t i;

	for (i = 0; i < l->count; i++) {
		const struct at_task *t = &l->tasks[i];

		if (t->phase == AT_TASK_CREATING) {
			if (at_task_rollback(r, t, err) < 0 ||
			    at_strlist_pushf(rep, "removed half-made task '%s'", t->name) < 0)
				return err->code ? err->code : AT_ESYS;
		} else if (!is_dir(t->path) && at_task_moved(t, where, sizeof(where))) {
			if (at_strlist_pushf(rep, "left alone task '%s': its worktree was moved to "
					     "'%s'", t->name, where) < 0)
				return at_error_set(err, AT_ESYS, "out of memory");
		} else if (!is_dir(t->path)) {
			if (gc_orphaned(r, t, rep, err) < 0)
				return err->code ? err->code : AT_ESYS;
		}
	}
	return 0;
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

/*
 * Whether an admin directory named agenttask-* is ours: its gitdir file points
 * into <state>/worktrees, or there is none yet (a worktree add killed midway).
 * A user's own `git worktree add ../agenttask-x` points elsewhere: not ours.
 */
static bool admin_dir_ours(const struct at_paths *p, const char *admin)
{
	AT_AUTOFREE char *text = NULL;
	char file[PATH_MAX], real[PATH_MAX];
	const char *root = realpath(p->worktrees_dir, real) ? real : p->worktrees_dir;
	size_t n = strlen(root);

	if (at_fmt(file, sizeof(file), "%s/gitdir", admin) < 0)
		return false;
	text = at_read_file(file, PATH_MAX + 16, NULL);
	if (!text)
		return errno == ENOENT;
	return strncmp(text, root, n) == 0 && text[n] == '/';
}

/* <common>/worktrees/agenttask-NAME with no task record: a leftover admin directory. */
static int gc_admin_dirs(struct at_repo *r, const struct at_task_list *l,
			 struct at_strlist *rep, struct at_error *err)
{
	char dir[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int rc = 0;

	if (at_fmt(dir, sizeof(dir), "%s/worktrees", r->paths.common_dir) < 0)
		return 0;
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
		    !admin_dir_ours(&r->paths, path))
			continue;
		rc = at_rmtree(path, err);
		if (rc == 0 && at_strlist_pushf(rep, "removed worktree admin directory '%s'", path) < 0)
			rc = at_error_set(err, AT_ESYS, "out of memory");
	}
	closedir(d);
	return rc;
}

/*
 * <state>/worktrees/NAME with no record, and .removing-NAME.PID: what a
 * killed rollback or discard left.
 */
static int gc_worktree_dirs(struct at_repo *r, const struct at_task_list *l,
			    struct at_strlist *rep, struct at_error *err)
{
	struct dirent *de;
	DIR *d;
	int rc = 0;

	d = opendir(r->paths.worktrees_dir);
	if (!d)
		return 0;
	while (rc == 0 && (de = readdir(d))) {
		char path[PATH_MAX];

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
		    has_task_named(l, de->d_name, false) ||
		    has_problem_named(l, de->d_name))
			continue;
		if (at_fmt(path, sizeof(path), "%s/%s", r->paths.worktrees_dir, de->d_name) < 0)
			continue;
		rc = at_rmtree(path, err);
		if (rc == 0 && at_strlist_pushf(rep, "removed stray worktree directory '%s'", path) < 0)
			rc = at_error_set(err, AT_ESYS, "out of memory");
	}
	closedir(d);
	return rc;
}

/* <state>/tasks/NAME.json.tmp.PID: a record write killed before its rename. */
static int gc_tmp_records(struct at_repo *r, struct at_strlist *rep,
			  struct at_error *err)
{
	struct dirent *de;
	DIR *d;
	int rc = 0;

	d = opendir(r->paths.tasks_dir);
	if (!d)
		return 0;
	while (rc == 0 && (de = readdir(d))) {
		char path[PATH_MAX];

		if (!strstr(de->d_name, ".json.tmp.") ||
		    at_fmt(path, sizeof(path), "%s/%s", r->paths.tasks_dir, de->d_name) < 0)
			continue;
		if (unlink(path) < 0 && errno != ENOENT)
			rc = at_error_sys(err, AT_ESYS, "cannot remove '%s'", path);
		else if (at_strlist_pushf(rep, "removed unfinished task record '%s'", path) < 0)
			rc = at_error_set(err, AT_ESYS, "out of memory");
	}
	closedir(d);
	return rc;
}

int at_task_gc(struct at_repo *r, const struct at_gc_opts *opts, struct at_strlist *report,
	       struct at_error *err)
{
	struct at_strlist rep = AT_STRLIST_INIT;
	struct at_task_list l = { 0 };
	size_t i;
	int rc;

	rc = at_state_list(&r->paths, &l, err);
	if (rc == 0)
		rc = gc_records(r, &l, &rep, err);
	at_task_list_release(&l);
	/* List again: records removed above no longer protect their leftovers. */
	if (rc == 0)
		rc = at_state_list(&r->paths, &l, err);
	if (rc == 0)
		rc = gc_admin_dirs(r, &l, &rep, err);
	if (rc == 0)
		rc = gc_worktree_dirs(r, &l, &rep, err);
	if (rc == 0)
		rc = gc_tmp_records(r, &rep, err);
	for (i = 0; rc == 0 && i < l.nproblems; i++)
		if (at_strlist_pushf(&rep, "left alone unreadable task record '%s': %s",
				     l.problems[i].name, l.problems[i].err.msg) < 0)
			rc = at_error_set(err, AT_ESYS, "out of memory");
	at_task_list_release(&l);
	if (rc == 0)
		rc = at_scratch_sweep(r, &rep, err);
	if (rc == 0)
		rc = at_trash_prune(r, opts ? opts->trash_days : AT_TRASH_DAYS_DEFAULT, &rep, err);
	if (rc < 0) {
		at_strlist_release(&rep);
		return rc;
	}
	*report = rep;
	return 0;
}
