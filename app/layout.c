/*
 * layout.c - the one place a sandboxed run is assembled, for `run` and for
 * the gate's checks: the system layout, the caller's binds, and the git
 * layout of the worktree over them (the common dir read-only with a
 * sanitized config, agenttask's state hidden, the .git pointer read-only),
 * then the process. sandbox/ knows nothing of git; the layout is built here.
 */
#include "app/internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/gitlayer.h"
#include "core/paths.h"
#include "core/util.h"
#include "git/config.h"
#include "sandbox/sandbox.h"

#define STATE_SIZE ((uint64_t)64 << 10)

/* dir's parent in out ("" for "/"). */
static void parent_of(const char *dir, char *out)
{
	const char *slash = strrchr(dir, '/');
	size_t n = slash ? (size_t)(slash - dir) : 0;

	memcpy(out, dir, n);
	out[n] = '\0';
}

/*
 * A worktree outside the state dir (the worktree home, core/task.h) has
 * siblings, other tasks' worktrees: its parent <repo>-<id> is agenttask's,
 * and so is the grandparent when it is the default .../worktrees.
 */
static void set_siblings(struct at_app_layout *l)
{
	const char *base;

	if (at_sandbox_path_within(l->worktree, l->state))
		return;
	parent_of(l->worktree, l->siblings[0]);
	parent_of(l->siblings[0], l->siblings[1]);
	base = strrchr(l->siblings[1], '/');
	if (!l->siblings[0][0] || !base || strcmp(base, "/worktrees") != 0)
		l->siblings[1][0] = '\0';
}

/*
 * A layered task's path holds nothing on the host: its real parent, and its
 * name. The sandbox makes it, and mounts the overlay there.
 */
static int layered_path(const struct at_task *t, char *out, struct at_error *err)
{
	char parent[PATH_MAX], real[PATH_MAX];
	const char *slash = strrchr(t->path, '/');

	parent_of(t->path, parent);
	if (!slash || !slash[1] || !realpath(parent[0] ? parent : "/", real) ||
	    at_fmt(out, PATH_MAX, "%s/%s", strcmp(real, "/") == 0 ? "" : real, slash + 1) < 0)
		return at_error_sys(err, AT_ENOTFOUND, "the worktree of '%s' is missing '%s'",
				    t->name, t->path);
	return 0;
}

/* A layered task: its layer locked for the run, the pointer's placeholder in its upper. */
static int resolve_layered(struct at_repo *r, const struct at_task *t, struct at_app_layout *l,
			   struct at_error *err)
{
	int rc;

	l->layered = true;
	if ((rc = layered_path(t, l->worktree, err)) < 0 ||
	    (rc = at_app_layer_open(at_repo_paths(r), t, &l->layer, err)) < 0)
		return rc;
	if (at_fmt(l->pointer, sizeof(l->pointer), "%s/.git", l->layer.upper) < 0)
		return at_error_set(err, AT_ESYS, "path too long '%s'", l->layer.upper);
	return 0;
}

int at_app_layout_resolve(struct at_repo *r, const struct at_task *t, struct at_app_layout *out,
			  struct at_error *err)
{
	const struct at_paths *p = at_repo_paths(r);
	struct at_app_layout l;
	int rc;

	memset(&l, 0, sizeof(l));
	l.layer.lock = -1;
	if (at_task_is_layered(t)) {
		if ((rc = resolve_layered(r, t, &l, err)) < 0) {
			at_app_layer_close(&l.layer);
			return rc;
		}
	} else if (!realpath(t->path, l.worktree)) {
		if (errno == ENOENT)
			return at_task_worktree_gone(t, err);
		return at_error_sys(err, AT_ENOTFOUND, "the worktree of '%s' is missing '%s'",
				    t->name, t->path);
	}
	if (!realpath(p->common_dir, l.common))
		return at_error_sys(err, AT_ESYS, "cannot resolve '%s'", p->common_dir);
	if (at_paths_state_of(l.common, l.state, sizeof(l.state)) < 0 ||
	    (!l.layered && at_fmt(l.pointer, sizeof(l.pointer), "%s/.git", l.worktree) < 0))
		rc = at_error_sys(err, AT_ESYS, "path too long '%s'", l.common);
	else if (!realpath(t->admin_dir, l.admin))
		rc = at_error_sys(err, AT_ECORRUPT, "the git admin dir of '%s' is missing '%s'",
				  t->name, t->admin_dir);
	else
		rc = 0;
	if (rc == 0) {
		set_siblings(&l);
		rc = at_git_sanitized_config(r, &l.config, err);
	}
	if (rc < 0) {
		at_app_layer_close(&l.layer);
		return rc;
	}
	*out = l;
	return 0;
}

void at_app_layout_release(struct at_app_layout *l)
{
	if (!l)
		return;
	free(l->config);
	l->config = NULL;
	if (l->layered)
		at_app_layer_close(&l->layer);
}

