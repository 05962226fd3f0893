#include "app/run.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "app/gitview.h"
#include "app/files.h"
#include "app/comment.h"
#include "app/json.h"
#include "app/internal.h"
#include "app/publish.h"
#include "core/parse.h"
#include "core/array.h"
#include "core/audit.h"
#include "core/esc.h"
#include "core/fs.h"
#include "core/gitlayer.h"
#include "core/runs.h"
#include "core/trace.h"
#include "core/util.h"
#include "git/worktree.h"
#include "sandbox/sandbox.h"

/* The run being assembled: its task, layout, binds and environment. */
struct run {
	struct at_repo *r;
	char *cwd;                /* --cwd made absolute, or NULL */
	struct at_task task;
	struct at_app_layout layout;
	struct at_run_bind *binds;
	size_t nbinds, cap;
	struct at_strlist env;
	struct at_run_lock lock;  /* held for the whole run: discard, accept, gc stop it first */
	char home[PATH_MAX];      /* the task's lasting HOME; "" with --fresh-home */
	struct at_app_cache *caches;
	size_t ncaches;
	struct at_app_runconf conf;   /* what the run configuration files add */
	struct at_limits limits;      /* the options', over the configuration's */
	struct at_app_gitview view;  /* the task's git, when this run has it */
	struct at_app_secrets secrets;  /* the run's secrets and terminated hosts */
	char *comments;              /* the open review comments' JSON, the sandbox's file */
	struct at_sandbox_etc *etc;  /* the sandbox's walk of /etc, begun first */
	char etc_cache[PATH_MAX];    /* its listings' file */
	struct at_app_publish publish;  /* --publish and the configuration's */
	struct at_app_notify notify;    /* --notify and the configuration's */
	struct at_checkpoint before; /* the checkpoint taken before it (n 0: none) */
};

/* Lexically normalise an absolute or cwd-relative path ("." ".." "//" trailing '/'). */
static char *absolute_path(const char *path)
{
	char cwd[PATH_MAX], *buf, *out, *save = NULL, *comp;
	size_t len = 0;

	if (path[0] != '/' && !getcwd(cwd, sizeof(cwd)))
		return NULL;
	if (path[0] == '/')
		buf = strdup(path);
	else if (asprintf(&buf, "%s/%s", cwd, path) < 0)
		buf = NULL;
	out = buf ? calloc(1, strlen(buf) + 2) : NULL;
	if (!out) {
		free(buf);
		return NULL;
	}
	for (comp = strtok_r(buf, "/", &save); comp; comp = strtok_r(NULL, "/", &save)) {
		if (strcmp(comp, ".") == 0)
			continue;
		if (strcmp(comp, "..") == 0) {
			while (len > 0 && out[len - 1] != '/')
				len--;
			if (len > 0)
				len--;
			out[len] = '\0';
			continue;
		}
		out[len++] = '/';
		strcpy(out + len, comp);
		len += strlen(comp);
	}
	if (len == 0)
		strcpy(out, "/");
	free(buf);
	return out;
}

static int take_bind(struct run *run, const char *path, bool writable,
		     struct at_app_run_result *res, struct at_error *err)
{
	char *abs = absolute_path(path);

	if (!abs)
		return at_error_sys(err, AT_EUSAGE, "invalid path '%s'", path);
	if (at_strlist_push_owned(&res->binds, abs) < 0 ||
	    AT_ARRAY_GROW(run->binds, run->cap, run->nbinds + 1) < 0)
		return at_error_set(err, AT_ESYS, "out of memory");
	run->binds[run->nbinds].path = abs;
	run->binds[run->nbinds++].writable = writable;
	return at_app_check_bind(&run->layout, writable ? "--rw" : "--ro", abs, writable, err);
}

/* The binds (the configuration's ro, then the options'), absolute and checked against the
 * layout; the strings live in res->binds. */
