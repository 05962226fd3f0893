/*
 * runconf.c - the run configuration of `run` (core/runconf.h): the user's
 * file, ${XDG_CONFIG_HOME:-~/.config}/agenttask/config.json, and the
 * repository's, .agenttask/run.json read from the task's base commit (never
 * from the worktree, which is the agent's), each with its "run" and the
 * profile asked for.
 *
 * Precedence, lowest first: the built-in defaults; the user's "run"; the
 * user's profile; the repository's "run"; the repository's profile; the
 * command line, which always wins. Lists (ro, path, cache, allow_hosts,
 * forward) add up; env and limits are replaced by a later source;
 * deny_private holds once any source says true (none can lift it);
 * allow_private (private addresses dialled) comes from the user's file only.
 *
 * The repository can ask for less than the user allows, never for more:
 * its ro and cache paths must be normal and, resolved, lie within a path
 * the user's file gives as ro or cache (resolved too), its allow_hosts must be among the user's, its forwards
 * must name host ports the user's forwards name (a forward reaches a
 * service on the host's loopback: a database, a dev server), its limits no
 * higher than what would apply without it; it never says allow_private. Its deny_private can only
 * narrow. It cannot bind anything writable at all (there is no such key).
 * Breaking this is an error naming the file and the key, and nothing runs.
 */
#include "app/internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/esc.h"
#include "core/parse.h"
#include "core/util.h"
#include "git/blob.h"

static const char *env_of(const struct at_app *app, const char *name)
{
	size_t i, n = strlen(name);

	for (i = 0; app && app->environ && app->environ[i]; i++)
		if (strncmp(app->environ[i], name, n) == 0 && app->environ[i][n] == '=')
			return app->environ[i] + n + 1;
	return NULL;
}

/* The user's file: absent is fine, unreadable is not. */
static int user_text(const struct at_app *app, char *what, size_t size, char **text,
		     struct at_error *err)
{
	const char *xdg = env_of(app, "XDG_CONFIG_HOME"), *home = env_of(app, "HOME");
	size_t len;

	*text = NULL;
	if (xdg && xdg[0] == '/')
		at_fmt(what, size, "%s/agenttask/config.json", xdg);
	else if (home && home[0] == '/')
		at_fmt(what, size, "%s/.config/agenttask/config.json", home);
	else
		return 0;
	if (!(*text = at_read_file(what, AT_RUNCONF_MAX_SIZE, &len)) && errno != ENOENT)
		return at_error_sys(err, AT_EUSAGE, "cannot read '%s'", what);
	if (*text && strlen(*text) != len)
		return at_error_set(err, AT_EUSAGE, "'%s': holds a NUL byte", what);
	return 0;
}

static int repo_text(struct at_repo *r, const struct at_task *t, char *what, size_t size,
		     char **text, struct at_error *err)
{
	struct at_error e = AT_ERROR_INIT;
	struct at_oid base;
	size_t len;
	int rc;

	*text = NULL;
	at_fmt(what, size, "%.12s:%s", t->base_commit, AT_RUNCONF_REPO_PATH);
	if (at_oid_parse(&base, t->base_commit) < 0)
		return at_error_set(err, AT_ECORRUPT, "bad base commit of '%s'", t->name);
	rc = at_git_read_file_at(r, &base, AT_RUNCONF_REPO_PATH, AT_RUNCONF_MAX_SIZE, text, &len,
				 &e);
	if (rc == AT_ENOTFOUND)
		return 0;
	if (rc < 0)
		return at_error_set(err, AT_EUSAGE, "'%s': %s", what, e.msg);
	if (strlen(*text) != len)
		return at_error_set(err, AT_EUSAGE, "'%s': holds a NUL byte", what);
	return 0;
}

static int push_all(struct at_strlist *to, const struct at_strlist *from, struct at_error *err)
{
	if (at_strlist_push_all(to, from) < 0)
		return at_error_set(err, AT_ESYS, "out of memory");
	return 0;
}

static int add_set(struct at_app_runconf *out, const struct at_runconf_set *s,
		   struct at_error *err)
{
	int l;

	if (push_all(&out->ro, &s->ro, err) < 0 || push_all(&out->env, &s->env, err) < 0 ||
	    push_all(&out->path, &s->path, err) < 0 || push_all(&out->cache, &s->cache, err) < 0 ||
	    push_all(&out->allow_hosts, &s->allow_hosts, err) < 0 ||
	    push_all(&out->forward, &s->forward, err) < 0 ||
	    push_all(&out->publish, &s->publish, err) < 0 ||
	    push_all(&out->secrets, &s->secrets, err) < 0)
		return err->code;
	out->deny_private |= s->deny_private;
	out->notify |= s->notify;
	out->allow_private |= s->allow_private;
	for (l = 0; l < AT_LIMIT_COUNT; l++)
		if (s->limits[l])
			out->limits[l] = s->limits[l];
	return 0;
}

