#include "core/task.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/name.h"
#include "core/util.h"

/* At most this much of the repository's name in <repo>-<id>. */
#define WORKTREE_NAME_PART 40

/* The repository's directory name, kept to characters safe in any path. */
static void name_part(const char *common, char *out, size_t max)
{
	char dir[PATH_MAX];
	const char *base;
	size_t n, i;

	at_fmt(dir, sizeof(dir), "%s", common);
	n = strlen(dir);
	if (n >= 5 && strcmp(dir + n - 5, "/.git") == 0)
		dir[n - 5] = '\0';
	else if (n > 4 && strcmp(dir + n - 4, ".git") == 0)
		dir[n - 4] = '\0';
	base = strrchr(dir, '/');
	base = base && base[1] ? base + 1 : "repo";
	for (i = 0; base[i] && i < max; i++) {
		char c = base[i];
		bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			    (c >= '0' && c <= '9') || c == '-' || c == '_' || (c == '.' && i > 0);
		out[i] = safe ? c : '_';
	}
	out[i] = '\0';
}

/* <repo>-<id>: <id> a hash of the real common dir, so two clones named alike differ. */
static void set_leaf(struct at_paths *p)
{
	char real[PATH_MAX], name[WORKTREE_NAME_PART + 1];
	const char *common = realpath(p->common_dir, real) ? real : p->common_dir;

	name_part(common, name, WORKTREE_NAME_PART);
	at_fmt(p->worktree_leaf, sizeof(p->worktree_leaf), "%s-%012llx", name,
	       (unsigned long long)(at_hash_name(common) >> 16));
}

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
	p->worktree_home[0] = '\0';
	set_leaf(p);
	if (at_fmt(p->state_dir, sizeof(p->state_dir), "%s/agenttask", common) < 0 ||
	    at_fmt(p->tasks_dir, sizeof(p->tasks_dir), "%s/tasks", p->state_dir) < 0 ||
	    at_fmt(p->worktrees_dir, sizeof(p->worktrees_dir), "%s/worktrees", p->state_dir) < 0 ||
	    at_fmt(p->homes_dir, sizeof(p->homes_dir), "%s/homes", p->state_dir) < 0 ||
	    at_fmt(p->caches_dir, sizeof(p->caches_dir), "%s/caches", p->state_dir) < 0 ||
	    at_fmt(p->cas_dir, sizeof(p->cas_dir), "%s/ca", p->state_dir) < 0 ||
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
	    ensure_dir(p->worktrees_dir, err) < 0 || ensure_dir(p->logs_dir, err) < 0 ||
	    ensure_dir(p->homes_dir, err) < 0 || ensure_dir(p->caches_dir, err) < 0)
		return err->code;
	return 0;
}

int at_paths_set_worktree_home(struct at_paths *p, const char *dir, struct at_error *err)
{
	if (dir[0] && dir[0] != '/')
		return at_error_set(err, AT_EUSAGE, "worktree directory '%s' is not absolute", dir);
	if (at_fmt(p->worktree_home, sizeof(p->worktree_home), "%s", dir) < 0)
		return at_error_set(err, AT_EUSAGE, "path too long '%.80s...'", dir);
	return 0;
}

/* mkdir -p, each new directory 0700 (the XDG base directory rule). */
int at_paths_ensure_worktree_home(const struct at_paths *p, struct at_error *err)
{
	char path[PATH_MAX];
	size_t i;

	if (!p->worktree_home[0])
		return 0;
	memcpy(path, p->worktree_home, sizeof(path));
	for (i = 1; path[i]; i++) {
		if (path[i] != '/')
			continue;
		path[i] = '\0';
		if (mkdir(path, 0700) < 0 && errno != EEXIST)
			return at_error_sys(err, AT_ESYS, "cannot create '%s'", path);
		path[i] = '/';
	}
	return ensure_dir(path, err);
}

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
	if (at_fmt(place, sizeof(place), "%s/%s", p->worktrees_dir, t->name) == 0 &&
	    strcmp(place, path) == 0)
		return true;
	if (p->worktree_leaf[0] && ends_in_leaf(path, p->worktree_leaf, t->name))
		return true;
	return registered_here(t, path);
}

int at_task_caches(const struct at_paths *p, const char *name, char *buf, size_t size,
		   struct at_error *err)
{
	if (at_fmt(buf, size, "%s/%s", p->caches_dir, name) < 0)
		return at_error_sys(err, AT_ESYS, "path too long for task '%s'", name);
	return 0;
}

int at_task_ca(const struct at_paths *p, const char *name, char *buf, size_t size,
	       struct at_error *err)
{
	if (at_fmt(buf, size, "%s/%s", p->cas_dir, name) < 0)
		return at_error_sys(err, AT_ESYS, "path too long for task '%s'", name);
	return 0;
}

int at_task_home(const struct at_paths *p, const char *name, char *buf, size_t size,
		 struct at_error *err)
{
	if (at_fmt(buf, size, "%s/%s", p->homes_dir, name) < 0)
		return at_error_sys(err, AT_ESYS, "path too long for task '%s'", name);
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
	    at_fmt(t->path, sizeof(t->path), "%s/%s",
		   p->worktree_home[0] ? p->worktree_home : p->worktrees_dir, name) < 0 ||
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
