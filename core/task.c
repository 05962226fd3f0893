#include "core/task.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/fs.h"
#include "core/name.h"
#include "core/util.h"

bool at_task_registered(const struct at_task *t, char *buf, size_t size)
{
	AT_AUTOFREE char *text = NULL;
	char file[PATH_MAX];
	size_t len;

	if (at_fmt(file, sizeof(file), "%s/gitdir", t->admin_dir) < 0 ||
	    !(text = at_read_file(file, PATH_MAX + 16, &len)))
		return false;
	while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r'))
		text[--len] = '\0';
	if (len <= 5 || text[0] != '/' || strcmp(text + len - 5, "/.git") != 0 ||
	    strlen(text) != len)
		return false;
	text[len - 5] = '\0';
	return at_fmt(buf, size, "%s", text) == 0;
}

static bool registered_here(const struct at_task *t, const char *path)
{
	char where[PATH_MAX];

	return at_task_registered(t, where, sizeof(where)) && strcmp(where, path) == 0;
}

/* path ends in /<leaf>/<name>, with something before. */
static bool ends_in_leaf(const char *path, const char *leaf, const char *name)
{
	size_t n = strlen(path), ln = strlen(leaf), nn = strlen(name);

	return n > ln + nn + 2 && path[n - nn - 1] == '/' && strcmp(path + n - nn, name) == 0 &&
	       path[n - nn - ln - 2] == '/' && strncmp(path + n - nn - ln - 1, leaf, ln) == 0;
}

bool at_paths_worktree_trusted(const struct at_paths *p, const struct at_task *t,
			       const char *path)
{
	char place[PATH_MAX];

	if (path[0] != '/' || strstr(path, "/../") || strstr(path, "/./") || strstr(path, "//"))
		return false;
	if (at_paths_old_worktree(p, t->name, place, sizeof(place), NULL) == 0 &&
	    strcmp(place, path) == 0)
		return true;
	if (p->worktree_leaf[0] && ends_in_leaf(path, p->worktree_leaf, t->name))
		return true;
	return registered_here(t, path);
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
	    at_paths_worktree(p, name, t->path, sizeof(t->path), NULL) < 0 ||
	    at_paths_admin(p, t->worktree_name, t->admin_dir, sizeof(t->admin_dir), NULL) < 0 ||
	    at_paths_layer_upper(p, name, t->upper, sizeof(t->upper), NULL) < 0)
		return at_error_sys(err, AT_ESYS, "path too long for task '%s'", name);
	t->phase = AT_TASK_CREATING;
	return 0;
}

bool at_task_is_layered(const struct at_task *t)
{
	char pointer[PATH_MAX + 8];
	struct stat st;

	if (t->form != AT_FORM_LAYERED)
		return false;
	return at_fmt(pointer, sizeof(pointer), "%s/.git", t->path) < 0 ||
	       lstat(pointer, &st) < 0 || !S_ISREG(st.st_mode);
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
			    "its commits in the trash", t->name,
			    at_task_is_layered(t) ? t->upper : t->path, t->name);
}