int at_app_check_bind(const struct at_app_layout *l, const char *opt, const char *path,
		      bool writable, struct at_error *err)
{
	char real[PATH_MAX];
	struct stat st;

	if (!at_sandbox_path_normal(path))
		return at_error_set(err, AT_EUSAGE, "%s '%s': not an absolute, normalised path",
				    opt, path);
	if (lstat(path, &st) < 0)
		return at_error_sys(err, AT_EUSAGE, "%s '%s'", opt, path);
	if (!realpath(path, real) || strcmp(real, path) != 0)
		return at_error_set(err, AT_EUSAGE,
				    "%s '%s': the path goes through a symbolic link; give the "
				    "real path", opt, path);
	if (l->siblings[0][0] && at_sandbox_path_within(path, l->siblings[0]) &&
	    !at_sandbox_path_within(path, l->worktree))
		return at_error_set(err, AT_EUSAGE,
				    "%s '%s': inside '%s', where other tasks' worktrees are (never "
				    "bound)", opt, path, l->siblings[0]);
	if (writable && at_sandbox_path_within(path, l->pointer))
		return at_error_set(err, AT_EUSAGE,
				    "%s '%s': the worktree's .git pointer stays read-only", opt, path);
	if (at_sandbox_path_within(path, l->common)) {
		if (!at_sandbox_path_within(path, l->worktree))
			return at_error_set(err, AT_EUSAGE,
					    "%s '%s': inside the git directory '%s' (git metadata "
					    "and agenttask state are never bound)",
					    opt, path, l->common);
	} else if (writable && at_sandbox_path_within(l->common, path)) {
		return at_error_set(err, AT_EUSAGE,
				    "%s '%s': contains the git directory '%s', which must stay "
				    "read-only", opt, path, l->common);
	}
	return 0;
}

/* A config.worktree is another config git would read: hidden under an empty file (any file). */
static void hide_if_present(struct at_sandbox_spec *s, const char *dir, const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	if (at_fmt(path, sizeof(path), "%s/%s", dir, name) == 0 && lstat(path, &st) == 0 &&
	    !S_ISDIR(st.st_mode))
		at_sandbox_bind_data(s, path, "", 0);
}

/* A directory of configs and remote URLs (submodules' git dirs): an empty read-only tmpfs. */
static void hide_dir_if_present(struct at_sandbox_spec *s, const char *dir, const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	if (at_fmt(path, sizeof(path), "%s/%s", dir, name) == 0 && lstat(path, &st) == 0 &&
	    S_ISDIR(st.st_mode)) {
		at_sandbox_tmpfs(s, path, STATE_SIZE, 0755);
		at_sandbox_remount_ro(s, path);
	}
}

/*
 * Every other file git reads as configuration, and what holds remote URLs
 * (tokens in them), under the common dir: the submodules' git dirs
 * (modules/, each with its config and remote URLs), the legacy remotes/
 * and branches/, other worktrees' config.worktree and submodules,
 * FETCH_HEAD, and the files the real config includes (and those include). This task's own admin dir keeps its modules/: its
 * submodules' clones are the task's.
 */
static void hide_other_configs(struct at_sandbox_spec *s, const struct at_app_layout *l)
{
	struct at_error ierr = AT_ERROR_INIT;
	struct at_strlist inc = AT_STRLIST_INIT;
	char wts[PATH_MAX], dir[PATH_MAX];
	const char *own = strrchr(l->admin, '/');
	struct dirent *de;
	DIR *d;
	size_t i;

	hide_if_present(s, l->common, "config.worktree");
	hide_if_present(s, l->admin, "config.worktree");
	hide_if_present(s, l->common, "FETCH_HEAD");
	hide_dir_if_present(s, l->common, "modules");
	/* git's legacy remote files: a URL each, read by fetch and push like a remote's config */
	hide_dir_if_present(s, l->common, "remotes");
	hide_dir_if_present(s, l->common, "branches");
	if (at_paths_admins_of(l->common, wts, sizeof(wts)) == 0 && (d = opendir(wts))) {
		while ((de = readdir(d)))
			if (de->d_name[0] != '.' && (!own || strcmp(own + 1, de->d_name) != 0) &&
			    at_fmt(dir, sizeof(dir), "%s/%s", wts, de->d_name) == 0) {
				hide_if_present(s, dir, "config.worktree");
				hide_dir_if_present(s, dir, "modules");
			}
		closedir(d);
	}
	/* The sanitized config includes nothing; the files the real one names stay unread. */
	(void)at_git_config_includes(l->common, "config", &inc, &ierr);
	for (i = 0; i < inc.n; i++) {
		char *slash = strrchr(inc.v[i], '/');

		/* A ".." could name a file outside: not hidden, never mounted over. */
		if (!slash || strstr(inc.v[i], "/../") || strstr(inc.v[i], "/./") ||
		    !at_sandbox_path_within(inc.v[i], l->common) ||
		    at_sandbox_path_within(inc.v[i], l->state))
			continue;
		*slash = '\0';
		hide_if_present(s, inc.v[i], slash + 1);
	}
	at_strlist_release(&inc);
}