static int take_binds(struct run *run, const struct at_app_run_opts *o,
		      struct at_app_run_result *res, struct at_error *err)
{
	size_t i;
	int rc = 0;

	for (i = 0; rc == 0 && i < run->conf.ro.n; i++)
		rc = take_bind(run, run->conf.ro.v[i], false, res, err);
	for (i = 0; rc == 0 && i < o->nbinds; i++)
		rc = take_bind(run, o->binds[i].path, o->binds[i].writable, res, err);
	return rc;
}

/* The caller's home, real, for where a --cache shows inside; NULL when none. */
static const char *caller_home(const struct at_app *app, char *buf)
{
	size_t i;

	for (i = 0; app && app->environ && app->environ[i]; i++)
		if (strncmp(app->environ[i], "HOME=", 5) == 0)
			return app->environ[i][5] == '/' && realpath(app->environ[i] + 5, buf) ? buf
											 : NULL;
	return NULL;
}

static int take_caches(const struct at_app *app, struct run *run, const struct at_app_run_opts *o,
		       struct at_app_run_result *res, struct at_error *err)
{
	char home_buf[PATH_MAX];
	const char *home = caller_home(app, home_buf);
	size_t i, n = run->conf.cache.n + o->ncaches;
	int rc;

	if (n && !(run->caches = calloc(n, sizeof(*run->caches))))
		return at_error_set(err, AT_ESYS, "out of memory");
	for (i = 0; i < n; i++) {
		const char *path = i < run->conf.cache.n ? run->conf.cache.v[i]
							 : o->caches[i - run->conf.cache.n];
		char *abs = absolute_path(path);

		if (!abs || at_strlist_push_owned(&res->binds, abs) < 0)
			return at_error_sys(err, AT_EUSAGE, "invalid path '%s'", path);
		if ((rc = at_app_cache_add(run->r, &run->task, &run->layout, abs, home,
					   &run->caches[run->ncaches], err)) < 0)
			return rc;
		if (run->caches[run->ncaches].busy)
			at_strlist_pushf(&res->warnings, "another run of '%s' has its cache '%s': "
					 "read-only in this one", run->task.name, abs);
		run->ncaches++;
	}
	return 0;
}

/* The configuration's path entries before the sandbox's PATH. */
static int config_path(const struct run *run, struct at_strlist *sets)
{
	size_t i, len = sizeof("PATH=") + sizeof(AT_RUN_PATH);
	char *v;

	if (!run->conf.path.n)
		return 0;
	for (i = 0; i < run->conf.path.n; i++)
		len += strlen(run->conf.path.v[i]) + 1;
	if (!(v = malloc(len)))
		return -1;
	strcpy(v, "PATH=");
	for (i = 0; i < run->conf.path.n; i++)
		strcat(strcat(v, run->conf.path.v[i]), ":");
	strcat(v, AT_RUN_PATH);
	return at_strlist_push_owned(sets, v);
}

static int deny_private_alone(struct at_error *err)
{
	return at_error_set(err, AT_EUSAGE, "--deny-private applies to --allow-host: none given");
}

/*
 * A host an agent asked for: only what the person allows, compared exactly
 * (a name the person allows as "*.example.com" is asked for so, not as
 * "a.example.com"). The configuration's hosts are the user's own: the
 * repository's were checked to be among them (app/runconf.c).
 */
static int ask_host(const struct at_app_run_opts *o, const struct run *run, const char *host,
		    struct at_error *err)
{
	char esc[200];
	size_t i;

	for (i = 0; i < o->ngrant_hosts; i++)
		if (strcmp(host, o->grant_hosts[i]) == 0)
			return at_app_net_allow(o->proxy, host, err);
	if (at_strlist_has(&run->conf.allow_hosts, host))
		return at_app_net_allow(o->proxy, host, err);
	return at_error_set(err, AT_EUSAGE, "host '%s' is not one the person allows: only those "
			    "of 'agenttask mcp --allow-host' or config.json's run.allow_hosts, "
			    "exactly as written there", at_esc(esc, sizeof(esc), host));
}

