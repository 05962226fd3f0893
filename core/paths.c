#include "core/paths.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

int at_paths_state_of(const char *common, char *buf, size_t size)
{
	return at_fmt(buf, size, "%s/agenttask", common);
}

int at_paths_admins_of(const char *common, char *buf, size_t size)
{
	return at_fmt(buf, size, "%s/worktrees", common);
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
	if (at_paths_state_of(common, p->state_dir, sizeof(p->state_dir)) < 0 ||
	    at_fmt(p->tasks_dir, sizeof(p->tasks_dir), "%s/tasks", p->state_dir) < 0 ||
	    at_fmt(p->worktrees_dir, sizeof(p->worktrees_dir), "%s/worktrees", p->state_dir) < 0 ||
	    at_fmt(p->homes_dir, sizeof(p->homes_dir), "%s/homes", p->state_dir) < 0 ||
	    at_fmt(p->caches_dir, sizeof(p->caches_dir), "%s/caches", p->state_dir) < 0 ||
	    at_fmt(p->cas_dir, sizeof(p->cas_dir), "%s/ca", p->state_dir) < 0 ||
	    at_fmt(p->logs_dir, sizeof(p->logs_dir), "%s/logs", p->state_dir) < 0 ||
	    at_fmt(p->cache_dir, sizeof(p->cache_dir), "%s/cache", p->state_dir) < 0 ||
	    at_fmt(p->views_dir, sizeof(p->views_dir), "%s/git", p->state_dir) < 0 ||
	    at_fmt(p->runs_dir, sizeof(p->runs_dir), "%s/runs", p->state_dir) < 0 ||
	    at_fmt(p->scratch_dir, sizeof(p->scratch_dir), "%s/scratch", p->state_dir) < 0 ||
	    at_fmt(p->comments_dir, sizeof(p->comments_dir), "%s/comments", p->state_dir) < 0 ||
	    at_fmt(p->bases_dir, sizeof(p->bases_dir), "%s/bases", p->state_dir) < 0 ||
	    at_fmt(p->layers_dir, sizeof(p->layers_dir), "%s/layers", p->state_dir) < 0 ||
	    at_paths_admins_of(common, p->admins_dir, sizeof(p->admins_dir)) < 0 ||
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

/* <dir>/<name><suffix>: one task's part. */
static int part(char *buf, size_t size, const char *dir, const char *name, const char *suffix,
		struct at_error *err)
{
	if (at_fmt(buf, size, "%s/%s%s", dir, name, suffix) < 0)
		return at_error_sys(err, AT_ESYS, "path too long for task '%s'", name);
	return 0;
}

int at_paths_rewind(const struct at_paths *p, const char *name, char *buf, size_t size,
		    struct at_error *err)
{
	return part(buf, size, p->cache_dir, name, ".rewind", err);
}

int at_paths_checkpoint_ref(const char *name, unsigned n, char *buf, size_t size,
			    struct at_error *err)
{
	if (at_fmt(buf, size, AT_CHECKPOINT_REFS "%s/%u", name, n) < 0)
		return at_error_set(err, AT_ESYS, "task name too long '%s'", name);
	return 0;
}

int at_paths_checkpoint_glob(const char *name, char *buf, size_t size, struct at_error *err)
{
	if (at_fmt(buf, size, AT_CHECKPOINT_REFS "%s/*", name) < 0)
		return at_error_set(err, AT_ESYS, "task name too long '%s'", name);
	return 0;
}

int at_paths_review_ref(const char *name, char *buf, size_t size, struct at_error *err)
{
	if (at_fmt(buf, size, AT_REVIEW_REFS "%s", name) < 0)
		return at_error_set(err, AT_ESYS, "task name too long '%s'", name);
	return 0;
}

int at_paths_trash_kept_checkpoint(const char *name, const char *stamp, unsigned n, char *buf,
				   size_t size, struct at_error *err)
{
	if (at_fmt(buf, size, AT_TRASH_KEPT_REFS "%s/%s/checkpoints/%u", name, stamp, n) < 0)
		return at_error_set(err, AT_ESYS, "task name too long '%s'", name);
	return 0;
}

int at_paths_trash_kept_review(const char *name, const char *stamp, char *buf, size_t size,
			       struct at_error *err)
{
	if (at_fmt(buf, size, AT_TRASH_KEPT_REFS "%s/%s/review", name, stamp) < 0)
		return at_error_set(err, AT_ESYS, "task name too long '%s'", name);
	return 0;
}

int at_paths_trash_kept_glob(const char *name, const char *stamp, char *buf, size_t size,
			     struct at_error *err)
{
	if (at_fmt(buf, size, AT_TRASH_KEPT_REFS "%s/%s/*", name, stamp) < 0)
		return at_error_set(err, AT_ESYS, "task name too long '%s'", name);
	return 0;
}

int at_paths_record(const struct at_paths *p, const char *name, char *buf, size_t size,
		    struct at_error *err)
{
	return part(buf, size, p->tasks_dir, name, ".json", err);
}

int at_paths_home(const struct at_paths *p, const char *name, char *buf, size_t size,
		  struct at_error *err)
{
	return part(buf, size, p->homes_dir, name, "", err);
}

int at_paths_ca(const struct at_paths *p, const char *name, char *buf, size_t size,
		struct at_error *err)
{
	return part(buf, size, p->cas_dir, name, "", err);
}

int at_paths_caches(const struct at_paths *p, const char *name, char *buf, size_t size,
		    struct at_error *err)
{
	return part(buf, size, p->caches_dir, name, "", err);
}

int at_paths_view(const struct at_paths *p, const char *name, char *buf, size_t size,
		  struct at_error *err)
{
	return part(buf, size, p->views_dir, name, "", err);
}

int at_paths_base(const struct at_paths *p, const char *tree_hex, char *buf, size_t size,
		  struct at_error *err)
{
	return part(buf, size, p->bases_dir, tree_hex, "", err);
}

int at_paths_base_tmp(const struct at_paths *p, const char *tree_hex, char *buf, size_t size,
		      struct at_error *err)
{
	if (at_fmt(buf, size, "%s/.new-%s.%ld", p->bases_dir, tree_hex, (long)getpid()) < 0)
		return at_error_sys(err, AT_ESYS, "path too long '%s'", p->bases_dir);
	return 0;
}

int at_paths_layer(const struct at_paths *p, const char *name, char *buf, size_t size,
		   struct at_error *err)
{
	return part(buf, size, p->layers_dir, name, "", err);
}

bool at_paths_is_base_tmp(const char *leaf, const char *tree_hex)
{
	size_t n = strlen(tree_hex);

	return strncmp(leaf, ".new-", 5) == 0 && strncmp(leaf + 5, tree_hex, n) == 0 &&
	       leaf[5 + n] == '.';
}

int at_paths_layer_removing(const struct at_paths *p, const char *name, char *buf, size_t size,
			    struct at_error *err)
{
	if (at_fmt(buf, size, "%s/.removing-%s.%ld", p->layers_dir, name, (long)getpid()) < 0)
		return at_error_sys(err, AT_ESYS, "path too long for task '%s'", name);
	return 0;
}

static int below(char *buf, size_t size, const char *dir, const char *leaf, struct at_error *err)
{
	char tmp[PATH_MAX];

	if (at_fmt(tmp, sizeof(tmp), "%s/%s", dir, leaf) < 0 || at_fmt(buf, size, "%s", tmp) < 0)
		return at_error_sys(err, AT_ESYS, "path too long '%s'", dir);
	return 0;
}

int at_paths_base_files(const struct at_paths *p, const char *tree_hex, char *buf, size_t size,
			struct at_error *err)
{
	char dir[PATH_MAX];

	if (at_paths_base(p, tree_hex, dir, sizeof(dir), err) < 0)
		return AT_ESYS;
	return below(buf, size, dir, "files", err);
}

int at_paths_base_index(const struct at_paths *p, const char *tree_hex, char *buf, size_t size,
			struct at_error *err)
{
	char dir[PATH_MAX];

	if (at_paths_base(p, tree_hex, dir, sizeof(dir), err) < 0)
		return AT_ESYS;
	return below(buf, size, dir, "index", err);
}

int at_paths_layer_upper(const struct at_paths *p, const char *name, char *buf, size_t size,
			 struct at_error *err)
{
	char dir[PATH_MAX];

	if (at_paths_layer(p, name, dir, sizeof(dir), err) < 0)
		return AT_ESYS;
	return below(buf, size, dir, "upper", err);
}

int at_paths_scan(const struct at_paths *p, const char *name, char *buf, size_t size,
		  struct at_error *err)
{
	return part(buf, size, p->cache_dir, name, ".scan", err);
}

int at_paths_home_size(const struct at_paths *p, const char *name, char *buf, size_t size,
		       struct at_error *err)
{
	return part(buf, size, p->cache_dir, name, ".home", err);
}

int at_paths_log(const struct at_paths *p, const char *name, char *buf, size_t size,
		 struct at_error *err)
{
	return part(buf, size, p->logs_dir, name, ".jsonl", err);
}

int at_paths_worktree(const struct at_paths *p, const char *name, char *buf, size_t size,
		      struct at_error *err)
{
	return part(buf, size, p->worktree_home[0] ? p->worktree_home : p->worktrees_dir, name, "",
		    err);
}

int at_paths_old_worktree(const struct at_paths *p, const char *name, char *buf, size_t size,
			  struct at_error *err)
{
	return part(buf, size, p->worktrees_dir, name, "", err);
}

int at_paths_admin(const struct at_paths *p, const char *worktree_name, char *buf, size_t size,
		   struct at_error *err)
{
	return part(buf, size, p->admins_dir, worktree_name, "", err);
}

int at_paths_comments(const struct at_paths *p, const char *name, char *buf, size_t size,
		      struct at_error *err)
{
	return part(buf, size, p->comments_dir, name, ".json", err);
}

int at_paths_ensure_comments(const struct at_paths *p, struct at_error *err)
{
	if (ensure_dir(p->state_dir, err) < 0 || ensure_dir(p->comments_dir, err) < 0)
		return err->code;
	return 0;
}

int at_paths_etc_listings(const struct at_paths *p, char *buf, size_t size, struct at_error *err)
{
	if (at_fmt(buf, size, "%s/etc.listings", p->cache_dir) < 0)
		return at_error_sys(err, AT_ESYS, "path too long '%s'", p->cache_dir);
	return 0;
}

int at_paths_ports_dir(const struct at_paths *p, char *buf, size_t size, struct at_error *err)
{
	if (at_fmt(buf, size, "%s/ports", p->state_dir) < 0)
		return at_error_sys(err, AT_ESYS, "path too long '%s'", p->state_dir);
	return 0;
}

int at_paths_setup(const struct at_paths *p, const char *name, char *buf, size_t size,
		   struct at_error *err)
{
	return part(buf, size, p->cache_dir, name, ".setup", err);
}