/*
 * The pointer is checked here too, for a clear message: a symbolic link or
 * a directory planted as .git is never mounted over (the sandbox refuses a
 * link on its own as well).
 */
static int check_pointer(const struct at_app_layout *l, struct at_error *err)
{
	struct stat st;

	if (lstat(l->pointer, &st) < 0)
		return at_error_sys(err, AT_ESANDBOX, "cannot stat '%s'", l->pointer);
	if (S_ISLNK(st.st_mode))
		return at_error_set(err, AT_ESANDBOX,
				    "'%s' is a symbolic link: refusing to mount over it", l->pointer);
	if (!S_ISREG(st.st_mode))
		return at_error_set(err, AT_ESANDBOX, "'%s' is not a regular file", l->pointer);
	return 0;
}

/*
 * A layered task's worktree (core/task.h): an overlay of its base's files,
 * read-only below (overlayfs never writes a lower layer, and the base is
 * under the state dir, hidden), and its own upper, the only writable layer;
 * the .git pointer a read-only file of the text git wrote, bound over its
 * placeholder in the upper (the upper's copy is the task's to have changed
 * between runs; the pointer is made from the admin dir's path).
 */
static void add_layered(struct at_sandbox_spec *s, const struct at_app_layout *l)
{
	char pointer[PATH_MAX + 8], text[PATH_MAX + 16];

	at_sandbox_except(s, l->layer.upper);
	at_sandbox_except(s, l->layer.work);
	at_sandbox_overlay(s, l->layer.lower, l->layer.upper, l->layer.work, l->worktree);
	if (at_fmt(pointer, sizeof(pointer), "%s/.git", l->worktree) < 0 ||
	    at_fmt(text, sizeof(text), "gitdir: %s\n", l->admin) < 0)
		s->failed = true;
	else
		at_sandbox_bind_data(s, pointer, text, strlen(text));
}

/*
 * The repository: the common dir read-only with a sanitized config (or,
 * for a run with the task's git view, an overlay of it whose upper is the
 * task's and holds the sanitized config), the
 * state dir (other tasks, records, logs, the lock) under an empty tmpfs in
 * which only this task's worktree is re-created, read-write, and its .git
 * pointer read-only; a worktree outside the state dir has its siblings
 * hidden the same way, where a bind of the caller's could show them. The
 * order matters: each step goes over the last. And
 * the sandbox is told what must never be writable, so that it refuses a
 * writable bind of it whatever else the spec says.
 */
static void add_git(struct at_sandbox_spec *s, const struct at_app_layout *l, bool binds)
{
	char config[PATH_MAX + 8];
	const char *text = l->config ? l->config : "";
	size_t i;

	at_sandbox_protect(s, l->common);
	at_sandbox_except(s, l->worktree);
	if (!l->layered)
		at_sandbox_protect(s, l->pointer);
	if (l->upper[0]) {
		/* The task's own git (app/gitview.c): its upper holds the sanitized config. */
		at_sandbox_except(s, l->upper);
		at_sandbox_except(s, l->work);
		at_sandbox_overlay(s, l->common, l->upper, l->work, l->common);
	} else {
		at_sandbox_bind(s, l->common, l->common, AT_MOUNT_RO);
		snprintf(config, sizeof(config), "%s/config", l->common);
		at_sandbox_bind_data(s, config, text, strlen(text));
	}
	hide_other_configs(s, l);
	at_sandbox_tmpfs(s, l->state, STATE_SIZE, 0755);
	for (i = 2; binds && i-- > 0;)
		if (l->siblings[i][0])
			at_sandbox_tmpfs(s, l->siblings[i], STATE_SIZE, 0755);
	if (l->layered)
		add_layered(s, l);
	else
		at_sandbox_bind(s, l->worktree, l->worktree, 0);
	if (!l->layered)
		at_sandbox_bind(s, l->pointer, l->pointer, AT_MOUNT_RO);
	at_sandbox_remount_ro(s, l->state);
	for (i = 0; binds && i < 2; i++)
		if (l->siblings[i][0])
			at_sandbox_remount_ro(s, l->siblings[i]);
}

/*
 * Git read-only (no view, which hides them: app/gitview_open.c): agenttask's
 * own refs in the common dir (core/paths.h's AT_HOST_REFS) out of sight all
 * the same, the packed ones by a copy of packed-refs without them, the
 * loose ones' directory under an empty read-only tmpfs.
 */