/* The configuration's, then the options': the options' limits and hosts win or add. */
static int config_apply(const struct at_app *app, const struct at_app_run_opts *o, struct run *run,
			struct at_error *err)
{
	size_t i;
	int l, rc = 0;

	run->limits = o->limits;
	if (!o->no_config)
		rc = at_app_runconf_load(app, run->r, &run->task, o->profile, &run->conf, err);
	for (l = 0; rc == 0 && l < AT_LIMIT_COUNT; l++)
		if (!run->limits.value[l])
			run->limits.value[l] = run->conf.limits[l];
	if (rc == 0 && o->nask_hosts && (o->net || !o->proxy))
		rc = at_error_set(err, AT_EUSAGE, "hosts asked for without a proxy to reach them");
	for (i = 0; rc == 0 && i < o->nask_hosts; i++)
		rc = ask_host(o, run, o->ask_hosts[i], err);
	/* --net shares the host's network: the configuration's hosts are moot then. */
	if (rc < 0 || o->net || !o->proxy || o->no_config_hosts)
		return rc;
	for (i = 0; rc == 0 && i < run->conf.allow_hosts.n; i++)
		rc = at_app_net_allow(o->proxy, run->conf.allow_hosts.v[i], err);
	if (rc == 0 && o->proxy->deny_private && o->proxy->rules.n == 0)
		return deny_private_alone(err);  /* the flag's; the files' follows */
	/* the same forward from two files (or one and --forward) is one forward */
	for (i = 0; rc == 0 && i < run->conf.forward.n; i++)
		if (!at_app_net_has_forward(o->proxy, run->conf.forward.v[i]))
			rc = at_app_net_forward_as(o->proxy, run->conf.forward.v[i],
						   "forward of the run configuration", err);
	if (run->conf.deny_private)
		at_app_net_deny_private(o->proxy);
	if (run->conf.allow_private)
		at_app_net_allow_private(o->proxy);
	return rc;
}

/*
 * The run's secrets (app/secrets.c), once its allowlist is whole: they go
 * through the proxy alone, and a secret's variable never passes in.
 */
static int take_secrets(const struct at_app *app, const struct at_app_run_opts *o,
			struct run *run, struct at_error *err)
{
	int rc;

	if (!o->proxy || o->net) {
		if (o->nsecrets)
			return at_error_set(err, AT_EUSAGE, "--secret goes through the proxy: it "
					    "cannot go with --net");
		return 0;
	}
	rc = at_app_secrets_prepare(app, run->r, &run->task, &run->conf, o->secrets, o->nsecrets,
				    o->proxy, &run->secrets, err);
	return rc ? rc : at_app_secrets_check_pass(app, &run->secrets, o->pass_env, o->npass,
						     err);
}