/* Whether real (resolved) lies within one of l's paths, each resolved too. */
static bool within_resolved(const char *real, const struct at_strlist *l)
{
	char dir[PATH_MAX];
	size_t i;

	for (i = 0; i < l->n; i++)
		if (realpath(l->v[i], dir) && at_sandbox_path_within(real, dir))
			return true;
	return false;
}

/*
 * The repository's path against the user's ro and cache paths, as the
 * kernel will reach it: written normal (no ".", "..", "//", which a bind
 * would normalise after the check: "~/.npm/../.ssh"), and resolved, links
 * followed, within one of the user's, resolved alike (a link below a user
 * path leads out of it). NULL when it is; else why not.
 */
static const char *not_within(const char *path, const struct at_strlist *a,
			      const struct at_strlist *b)
{
	char real[PATH_MAX];

	if (!at_sandbox_path_normal(path))
		return "which is not a normal path (no '.', '..', '//' or trailing '/')";
	if (!realpath(path, real))
		return "which cannot be resolved";
	if (!within_resolved(real, a) && !within_resolved(real, b))
		return "which your config.json does not give (ro or cache)";
	return NULL;
}

static bool listed(const char *s, const struct at_strlist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (strcmp(s, l->v[i]) == 0)
			return true;
	return false;
}

/* A forward whose host port (what it reaches) one of the user's forwards names too. */
static bool forward_granted(const char *spec, const struct at_strlist *user)
{
	uint16_t host, inner, uhost, uinner;
	size_t i;

	if (!at_parse_forward(spec, &host, &inner))
		return false;
	for (i = 0; i < user->n; i++)
		if (at_parse_forward(user->v[i], &uhost, &uinner) && uhost == host)
			return true;
	return false;
}

/*
 * A publish the user's file publishes too: the same sandbox port, and the
 * same host port when the repository's names one (a repository never picks
 * a host port of its own, nor a sandbox port the person did not publish).
 */
static bool publish_granted(const char *spec, const struct at_strlist *user)
{
	uint16_t host, port, uhost, uport;
	bool named = strchr(spec, ':') != NULL;
	size_t i;

	if (!at_parse_forward(spec, named ? &host : &port, named ? &port : &host))
		return false;
	for (i = 0; i < user->n; i++) {
		bool unamed = strchr(user->v[i], ':') != NULL;
		if (!at_parse_forward(user->v[i], unamed ? &uhost : &uport,
				      unamed ? &uport : &uhost))
			continue;
		if (uport == port && (!named || (unamed && uhost == host)))
			return true;
	}
	return false;
}

/* The repository's set against what the user's gave (user) and the limits so far. */
static int check_less(const struct at_runconf_set *s, const struct at_app_runconf *user,
		      const char *what, struct at_error *err)
{
	struct at_limits dflt = { 0 };
	size_t i;
	int l;

	for (i = 0; i < s->ro.n + s->cache.n; i++) {
		const char *p = i < s->ro.n ? s->ro.v[i] : s->cache.v[i - s->ro.n];
		const char *why = not_within(p, &user->ro, &user->cache);
		char esc[200];

		if (why)
			return at_error_set(err, AT_EUSAGE, "'%s': asks for '%s', %s", what,
					    at_esc(esc, sizeof(esc), p), why);
	}
	if (s->allow_private)
		return at_error_set(err, AT_EUSAGE, "'%s': allow_private is yours to give (your "
				    "config.json, --allow-private), not a repository's", what);
	for (i = 0; i < s->allow_hosts.n; i++)
		if (!listed(s->allow_hosts.v[i], &user->allow_hosts))
			return at_error_set(err, AT_EUSAGE, "'%s': allow_hosts '%s' is not among "
					    "your config.json's", what, s->allow_hosts.v[i]);
	for (i = 0; i < s->forward.n; i++)
		if (!forward_granted(s->forward.v[i], &user->forward))
			return at_error_set(err, AT_EUSAGE, "'%s': forward '%s' reaches a host port "
					    "your config.json does not forward", what,
					    s->forward.v[i]);
	for (i = 0; i < s->publish.n; i++)
		if (!publish_granted(s->publish.v[i], &user->publish))
			return at_error_set(err, AT_EUSAGE, "'%s': publish '%s' is not among your "
					    "config.json's", what, s->publish.v[i]);
	for (i = 0; i < s->secrets.n; i++)
		if (!at_app_runconf_def(user, s->secrets.v[i]))
			return at_error_set(err, AT_EUSAGE, "'%s': secret '%s' is not among your "
					    "config.json's", what, s->secrets.v[i]);
	memcpy(dflt.value, user->limits, sizeof(dflt.value));
	at_sandbox_defaults(&dflt);
	for (l = 0; l < AT_LIMIT_COUNT; l++)
		if (s->limits[l] && dflt.value[l] && s->limits[l] > dflt.value[l])
			return at_error_set(err, AT_EUSAGE, "'%s': limits '%s' is more than "
					    "allowed", what, at_limit_name(l));
	return 0;
}