static int hide_host_refs(struct at_sandbox_spec *s, const struct at_app_layout *l,
			  struct at_error *err)
{
	struct at_gitlayer g = { .lower = -1 };
	char path[PATH_MAX + 32];
	AT_AUTOFREE char *text = NULL;
	size_t len = 0, kept;
	struct stat st;
	int rc;

	if (at_fmt(path, sizeof(path), "%s/%.*s", l->common, (int)strlen(AT_HOST_REFS) - 1,
		   AT_HOST_REFS) < 0)
		return at_error_set(err, AT_ESYS, "path too long '%s'", l->common);
	if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		at_sandbox_tmpfs(s, path, STATE_SIZE, 0755);
		at_sandbox_remount_ro(s, path);
	}
	if ((g.upper = open(l->common, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return at_error_sys(err, AT_ESYS, "cannot open '%s'", l->common);
	rc = at_gitlayer_read(&g, "packed-refs", AT_GITLAYER_PACKED_MAX, &text, &len, err);
	close(g.upper);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	kept = at_gitlayer_packed_drop(text, len, AT_HOST_REFS);
	if (kept != len && at_fmt(path, sizeof(path), "%s/packed-refs", l->common) == 0)
		at_sandbox_bind_data(s, path, text, kept);
	return 0;
}

/* The caller's binds, then the repository over them: a --ro of a parent of
 * the repository cannot uncover its config or state. */
static int build_spec(struct at_sandbox_spec *s, const struct at_app_layout *l,
		 const struct at_app_sandbox_opts *o, struct at_error *err)
{
	size_t i;
	int rc;

	if ((rc = check_pointer(l, err)) < 0)
		return rc;
	s->proc = o->proc;        /* first: the system's tmpfs sizes follow the memory limit */
	/* The task's home is under the common dir, which is protected: this one bind is let through. */
	if (o->proc.home)
		at_sandbox_except(s, o->proc.home);
	at_sandbox_add_system(s);
	/* The task's CA, trusted inside: a read-only file over the system's bundle. */
	if (o->ca_bundle)
		at_sandbox_bind_data(s, "/etc/ssl/certs/ca-certificates.crt", o->ca_bundle,
				     o->ca_bundle_len);
	/*
	 * The person's comments: a file the host writes in the sandbox's root
	 * (its tmpfs, read-only once the mounts are made), never one of the
	 * worktree's; no mount of its own.
	 */
	if (o->comments)
		at_sandbox_file(s, AT_RUN_COMMENTS, o->comments, o->comments_len);
	for (i = 0; i < o->nbinds; i++)
		at_sandbox_bind(s, o->binds[i].path, o->binds[i].path,
				o->binds[i].writable ? 0 : AT_MOUNT_RO);
	/* The caches' writable layers are the task's state: let through like its home. */
	for (i = 0; i < o->ncaches; i++) {
		if (o->caches[i].busy) {
			at_sandbox_bind(s, o->caches[i].lower, o->caches[i].dest, AT_MOUNT_RO);
			continue;
		}
		at_sandbox_except(s, o->caches[i].upper);
		at_sandbox_except(s, o->caches[i].work);
		at_sandbox_overlay(s, o->caches[i].lower, o->caches[i].upper, o->caches[i].work,
				   o->caches[i].dest);
	}
	add_git(s, l, o->nbinds > 0);
	if (!l->upper[0] && (rc = hide_host_refs(s, l, err)) < 0)
		return rc;
	for (i = 0; o->argv[i]; i++)
		at_strlist_push(&s->argv, o->argv[i]);
	for (i = 0; o->envp && o->envp[i]; i++)
		at_strlist_push(&s->envp, o->envp[i]);
	if (!(s->cwd = strdup(o->cwd ? o->cwd : l->worktree)) || s->failed || !s->envp.v)
		return at_error_set(err, AT_ESYS, "out of memory building the sandbox");
	return 0;
}

int at_app_sandbox_run(const struct at_app_layout *l, const struct at_app_sandbox_opts *o,
		       struct at_run_result *res, struct at_error *err)
{
	struct at_sandbox_spec s;
	int rc;

	at_run_result_init(res);
	at_sandbox_spec_init(&s);
	rc = build_spec(&s, l, o, err);
	/*
	 * The allowlist's proxy: started by the sandbox's hand-over of the
	 * listening sockets (before the command runs), stopped here when the
	 * run is over, for every run and every check alike.
	 */
	if (rc == 0 && o->net)
		at_app_net_prepare(o->net, &s);
	if (rc == 0)
		at_app_publish_prepare(o->publish, &s);
	if (rc == 0)
		rc = at_sandbox_run(&s, res, err);
	if (o->net)
		at_app_net_stop(o->net);
	at_app_publish_stop(o->publish);
	at_sandbox_spec_release(&s);
	return rc;
}