/* rel a directory of the worktree, reached with no link on the way? Sets errno when not. */
static bool worktree_dir(const struct at_app_layout *l, const char *rel)
{
	struct at_gitlayer layers;
	bool found;
	int fd;

	if (!l->layered) {
		int root = open(l->worktree, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

		fd = root < 0 ? -1 : at_open_beneath(root, rel[0] ? rel : ".", O_PATH | O_DIRECTORY);
		if (root >= 0)
			close(root);
		if (fd >= 0)
			close(fd);
		return fd >= 0;
	}
	/* A layered task has no worktree on the host: the directory as its overlay will show it. */
	layers.upper = open(l->layer.upper, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	layers.lower = open(l->layer.lower, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	found = layers.upper >= 0 && at_gitlayer_is_dir(&layers, rel);
	if (layers.upper >= 0)
		close(layers.upper);
	if (layers.lower >= 0)
		close(layers.lower);
	if (!found)
		errno = ENOENT;
	return found;
}

/* --cwd: a directory of the worktree, reached with no link on the way (app/files.h). */
static int take_cwd(struct run *run, const char *cwd, struct at_error *err)
{
	char rel[PATH_MAX], esc[200];
	int rc;

	if (!cwd)
		return 0;
	if ((rc = at_app_file_path(run->layout.worktree, cwd, rel, sizeof(rel), err)) < 0)
		return rc;
	if (!worktree_dir(&run->layout, rel))
		return at_error_sys(err, AT_EUSAGE, "--cwd '%s' is no directory of the worktree",
				    at_esc(esc, sizeof(esc), cwd));
	if (asprintf(&run->cwd, "%s%s%s", run->layout.worktree, rel[0] ? "/" : "", rel) < 0)
		return at_error_set(err, AT_ESYS, "out of memory");
	return 0;
}

/* The proxy's variables first: the caller's K=V replace them. */
static int environment(const struct at_app *app, const struct at_app_run_opts *o,
		       struct run *run, struct at_error *err)
{
	struct at_strlist sets = AT_STRLIST_INIT;
	char *const *net = o->proxy && at_app_net_active(o->proxy) ? at_app_net_env() : NULL;
	size_t i;
	int rc = 0;

	for (i = 0; net && net[i]; i++)
		rc |= at_strlist_push(&sets, net[i]);
	rc |= at_strlist_push_all(&sets, &run->secrets.env);
	for (i = 0; i < run->conf.env.n; i++)
		rc |= at_strlist_push(&sets, run->conf.env.v[i]);
	rc |= config_path(run, &sets);
	rc |= at_strlist_push(&sets, AT_RUN_COMMENTS_ENV "=" AT_RUN_COMMENTS);
	for (i = 0; i < o->nset; i++)
		rc |= at_strlist_push(&sets, o->set_env[i]);
	if (rc < 0)
		rc = at_error_set(err, AT_ESYS, "out of memory");
	else
		rc = at_sandbox_env(app ? app->environ : NULL, o->pass_env, o->npass, sets.v,
				    sets.n, &run->env, err);
	at_strlist_release(&sets);
	return rc;
}

static int check_opts(const struct at_app_run_opts *o, struct at_error *err)
{
	if (o->tty == AT_TTY_FORCE && o->capture)
		return at_error_set(err, AT_EUSAGE, "-t gives the command a terminal: it cannot "
				    "go with --json, which captures the output");
	if (!o->proxy)
		return 0;
	if (o->net && at_app_net_active(o->proxy))
		return at_error_set(err, AT_EUSAGE, "--allow-host and --forward keep the "
				    "sandbox's own network: they cannot go with --net");
	/* without the configuration's hosts, known now; with them, config_apply says it */
	if (o->proxy->deny_private && o->proxy->rules.n == 0 && (o->net || o->no_config))
		return deny_private_alone(err);
	return 0;
}

static void take_import(struct at_app_run_result *res, struct at_app_import *imp)
{
	size_t i;

	for (i = 0; i < imp->warnings.n; i++)
		at_strlist_push(&res->warnings, imp->warnings.v[i]);
	if (imp->imported) {
		res->imported = true;
		at_oid_fmt(res->import_new, &imp->new_tip);
		if (!res->import_old[0])
			at_oid_fmt(res->import_old, &imp->old);
		res->import_objects += imp->objects;
	}
	at_app_import_release(imp);
}

/* The task's git view (app/gitview.c), made ready; a second run of the task sees git read-only. */
static int open_view(struct run *run, struct at_app_run_result *res, struct at_error *err)
{
	struct at_app_import imp;
	int rc;

	memset(&imp, 0, sizeof(imp));
	rc = at_app_gitview_open(run->r, &run->task, &run->layout, &run->view, &imp, err);
	take_import(res, &imp);
	if (rc == 1)
		at_strlist_pushf(&res->warnings, "another run of '%s' has its git: git is "
				 "read-only in this one", run->task.name);
	return rc < 0 ? rc : 0;
}

/* After the run: its commits brought to the host (a failure is one line, the branch kept). */
static void import_after(struct run *run, struct at_app_run_result *res)
{
	struct at_error ierr = AT_ERROR_INIT;
	struct at_app_import imp;

	if (run->view.lock < 0)
		return;
	memset(&imp, 0, sizeof(imp));
	if (at_app_import(run->r, &run->task, &run->view, &imp, &ierr) < 0)
		at_app_import_warn(&res->warnings, &run->task, &ierr);
	take_import(res, &imp);
}

/* The task's state before the command: its checkpoint, whose number is the run's. */
static void checkpoint_before(struct run *run, struct at_app_run_result *res)
{
	struct at_error cerr = AT_ERROR_INIT;
	struct at_app_view v;

	at_app_view_init(&v, run->r, &run->task);
	if (at_app_checkpoint_take(&v, AT_CHECKPOINT_RUN, &run->before, &cerr) < 0)
		at_strlist_pushf(&res->warnings, "no checkpoint of '%s' before this run (it cannot "
				 "be rewound to): %s", run->task.name, cerr.msg);
	else
		res->number = run->before.n;
	at_app_view_release(&v);
}

/* After it, on request: what it changed, against its checkpoint. */
static void changes_after(struct run *run, struct at_app_run_result *res)
{
	struct at_error cerr = AT_ERROR_INIT;
	struct at_app_view v;

	if (!run->before.n)
		return;
	at_app_view_init(&v, run->r, &run->task);
	if (at_app_checkpoint_changes(&v, &run->before, NULL, &res->changes, &cerr) < 0)
		at_strlist_pushf(&res->warnings, "what the run changed is not known: %s", cerr.msg);
	else
		res->has_changes = true;
	at_app_view_release(&v);
}

/*
 * The listings of /etc's last walk (sandbox.h): in the repository's state,
 * which no sandbox can write. NULL (no cache) when its directory cannot be.
 */
static const char *etc_listings(struct at_repo *r, char *buf, size_t size)
{
	const struct at_paths *p = at_repo_paths(r);

	if ((mkdir(p->cache_dir, 0700) < 0 && errno != EEXIST) ||
	    at_paths_etc_listings(p, buf, size, NULL) < 0)
		return NULL;
	return buf;
}

/*
 * The person's open review comments, for the sandbox's file and run --json.
 * Carried to the task's current state only when one is open (that takes a
 * scan of the worktree; a task without comments costs a file's lookup). A
 * comments file that cannot be read is a warning: the run goes on.
 */
static int take_comments(struct run *run, struct at_app_run_result *res, struct at_error *err)
{
	struct at_app_comments_result cr;
	const struct at_task_state *st;
	struct at_error e = AT_ERROR_INIT;
	struct at_app_view v;
	int rc;

	if ((rc = at_app_comments_of(run->r, &run->task, NULL, false, &cr, &e)) == 0 && cr.open) {
		at_app_comments_result_release(&cr);
		at_app_view_init(&v, run->r, &run->task);
		if ((rc = at_app_view_state(&v, &st, &e)) == 0)
			rc = at_app_comments_of(run->r, &run->task, &st->tree, false, &cr, &e);
		else
			rc = at_app_comments_of(run->r, &run->task, NULL, false, &cr, &e);
		at_app_view_release(&v);
	}
	if (rc < 0) {
		at_strlist_pushf(&res->warnings, "review comments of '%s' not shown: %s",
				 run->task.name, e.msg);
		memset(&cr, 0, sizeof(cr));
	}
	res->comments = at_app_comments_json(&cr);
	at_app_comments_result_release(&cr);
	if (!res->comments || !(run->comments = at_json_print(res->comments, true)))
		return at_error_set(err, AT_ESYS, "out of memory");
	return 0;
}

/*
 * --publish, then the configuration's (the same port from both is one),
 * bound on the host's loopback: a port in use refuses the run here.
 */
static int take_publish(const struct at_app_run_opts *o, struct run *run,
			struct at_app_run_result *res, struct at_error *err)
{
	uint16_t port, ignored;
	size_t i;
	int rc = 0;

	if ((o->npublish || (run->conf.publish.n && !o->no_config_hosts)) && o->net)
		return at_error_set(err, AT_EUSAGE, "--publish reaches the sandbox's own network: "
				    "it cannot go with --net");
	for (i = 0; rc == 0 && i < o->npublish; i++)
		rc = at_app_publish_add(&run->publish, o->publish[i], "--publish", err);
	for (i = 0; rc == 0 && !o->no_config_hosts && i < run->conf.publish.n; i++) {
		const char *spec = run->conf.publish.v[i];
		const char *colon = strchr(spec, ':');
		bool ok = colon ? at_parse_forward(spec, &ignored, &port)
				: at_parse_forward(spec, &port, &ignored);
		if (!ok || !at_app_publish_has(&run->publish, port))
			rc = at_app_publish_add(&run->publish, spec,
						"publish of the run configuration", err);
	}
	if (rc == 0)
		rc = at_app_publish_bind(&run->publish, at_repo_paths(run->r), run->task.name, err);
	for (i = 0; rc == 0 && i < run->publish.n; i++)
		res->published[i] = (struct at_port_map){ run->publish.v[i].port,
							  run->publish.v[i].host_port };
	if (rc == 0)
		res->npublished = run->publish.n;
	if (rc == 0 && res->npublished && o->published)
		o->published(res->published, res->npublished, o->published_arg);
	return rc;
}

/* Everything before the sandbox: nothing runs, nothing is logged if this fails. */
static int prepare(const struct at_app *app, const struct at_app_run_opts *o, struct run *run,
		   struct at_app_run_result *res, struct at_error *err)
{
	int64_t t0 = at_mono_us();
	int rc;

	rc = at_app_open(app, &run->r, err);
	/* It overlaps everything up to the sandbox's spec. */
	if (rc == 0)
		run->etc = at_sandbox_etc_start(etc_listings(run->r, run->etc_cache,
							     sizeof(run->etc_cache)));
	if (rc == 0)
		rc = at_app_resolve(app, run->r, o->name, &run->task, err);
	/* A remover may have held the run lock meanwhile: look the task up again. */
	if (rc == 0)
		rc = at_runs_enter(at_repo_paths(run->r), run->task.name, &run->lock, err);
	if (rc == 0)
		rc = at_task_resolve(run->r, run->task.name, ".", &run->task, err);
	/* A rewind killed midway left the worktree half back: nothing runs on that. */
	if (rc == 0 && at_app_rewind_pending(run->r, &run->task))
		rc = at_error_set(err, AT_EBUSY, "a rewind of '%s' was interrupted: 'agenttask gc' "
				  "completes it (or 'agenttask rewind %s N' again)", run->task.name,
				  run->task.name);
	if (rc == 0)
		rc = at_app_layout_resolve(run->r, &run->task, &run->layout, err);
	if (rc == 0)
		rc = config_apply(app, o, run, err);
	if (rc == 0)
		rc = take_secrets(app, o, run, err);
	/* Under the run lock: a remover waits for the run before it removes the home. */
	if (rc == 0 && !o->fresh_home)
		rc = at_app_task_home(run->r, &run->task, run->home, sizeof(run->home), err);
	if (rc == 0 && !o->fresh_home)
		rc = at_app_home_check(run->r, &run->task, run->home,
				       o->tmpfs_size[AT_TMPFS_HOME], err);
	res->resolve_us = at_mono_us() - t0;
	if (rc == 0) {
		memcpy(res->task, run->task.name, sizeof(res->task));
		rc = take_binds(run, o, res, err);
	}
	if (rc == 0)
		rc = take_caches(app, run, o, res, err);
	if (rc == 0)
		rc = take_cwd(run, o->cwd, err);
	if (rc == 0)
		rc = take_comments(run, res, err);
	if (rc == 0)
		rc = environment(app, o, run, err);
	if (rc == 0)
		rc = at_app_secrets_check_env(&run->secrets, run->env.v, err);
	if (rc == 0 && (o->notify || run->conf.notify))
		rc = at_app_notify_prepare(&run->notify, app, run->task.name,
					   &run->conf.notify_command, err);
	if (rc == 0) {
		run->notify.tell = o->notify_tell;
		run->notify.tell_arg = o->notify_arg;
	}
	if (rc == 0)
		rc = take_publish(o, run, res, err);
	/* Last: a refused run changes nothing, not even the task's git view. */
	if (rc == 0)
		rc = open_view(run, res, err);
	/* After the import: the state the command starts from, its commits included. */
	if (rc == 0 && !at_test_no_checkpoint())
		checkpoint_before(run, res);
	return rc;
}

static void audit(const struct run *run, const struct at_app_run_opts *o,
		  struct at_app_run_result *res, const struct at_error *rerr)
{
	struct at_error aerr = AT_ERROR_INIT;
	struct at_audit_run e = {
		.argv = o->argv, .res = &res->run, .exit_code = res->exit_code, .net = o->net,
		.binds = run->binds, .nbinds = run->nbinds, .limits = &res->limits,
		.timeout_ms = o->timeout_ms, .error = rerr && rerr->code ? rerr : NULL,
		.network = o->proxy ? at_app_net_json(o->proxy) : NULL,
		.published = at_app_published_json(res->published, res->npublished),
		.number = res->number,
	};

	if (at_audit_run(at_repo_paths(run->r), run->task.name, &e, &aerr) < 0)
		at_strlist_pushf(&res->warnings, "the run was not logged: %s", aerr.msg);
}

static void note_init(int init_pid, void *arg)
{
	struct run *run = arg;

	at_runs_note_init(&run->lock, init_pid);
	at_app_notify_started(&run->notify, init_pid);
}

/*
 * While the init sets the sandbox up: the scratch an earlier run left in
 * each overlay's other work dir removed (at_sandbox_overlay_pick), under
 * the layers' locks, which this run holds. No run waits for a removal.
 */
static void aside(void *arg)
{
	const struct run *run = arg;
	size_t i;

	if (run->layout.upper[0] && run->view.lock >= 0)
		at_sandbox_overlay_tidy(run->view.spare);
	if (run->layout.layered)
		at_app_layer_aside(&run->layout.layer);
	for (i = 0; i < run->ncaches; i++)
		at_app_cache_aside(&run->caches[i]);
}

static int run_sandboxed(struct run *run, const struct at_app_run_opts *o,
			 struct at_app_run_result *res, struct at_error *err)
{
	struct at_app_sandbox_opts so = {
		.argv = o->argv, .envp = run->env.v, .binds = run->binds, .nbinds = run->nbinds,
		.cwd = run->cwd,
		.net = o->proxy && at_app_net_active(o->proxy) ? o->proxy : NULL,
		.publish = run->publish.n ? &run->publish : NULL,
		.caches = run->caches, .ncaches = run->ncaches,
		.ca_bundle = run->secrets.bundle, .ca_bundle_len = run->secrets.bundle_len,
		.comments = run->comments, .comments_len = run->comments ? strlen(run->comments) : 0,
		.proc = {
			.share_net = o->net, .limits = run->limits, .timeout_ms = o->timeout_ms,
			.stdio = o->capture ? AT_STDIO_CAPTURE : AT_STDIO_INHERIT,
			.capture_max = o->capture_max, .cancel_fd = o->cancel_fd,
			.tty = o->tty, .progress = o->progress,
			.started = note_init, .started_arg = run,
			.aside = aside, .aside_arg = run,
			.home = run->home[0] ? run->home : NULL, .etc = run->etc,
		},
	};
	int rc;

	if (o->proxy) {
		o->proxy->term = run->secrets.active ? &run->secrets.term : NULL;
		o->proxy->terminated = false;
	}
	memcpy(so.proc.tmpfs_size, o->tmpfs_size, sizeof(so.proc.tmpfs_size));
	if (!o->no_limits)
		at_sandbox_defaults(&so.proc.limits);
	res->limits = so.proc.limits;
	res->attempted = true;
	rc = at_app_sandbox_run(&run->layout, &so, &res->run, err);
	/*
	 * overlayfs refused the task's git view (an old kernel, an upper on a
	 * file system without user xattrs): the command did not run; it runs
	 * once more, with git read-only, as before views existed.
	 */
	if (rc == AT_ESANDBOX && res->run.failed_step == AT_STEP_OVERLAY && run->layout.upper[0]) {
		at_strlist_pushf(&res->warnings, "git is read-only in this run: %s", err->msg);
		run->layout.upper[0] = run->layout.work[0] = '\0';
		at_app_gitview_close(&run->view);
		at_run_result_release(&res->run);
		*err = (struct at_error)AT_ERROR_INIT;
		rc = at_app_sandbox_run(&run->layout, &so, &res->run, err);
	}
	res->exit_code = rc < 0 ? AT_RUN_SETUP : res->run.exit_code;
	audit(run, o, res, rc < 0 ? err : NULL);
	return rc;  /* the proxy's term stays set for the caller's report (requests) */
}

/* Last, once the run is recorded and its lock dropped: the layers' locks (the scratch stays: aside). */
static void drop_layers(struct run *run)
{
	size_t i;

	at_app_gitview_close(&run->view);
	for (i = 0; i < run->ncaches; i++)
		at_app_cache_release(&run->caches[i]);
}

int at_app_run(const struct at_app *app, const struct at_app_run_opts *o,
	       struct at_app_run_result *out, struct at_error *err)
{
	struct run run;
	int rc;

	memset(&run, 0, sizeof(run));
	run.lock = (struct at_run_lock)AT_RUN_LOCK_INIT;
	at_app_publish_init(&run.publish);
	at_app_notify_init(&run.notify);
	at_app_gitview_init(&run.view);
	memset(out, 0, sizeof(*out));
	at_run_result_init(&out->run);
	if (!o->argv || !o->argv[0])
		return at_error_set(err, AT_EUSAGE, "no command to run");
	if ((rc = check_opts(o, err)) < 0)
		return rc;
	rc = prepare(app, o, &run, out, err);
	if (rc == 0)
		rc = run_sandboxed(&run, o, out, err);
	if (out->attempted)
		at_app_notify_end(&run.notify, out->exit_code);
	if (out->attempted)
		import_after(&run, out);
	if (out->attempted && o->changes)
		changes_after(&run, out);
	if (out->attempted && run.home[0])
		at_app_home_record(run.r, &run.task, run.home, o->tmpfs_size[AT_TMPFS_HOME],
				   &out->warnings);
	at_sandbox_etc_free(run.etc);
	at_app_publish_stop(&run.publish);
	at_app_notify_release(&run.notify);
	at_runs_leave(&run.lock);
	drop_layers(&run);
	free(run.binds);
	free(run.caches);
	at_app_runconf_release(&run.conf);
	if (o->proxy && o->proxy->term == &run.secrets.term)
		o->proxy->term = NULL;
	at_app_secrets_release(&run.secrets);
	free(run.cwd);
	free(run.comments);
	at_strlist_release(&run.env);
	at_app_layout_release(&run.layout);
	at_repo_free(run.r);
	return rc;
}

void at_app_run_result_release(struct at_app_run_result *res)
{
	if (!res)
		return;
	at_run_result_release(&res->run);
	at_change_set_release(&res->changes);
	at_strlist_release(&res->binds);
	at_strlist_release(&res->warnings);
	at_json_free(res->comments);
	res->comments = NULL;
}