const struct at_runconf_secret *at_app_runconf_def(const struct at_app_runconf *c,
						   const char *name)
{
	for (size_t i = 0; i < c->ndefs; i++)
		if (strcmp(c->defs[i].name, name) == 0)
			return &c->defs[i];
	return NULL;
}

/* Is host among the user's: run.allow_hosts, or a host of the user's setup? */
static bool setup_host_granted(const char *host, const struct at_app_runconf *user)
{
	if (listed(host, &user->allow_hosts))
		return true;
	for (size_t i = 0; i < user->nsetup; i++)
		if (listed(host, &user->setup[i].allow_hosts))
			return true;
	return false;
}

/*
 * The file's setup, moved into out after the user's. A repository's reaches
 * only hosts the user's file allows, for no longer than the user's timeout.
 */
static int take_setup(struct at_app_runconf *out, struct at_runconf *conf, bool repo,
		      const char *what, struct at_error *err)
{
	uint64_t cap = out->setup_timeout_ms ? out->setup_timeout_ms : AT_RUNCONF_SETUP_TIMEOUT_MS;
	struct at_runconf_setup *v;

	for (size_t i = 0; repo && i < conf->nsetup; i++) {
		const struct at_runconf_setup *s = &conf->setup[i];
		for (size_t k = 0; k < s->allow_hosts.n; k++)
			if (!setup_host_granted(s->allow_hosts.v[k], out))
				return at_error_set(err, AT_EUSAGE, "'%s': setup[%zu] reaches '%s', "
						    "which is not among your config.json's hosts",
						    what, i, s->allow_hosts.v[k]);
		if (s->timeout_ms > cap)
			return at_error_set(err, AT_EUSAGE, "'%s': setup[%zu]'s timeout is more "
					    "than allowed", what, i);
	}
	if (repo && conf->setup_timeout_ms > cap)
		return at_error_set(err, AT_EUSAGE, "'%s': setup_timeout is more than allowed",
				    what);
	if (!repo && conf->setup_timeout_ms)
		out->setup_timeout_ms = conf->setup_timeout_ms;
	if (!conf->nsetup)
		return 0;
	v = realloc(out->setup, (out->nsetup + conf->nsetup) * sizeof(*v));
	if (!v)
		return at_error_set(err, AT_ESYS, "out of memory");
	memcpy(v + out->nsetup, conf->setup, conf->nsetup * sizeof(*v));
	out->setup = v;
	out->nsetup += conf->nsetup;
	free(conf->setup);
	conf->setup = NULL;
	conf->nsetup = 0;
	return 0;
}

/* The file's secrets (the user's) and request rules, moved into out. */
static int take_top(struct at_app_runconf *out, struct at_runconf *conf, struct at_error *err)
{
	struct at_runconf_request *v;

	if (conf->nsecrets) {
		out->defs = conf->secrets;
		out->ndefs = conf->nsecrets;
		conf->secrets = NULL;
		conf->nsecrets = 0;
	}
	if (!conf->nrequests)
		return 0;
	v = realloc(out->requests, (out->nrequests + conf->nrequests) * sizeof(*v));
	if (!v)
		return at_error_set(err, AT_ESYS, "out of memory");
	memcpy(v + out->nrequests, conf->requests, conf->nrequests * sizeof(*v));
	out->requests = v;
	out->nrequests += conf->nrequests;
	free(conf->requests);
	conf->requests = NULL;
	conf->nrequests = 0;
	return 0;
}

/*
 * One file into out. setup_only (`new`, which runs the setup and nothing
 * else): a repository's file is judged on its setup alone, so that a key
 * only runs use (and which they refuse) does not stop `new`.
 */
static int take(struct at_app_runconf *out, const char *text, const char *what,
		const char *home, const char *profile, bool repo, bool setup_only, bool *found,
		struct at_error *err)
{
	const struct at_runconf_set *ps = NULL;
	struct at_runconf conf;
	int rc;

