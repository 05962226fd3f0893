/*
 * cache.c - `run --cache DIR`: a host cache (~/.npm, ~/.cache/pip,
 * ~/.cargo/registry, ~/go/pkg/mod, ~/.m2) shown inside as the lower layer of
 * an overlay whose upper is the task's own, <state>/caches/NAME/<slug>/upper:
 * the command reads the host's warm cache, and whatever it writes, deletes
 * or plants stays in the task (kept from run to run, removed with the task).
 * The host's copy is never written: overlayfs never writes its lower layer.
 * A DIR under the caller's home is shown at the same place under the
 * sandbox's HOME (~/.npm is ~/.npm inside), any other at its own path.
 */
#include "app/internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/lock.h"
#include "core/util.h"

/* The layers' lock, last: nothing after it fails. Busy is no error. */
static int lock_layers(const char *dir, struct at_app_cache *c, struct at_error *err)
{
	char path[PATH_MAX];
	int rc;

	if (at_fmt(path, sizeof(path), "%s/lock", dir) < 0)
		return at_error_set(err, AT_EUSAGE, "--cache '%s': path too long", c->lower);
	if ((rc = at_lock_try_file(path, &c->lock, err)) < 0)
		return rc;
	c->busy = rc == 1;
	if (!c->busy)
		at_app_pick_work(c->work, c->spare);
	return 0;
}

/* <state>/caches/NAME/<last component>-<hash of the path>/{upper,work,work.1} */
static int layers(const struct at_paths *p, const char *task, const char *lower,
		  struct at_app_cache *c, struct at_error *err)
{
	char dir[PATH_MAX], top[PATH_MAX];
	const char *base = strrchr(lower, '/');
	int rc;

	if ((rc = at_paths_caches(p, task, top, sizeof(top), err)) < 0)
		return rc;
	if (at_fmt(dir, sizeof(dir), "%s/%.40s-%016llx", top, base && base[1] ? base + 1 : "root",
		   (unsigned long long)at_hash_name(lower)) < 0 ||
	    at_fmt(c->upper, sizeof(c->upper), "%s/upper", dir) < 0 ||
	    at_fmt(c->work, sizeof(c->work), "%s/work", dir) < 0 ||
	    at_fmt(c->spare, sizeof(c->spare), "%s/work.1", dir) < 0)
		return at_error_set(err, AT_EUSAGE, "--cache '%s': path too long", lower);
	if ((rc = at_app_make_dir(p->caches_dir, err)) < 0 || (rc = at_app_make_dir(top, err)) < 0 ||
	    (rc = at_app_make_dir(dir, err)) < 0 || (rc = at_app_make_dir(c->upper, err)) < 0 ||
	    (rc = at_app_make_dir(c->work, err)) < 0)
		return rc;
	return lock_layers(dir, c, err);
}

/* Where DIR shows inside: under HOME at the same place as under the caller's home. */
static int inside(const char *path, const char *home, char *out, size_t size)
{
	if (home && at_sandbox_path_within(path, home) && strcmp(path, home) != 0)
		return at_fmt(out, size, "%s%s", AT_RUN_HOME, path + strlen(home));
	return at_fmt(out, size, "%s", path);
}

int at_app_cache_add(struct at_repo *r, const struct at_task *t, const struct at_app_layout *l,
		     const char *path, const char *home, struct at_app_cache *out,
		     struct at_error *err)
{
	struct at_app_cache c;
	struct stat st;
	int rc;

	memset(&c, 0, sizeof(c));
	c.lock = -1;
	if ((rc = at_app_check_bind(l, "--cache", path, false, err)) < 0)
		return rc;
	if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode))
		return at_error_set(err, AT_EUSAGE, "--cache '%s': not a directory", path);
	if (at_sandbox_path_within(path, l->worktree) || at_sandbox_path_within(l->worktree, path))
		return at_error_set(err, AT_EUSAGE, "--cache '%s': the worktree is no cache", path);
	if (at_fmt(c.lower, sizeof(c.lower), "%s", path) < 0 ||
	    inside(path, home, c.dest, sizeof(c.dest)) < 0)
		return at_error_set(err, AT_EUSAGE, "--cache '%s': path too long", path);
	if (strcmp(c.dest, AT_RUN_HOME) == 0 || strcmp(c.dest, "/") == 0)
		return at_error_set(err, AT_EUSAGE, "--cache '%s': not a whole home or root", path);
	if ((rc = layers(at_repo_paths(r), t->name, path, &c, err)) < 0)
		return rc;
	*out = c;
	return 0;
}

void at_app_cache_aside(const struct at_app_cache *c)
{
	if (c->lock >= 0)
		at_sandbox_overlay_tidy(c->spare);
}

void at_app_cache_release(struct at_app_cache *c)
{
	if (c->lock < 0)
		return;
	close(c->lock);
	c->lock = -1;
}
