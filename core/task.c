#include "core/task.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "core/name.h"
#include "core/util.h"

int at_paths_init(struct at_paths *p, const char *common_dir, struct at_error *err)
{
	char common[PATH_MAX];
	size_t len;

	if (at_fmt(common, sizeof(common), "%s", common_dir) < 0)
		return at_error_sys(err, AT_ESYS, "path too long '%s'", common_dir);
	len = strlen(common);
	while (len > 1 && common[len - 1] == '/')
		common[--len] = '\0';

	memcpy(p->common_dir, common, len + 1);
	if (at_fmt(p->state_dir, sizeof(p->state_dir), "%s/agenttask", common) < 0 ||
	    at_fmt(p->tasks_dir, sizeof(p->tasks_dir), "%s/tasks", p->state_dir) < 0 ||
	    at_fmt(p->worktrees_dir, sizeof(p->worktrees_dir), "%s/worktrees", p->state_dir) < 0 ||
	    at_fmt(p->logs_dir, sizeof(p->logs_dir), "%s/logs", p->state_dir) < 0 ||
	    at_fmt(p->lock_file, sizeof(p->lock_file), "%s/lock", p->state_dir) < 0)
		return at_error_sys(err, AT_ESYS, "path too long '%s'", common);
	return 0;
}

static int ensure_dir(const char *path, struct at_error *err)
{
	struct stat st;

	if (mkdir(path, 0700) == 0)
		return 0;
	if (errno != EEXIST)
		return at_error_sys(err, AT_ESYS, "cannot create '%s'", path);
	if (lstat(path, &st) < 0)
		return at_error_sys(err, AT_ESYS, "cannot stat '%s'", path);
	if (!S_ISDIR(st.st_mode))
		return at_error_set(err, AT_ESYS, "'%s' is not a directory", path);
	return 0;
}

int at_paths_ensure(const struct at_paths *p, struct at_error *err)
{
	if (ensure_dir(p->state_dir, err) < 0 || ensure_dir(p->tasks_dir, err) < 0 ||
	    ensure_dir(p->worktrees_dir, err) < 0 || ensure_dir(p->logs_dir, err) < 0)
		return err->code;
	return 0;
}

int at_task_init(struct at_task *t, const struct at_paths *p, const char *name,
		 struct at_error *err)
{
	if (at_name_check(name, err) < 0)
		return err->code;
	memset(t, 0, sizeof(*t));
	strcpy(t->name, name);
	if (at_fmt(t->branch, sizeof(t->branch), AT_REFS_HEADS AT_BRANCH_PREFIX "%s", name) < 0 ||
	    at_fmt(t->worktree_name, sizeof(t->worktree_name), AT_WORKTREE_PREFIX "%s", name) < 0 ||
	    at_fmt(t->path, sizeof(t->path), "%s/%s", p->worktrees_dir, name) < 0 ||
	    at_fmt(t->admin_dir, sizeof(t->admin_dir), "%s/worktrees/%s", p->common_dir,
		   t->worktree_name) < 0)
		return at_error_sys(err, AT_ESYS, "path too long for task '%s'", name);
	t->phase = AT_TASK_CREATING;
	return 0;
}

const char *at_branch_short(const char *ref)
{
	if (strncmp(ref, AT_REFS_HEADS, AT_REFS_HEADS_LEN) == 0)
		return ref + AT_REFS_HEADS_LEN;
	return ref;
}

int at_task_worktree_gone(const struct at_task *t, struct at_error *err)
{
	return at_error_set(err, AT_ECORRUPT, "the worktree of task '%s' is gone ('%s'): "
			    "'agenttask discard %s' or 'agenttask gc' removes the task, keeping "
			    "its commits in the trash", t->name, t->path, t->name);
}