	if (!text)
		return 0;
	if ((rc = at_runconf_parse(&conf, text, what, home, err)) < 0)
		return rc;
	if (profile && (ps = at_runconf_profile(&conf, profile)))
		*found = true;
	if (repo && setup_only) {
		rc = take_setup(out, &conf, repo, what, err);
		goto out;
	}
	if (repo && conf.nsecrets) {
		rc = at_error_set(err, AT_EUSAGE, "'%s': secrets are yours to define (your "
				  "config.json), not a repository's", what);
		goto out;
	}
	if (repo && conf.notify_command.n) {
		rc = at_error_set(err, AT_EUSAGE, "'%s': notify_command is yours to give (your "
				  "config.json), not a repository's", what);
		goto out;
	}
	if (!repo && conf.notify_command.n && at_strlist_push_all(&out->notify_command,
								  &conf.notify_command) < 0) {
		rc = at_error_set(err, AT_ESYS, "out of memory");
		goto out;
	}
	if ((rc = take_top(out, &conf, err)) < 0 ||
	    (rc = take_setup(out, &conf, repo, what, err)) < 0)
		goto out;
	if (repo && ((rc = check_less(&conf.run, out, what, err)) < 0 ||
		     (ps && (rc = check_less(ps, out, what, err)) < 0)))
		goto out;
	if ((rc = add_set(out, &conf.run, err)) == 0 && ps)
		rc = add_set(out, ps, err);
out:
	at_runconf_release(&conf);
	return rc;
}

/* Does text hold a JSON object with a "setup" or "setup_timeout" key? */
static bool has_setup(const char *text)
{
	at_json *o = NULL;
	bool yes;

	if (!text || at_json_parse(&o, text, "", NULL) < 0)
		return false;
	yes = at_json_is_object(o) && (at_json_get(o, "setup") || at_json_get(o, "setup_timeout"));
	at_json_free(o);
	return yes;
}

static int load(const struct at_app *app, struct at_repo *r, const struct at_task *t,
		const char *profile, bool setup_only, struct at_app_runconf *out,
		struct at_error *err)
{
	AT_AUTOFREE char *utext = NULL, *rtext = NULL;
	char uwhat[PATH_MAX], rwhat[PATH_MAX], home[PATH_MAX];
	const char *h = env_of(app, "HOME"), *hd;
	bool found = false;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!h || h[0] != '/' || !realpath(h, home))
		home[0] = '\0';
	hd = home[0] ? home : NULL;
	if ((rc = user_text(app, uwhat, sizeof(uwhat), &utext, err)) < 0 ||
	    (rc = repo_text(r, t, rwhat, sizeof(rwhat), &rtext, err)) < 0)
		return rc;
	/* `new` reads the files only when one has a setup: others are the runs' business. */
	if (setup_only && !has_setup(utext) && !has_setup(rtext))
		return 0;
	if ((rc = take(out, utext, uwhat, hd, profile, false, setup_only, &found, err)) < 0 ||
	    (rc = take(out, rtext, rwhat, hd, profile, true, setup_only, &found, err)) < 0)
		return rc;
	if (profile && !found)
		return at_error_set(err, AT_EUSAGE, "no profile '%s' in '%s' nor '%s'", profile,
				    utext ? uwhat : "~/.config/agenttask/config.json", rwhat);
	return 0;
}

int at_app_runconf_load(const struct at_app *app, struct at_repo *r, const struct at_task *t,
			const char *profile, struct at_app_runconf *out, struct at_error *err)
{
	return load(app, r, t, profile, false, out, err);
}

int at_app_runconf_load_setup(const struct at_app *app, struct at_repo *r,
			      const struct at_task *t, struct at_app_runconf *out,
			      struct at_error *err)
{
	return load(app, r, t, NULL, true, out, err);
}

void at_app_runconf_release(struct at_app_runconf *c)
{
	if (!c)
		return;
	at_strlist_release(&c->ro);
	at_strlist_release(&c->env);
	at_strlist_release(&c->path);
	at_strlist_release(&c->cache);
	at_strlist_release(&c->allow_hosts);
	at_strlist_release(&c->forward);
	at_strlist_release(&c->publish);
	at_strlist_release(&c->notify_command);
	for (size_t i = 0; i < c->nsetup; i++)
		at_runconf_setup_release(&c->setup[i]);
	free(c->setup);
	at_strlist_release(&c->secrets);
	for (size_t i = 0; i < c->ndefs; i++)
		at_runconf_secret_release(&c->defs[i]);
	free(c->defs);
	for (size_t i = 0; i < c->nrequests; i++)
		at_runconf_request_release(&c->requests[i]);
	free(c->requests);
	memset(c, 0, sizeof(*c));
}
