#include "core/runconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "core/name.h"
#include "core/parse.h"
#include "core/util.h"

struct ctx {
	const char *what, *home;
	struct at_error *err;
};

static int bad(const struct ctx *c, const char *key, const char *why)
{
	return at_error_set(c->err, AT_EUSAGE, "'%s': %s '%s'", c->what, why, key);
}

/* Whether the object j has a member named like m before m: a repeated key is refused. */
static bool repeated(const at_json *j, const at_json *m)
{
	const at_json *p;

	for (p = at_json_child(j); p && p != m; p = at_json_next(p))
		if (strcmp(at_json_key(p), at_json_key(m)) == 0)
			return true;
	return false;
}

/* "~/x" under home; the result must be absolute. */
static int expand(const struct ctx *c, const char *key, const char *v, bool must_be_path,
		  struct at_strlist *out, const char *prefix)
{
	const char *rest = v;
	const char *head = "";

	if (strncmp(v, "~/", 2) == 0 || strcmp(v, "~") == 0) {
		if (!c->home)
			return bad(c, key, "'~' but no home directory, in");
		head = c->home;
		rest = v + 1;
	}
	if (must_be_path && !head[0] && v[0] != '/')
		return bad(c, key, "a path that is neither absolute nor under '~/', in");
	if (strlen(head) + strlen(rest) + strlen(prefix) >= 4096)
		return bad(c, key, "a value too long, in");
	return at_strlist_pushf(out, "%s%s%s", prefix, head, rest) < 0
		       ? at_error_set(c->err, AT_ESYS, "out of memory") : 0;
}

static int string_list(const struct ctx *c, const at_json *j, const char *key, bool paths,
		       struct at_strlist *out)
{
	size_t i, n;

	if (!at_json_is_array(j) || (n = at_json_size(j)) > AT_RUNCONF_MAX_ITEMS)
		return bad(c, key, "not a list of at most 256 strings:");
	for (i = 0; i < n; i++) {
		const char *v = at_json_string_value(at_json_at(j, i));
		int rc;

		if (!v || !v[0])
			return bad(c, key, "not a string (or empty), in");
		if ((rc = expand(c, key, v, paths, out, "")) < 0)
			return rc;
	}
	return 0;
}

/*
 * A list of forwards: PORT[:INNER] each (core/parse.h), what else one may
 * not be checked where it is used; publish's [HOSTPORT:]PORT has the same
 * syntax. what names it in the error.
 */
static int port_pairs(const struct ctx *c, const at_json *j, const char *key, const char *what,
		      struct at_strlist *out)
{
	size_t i, n = at_json_size(j);
	int rc;

	if ((rc = string_list(c, j, key, false, out)) < 0)
		return rc;
	for (i = out->n - n; i < out->n; i++) {
		uint16_t host, inner;
		if (!at_parse_forward(out->v[i], &host, &inner))
			return bad(c, key, what);
	}
	return 0;
}

/* An argv, run without a shell: a non-empty list of strings. */
static int notify_command(const struct ctx *c, const at_json *j, struct at_strlist *out)
{
	int rc = string_list(c, j, "notify_command", false, out);

	if (rc == 0 && out->n == 0)
		return bad(c, "notify_command", "an empty command:");
	return rc;
}

static bool env_name_ok(const char *s)
{
	size_t i;

	if (!s[0] || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (i = 0; s[i]; i++)
		if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return false;
	return i < 256;
}

static int env_object(const struct ctx *c, const at_json *j, const char *key,
		      struct at_strlist *out)
{
	const at_json *m;
	size_t n = 0;
	int rc;

	if (!at_json_is_object(j))
		return bad(c, key, "not an object of NAME: value:");
	for (m = at_json_child(j); m; m = at_json_next(m)) {
		const char *name = at_json_key(m), *v = at_json_string_value(m);
		char prefix[260];

		if (++n > AT_RUNCONF_MAX_ITEMS || !name || !env_name_ok(name) || !v)
			return bad(c, key, "not NAME: \"value\" (a name of letters, digits and _), in");
		snprintf(prefix, sizeof(prefix), "%s=", name);
		if ((rc = expand(c, key, v, false, out, prefix)) < 0)
			return rc;
	}
	return 0;
}

static const char *const limit_keys[AT_LIMIT_COUNT] = {
	[AT_LIMIT_MEMORY] = "memory", [AT_LIMIT_PIDS] = "pids", [AT_LIMIT_CPU] = "cpu",
	[AT_LIMIT_FSIZE] = "file-size", [AT_LIMIT_CPUS] = "cpus",
};

static int one_limit(const struct ctx *c, int l, const at_json *v, uint64_t *out)
{
	struct at_error e = AT_ERROR_INIT;
	char buf[64];
	const char *s = at_json_string_value(v);
	int rc;

	if (!s && at_json_is_number(v)) {
		double d = at_json_number_value(v);

		if (!(d > 0 && d < 1e15))
			return bad(c, limit_keys[l], "a limit out of range:");
		snprintf(buf, sizeof(buf), l == AT_LIMIT_CPUS ? "%g" : "%.0f", d);
		s = buf;
	}
	if (!s)
		return bad(c, limit_keys[l], "a limit that is not a number or a string:");
	switch (l) {
	case AT_LIMIT_MEMORY:
	case AT_LIMIT_FSIZE: rc = at_parse_size(s, out, &e); break;
	case AT_LIMIT_PIDS: rc = at_parse_count(s, 4194304, out, &e); break;
	case AT_LIMIT_CPU: rc = at_parse_count(s, 100000000, out, &e); break;
	default: rc = at_parse_cpus(s, out, &e); break;
	}
	if (rc < 0 || *out == 0)
		return bad(c, limit_keys[l], "an invalid limit:");
	return 0;
}

static int limits_object(const struct ctx *c, const at_json *j, uint64_t *limits)
{
	const at_json *m;
	int l, rc;

	if (!at_json_is_object(j))
		return bad(c, "limits", "not an object:");
	for (m = at_json_child(j); m; m = at_json_next(m)) {
		for (l = 0; l < AT_LIMIT_COUNT; l++)
			if (limit_keys[l] && strcmp(at_json_key(m), limit_keys[l]) == 0)
				break;
		if (l == AT_LIMIT_COUNT)
			return bad(c, at_json_key(m), "unknown limit");
		if (repeated(j, m))
			return bad(c, at_json_key(m), "a repeated limit");
		if ((rc = one_limit(c, l, m, &limits[l])) < 0)
			return rc;
	}
	return 0;
}

/* A list of environment variables' names (the secrets a run uses). */
static int name_list(const struct ctx *c, const at_json *j, const char *key,
		     struct at_strlist *out)
{
	size_t n = out->n;
	int rc;

	if ((rc = string_list(c, j, key, false, out)) < 0)
		return rc;
	for (; n < out->n; n++)
		if (!env_name_ok(out->v[n]))
			return bad(c, key, "not a list of names (letters, digits and _), in");
	return 0;
}

/* "x-api-key", "bearer", "basic": a header's name of letters, digits and '-', lower case. */
static bool header_ok(const char *s)
{
	size_t i;

	for (i = 0; s[i]; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
			return false;
	return i > 0 && i <= 64;
}

static int one_secret(const struct ctx *c, const at_json *j, const char *key,
		      struct at_runconf_secret *s)
{
	const at_json *m;
	const char *v;
	int rc = 0;

	if (!at_json_is_object(j))
		return bad(c, key, "not an object of hosts, from and header:");
	for (m = at_json_child(j); m && rc == 0; m = at_json_next(m)) {
		const char *k = at_json_key(m);
		char sub[160];

		snprintf(sub, sizeof(sub), "%s.%.60s", key, k);
		v = at_json_string_value(m);
		if (repeated(j, m))
			rc = bad(c, sub, "a repeated key");
		else if (strcmp(k, "hosts") == 0)
			rc = string_list(c, m, sub, false, &s->hosts);
		else if (strcmp(k, "from") == 0 && v &&
			 (strncmp(v, "env:", 4) == 0 || strncmp(v, "file:", 5) == 0 ||
			  strncmp(v, "command:", 8) == 0) && strlen(v) < 4096)
			s->from = strdup(v);
		else if (strcmp(k, "from") == 0)
			rc = bad(c, sub, "not \"env:NAME\", \"file:PATH\" or \"command:ARGV...\":");
		else if (strcmp(k, "header") == 0 && v && header_ok(v))
			s->header = strdup(v);
		else if (strcmp(k, "header") == 0)
			rc = bad(c, sub, "not a header's name in lower case (or bearer, basic):");
		else
			rc = bad(c, sub, "unknown key");
		if (rc == 0 && ((strcmp(k, "from") == 0 && !s->from) ||
				(strcmp(k, "header") == 0 && !s->header)))
			rc = at_error_set(c->err, AT_ESYS, "out of memory");
	}
	if (rc == 0 && s->hosts.n == 0)
		rc = bad(c, key, "no hosts for");
	return rc;
}

/* The top-level "secrets" of the user's file: NAME -> definition. */
static int parse_secrets(const struct ctx *c, const at_json *j, struct at_runconf *conf)
{
	const at_json *m;
	int rc;

	if (!at_json_is_object(j))
		return bad(c, "secrets", "not an object of NAME: {hosts, from}:");
	for (m = at_json_child(j); m; m = at_json_next(m)) {
		const char *name = at_json_key(m);
		struct at_runconf_secret *s;
		char key[96];

		snprintf(key, sizeof(key), "secrets.%.60s", name);
		if (!env_name_ok(name) || repeated(j, m))
			return bad(c, key, "an invalid or repeated secret name (letters, digits, _):");
		if (conf->nsecrets == AT_RUNCONF_SECRETS_MAX)
			return bad(c, "secrets", "more than 32 in");
		if (!conf->secrets && !(conf->secrets = calloc(AT_RUNCONF_SECRETS_MAX,
							       sizeof(*conf->secrets))))
			return at_error_set(c->err, AT_ESYS, "out of memory");
		s = &conf->secrets[conf->nsecrets++];
		if (!(s->name = strdup(name)))
			return at_error_set(c->err, AT_ESYS, "out of memory");
		if ((rc = one_secret(c, m, key, s)) < 0)
			return rc;
		if (!s->from && asprintf(&s->from, "env:%s", name) < 0) {
			s->from = NULL;
			return at_error_set(c->err, AT_ESYS, "out of memory");
		}
	}
	return 0;
}

static int one_request(const struct ctx *c, const at_json *j, const char *key,
		       struct at_runconf_request *r)
{
	const at_json *m;
	size_t i;
	int rc = 0;

	if (!at_json_is_object(j))
		return bad(c, key, "not an object of methods and paths:");
	for (m = at_json_child(j); m && rc == 0; m = at_json_next(m)) {
		const char *k = at_json_key(m);
		char sub[400];

		snprintf(sub, sizeof(sub), "%s.%.60s", key, k);
		if (repeated(j, m))
			rc = bad(c, sub, "a repeated key");
		else if (strcmp(k, "methods") == 0)
			rc = string_list(c, m, sub, false, &r->methods);
		else if (strcmp(k, "paths") == 0)
			rc = string_list(c, m, sub, false, &r->paths);
		else
			rc = bad(c, sub, "unknown key");
	}
	for (i = 0; rc == 0 && i < r->methods.n; i++)
		if (strspn(r->methods.v[i], "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != strlen(r->methods.v[i]))
			rc = bad(c, key, "a method that is not in upper case, in");
	for (i = 0; rc == 0 && i < r->paths.n; i++)
		if (r->paths.v[i][0] != '/')
			rc = bad(c, key, "a path that does not start with '/', in");
	return rc;
}

static int parse_requests(const struct ctx *c, const at_json *j, struct at_runconf *conf)
{
	const at_json *m;
	size_t n = at_json_size(j);
	int rc;

	if (!at_json_is_object(j) || n > AT_RUNCONF_MAX_ITEMS)
		return bad(c, "requests", "not an object of at most 256 HOST: {methods, paths}:");
	if (n && !(conf->requests = calloc(n, sizeof(*conf->requests))))
		return at_error_set(c->err, AT_ESYS, "out of memory");
	for (m = at_json_child(j); m; m = at_json_next(m)) {
		struct at_runconf_request *r = &conf->requests[conf->nrequests++];
		char key[300];

		snprintf(key, sizeof(key), "requests.%.256s", at_json_key(m));
		if (!at_json_key(m)[0] || repeated(j, m))
			return bad(c, key, "an empty or repeated host:");
		if (!(r->host = strdup(at_json_key(m))))
			return at_error_set(c->err, AT_ESYS, "out of memory");
		if ((rc = one_request(c, m, key, r)) < 0)
			return rc;
	}
	return 0;
}

/* Seconds, more than 0 and at most a day, into *ms. */
static int seconds(const struct ctx *c, const at_json *j, const char *key, uint64_t *ms)
{
	double v;

	if (!at_json_is_number(j) || !((v = at_json_number_value(j)) > 0 && v <= 86400))
		return bad(c, key, "not seconds from 1 to 86400:");
	*ms = (uint64_t)(v * 1000);
	return 0;
}

/* One setup entry: an argv, or {"run": argv, "allow_hosts": [...], "timeout": SEC}. */
static int one_setup(const struct ctx *c, const at_json *j, const char *key,
		     struct at_runconf_setup *s)
{
	const at_json *m;
	char sub[160];
	int rc = 0;

	if (at_json_is_array(j)) {
		rc = string_list(c, j, key, false, &s->argv);
	} else if (!at_json_is_object(j)) {
		return bad(c, key, "not a command (a list of strings) nor {run, allow_hosts, timeout}:");
	} else {
		for (m = at_json_child(j); m && rc == 0; m = at_json_next(m)) {
			const char *k = at_json_key(m);

			snprintf(sub, sizeof(sub), "%s.%.60s", key, k);
			if (repeated(j, m))
				rc = bad(c, sub, "a repeated key");
			else if (strcmp(k, "run") == 0)
				rc = string_list(c, m, sub, false, &s->argv);
			else if (strcmp(k, "allow_hosts") == 0)
				rc = string_list(c, m, sub, false, &s->allow_hosts);
			else if (strcmp(k, "timeout") == 0)
				rc = seconds(c, m, sub, &s->timeout_ms);
			else
				rc = bad(c, sub, "unknown key");
		}
	}
	if (rc == 0 && s->argv.n == 0)
		return bad(c, key, "no command:");
	return rc;
}

static int parse_setup(const struct ctx *c, const at_json *j, struct at_runconf *conf)
{
	size_t n = at_json_size(j);
	char key[64];
	int rc;

	if (!at_json_is_array(j) || n > AT_RUNCONF_SETUP_MAX)
		return bad(c, "setup", "not a list of at most 32 commands:");
	if (n && !(conf->setup = calloc(n, sizeof(*conf->setup))))
		return at_error_set(c->err, AT_ESYS, "out of memory");
	for (size_t i = 0; i < n; i++) {
		snprintf(key, sizeof(key), "setup[%zu]", i);
		conf->nsetup++;
		if ((rc = one_setup(c, at_json_at(j, i), key, &conf->setup[i])) < 0)
			return rc;
	}
	return 0;
}

/* One "run" or profile object; where names it for messages ("run", "profiles.rust"). */
static int parse_set(const struct ctx *c, const at_json *j, const char *where,
		     struct at_runconf_set *s)
{
	const at_json *m;
	char key[128];
	int rc = 0;

	if (!at_json_is_object(j))
		return bad(c, where, "not an object:");
	for (m = at_json_child(j); m && rc == 0; m = at_json_next(m)) {
		const char *k = at_json_key(m);

		snprintf(key, sizeof(key), "%s.%.60s", where, k);
		if (repeated(j, m))
			rc = bad(c, key, "a repeated key");
		else if (strcmp(k, "ro") == 0)
			rc = string_list(c, m, key, true, &s->ro);
		else if (strcmp(k, "path") == 0)
			rc = string_list(c, m, key, true, &s->path);
		else if (strcmp(k, "cache") == 0)
			rc = string_list(c, m, key, true, &s->cache);
		else if (strcmp(k, "allow_hosts") == 0)
			rc = string_list(c, m, key, false, &s->allow_hosts);
		else if (strcmp(k, "forward") == 0)
			rc = port_pairs(c, m, key, "not PORT[:INNER] (ports from 1 to 65535), in",
					&s->forward);
		else if (strcmp(k, "publish") == 0)
			rc = port_pairs(c, m, key, "not [HOSTPORT:]PORT (ports from 1 to 65535), in",
					&s->publish);
		else if ((strcmp(k, "deny_private") == 0 || strcmp(k, "allow_private") == 0 ||
			  strcmp(k, "notify") == 0) && !at_json_is_bool(m))
			rc = bad(c, key, "not true or false:");
		else if (strcmp(k, "deny_private") == 0)
			s->deny_private = at_json_bool_value(m);
		else if (strcmp(k, "allow_private") == 0)
			s->allow_private = at_json_bool_value(m);
		else if (strcmp(k, "notify") == 0)
			s->notify = at_json_bool_value(m);
		else if (strcmp(k, "env") == 0)
			rc = env_object(c, m, key, &s->env);
		else if (strcmp(k, "limits") == 0)
			rc = limits_object(c, m, s->limits);
		else if (strcmp(k, "secrets") == 0)
			rc = name_list(c, m, key, &s->secrets);
		else
			rc = bad(c, key, "unknown key");
	}
	return rc;
}

static void set_release(struct at_runconf_set *s)
{
	at_strlist_release(&s->ro);
	at_strlist_release(&s->env);
	at_strlist_release(&s->path);
	at_strlist_release(&s->cache);
	at_strlist_release(&s->allow_hosts);
	at_strlist_release(&s->forward);
	at_strlist_release(&s->publish);
	at_strlist_release(&s->secrets);
}

void at_runconf_secret_release(struct at_runconf_secret *s)
{
	free(s->name);
	free(s->from);
	free(s->header);
	at_strlist_release(&s->hosts);
	memset(s, 0, sizeof(*s));
}

void at_runconf_setup_release(struct at_runconf_setup *s)
{
	at_strlist_release(&s->argv);
	at_strlist_release(&s->allow_hosts);
	memset(s, 0, sizeof(*s));
}

void at_runconf_request_release(struct at_runconf_request *r)
{
	free(r->host);
	at_strlist_release(&r->methods);
	at_strlist_release(&r->paths);
	memset(r, 0, sizeof(*r));
}

static int parse_profiles(const struct ctx *c, const at_json *j, struct at_runconf *conf)
{
	const at_json *m;
	size_t n = 0;
	int rc;

	if (!at_json_is_object(j))
		return bad(c, "profiles", "not an object:");
	for (m = at_json_child(j); m; m = at_json_next(m))
		n++;
	if (n > AT_RUNCONF_MAX_ITEMS)
		return bad(c, "profiles", "more than 256 in");
	if (n && !(conf->profiles = calloc(n, sizeof(*conf->profiles))))
		return at_error_set(c->err, AT_ESYS, "out of memory");
	for (m = at_json_child(j); m; m = at_json_next(m)) {
		struct at_runconf_profile *p = &conf->profiles[conf->nprofiles];
		char where[80];

		if (!at_name_valid(at_json_key(m)) || at_runconf_profile(conf, at_json_key(m)))
			return bad(c, at_json_key(m), "an invalid or repeated profile name");
		if (!(p->name = strdup(at_json_key(m))))
			return at_error_set(c->err, AT_ESYS, "out of memory");
		conf->nprofiles++;
		snprintf(where, sizeof(where), "profiles.%s", p->name);
		if ((rc = parse_set(c, m, where, &p->set)) < 0)
			return rc;
	}
	return 0;
}

int at_runconf_parse(struct at_runconf *out, const char *text, const char *what,
		     const char *home, struct at_error *err)
{
	struct ctx c = { what, home, err };
	struct at_runconf conf;
	const at_json *m;
	at_json *o = NULL;
	int rc;

	memset(&conf, 0, sizeof(conf));
	if (strlen(text) > AT_RUNCONF_MAX_SIZE)
		return at_error_set(err, AT_EUSAGE, "'%s': larger than %zu bytes", what,
				    AT_RUNCONF_MAX_SIZE);
	if ((rc = at_json_parse(&o, text, what, err)) < 0) {
		err->code = AT_EUSAGE;
		return AT_EUSAGE;
	}
	if (!at_json_is_object(o))
		rc = at_error_set(err, AT_EUSAGE, "'%s': not a JSON object", what);
	for (m = at_json_child(o); rc == 0 && m; m = at_json_next(m)) {
		if (repeated(o, m))
			rc = bad(&c, at_json_key(m), "a repeated key");
		else if (strcmp(at_json_key(m), "run") == 0)
			rc = parse_set(&c, m, "run", &conf.run);
		else if (strcmp(at_json_key(m), "profiles") == 0)
			rc = parse_profiles(&c, m, &conf);
		else if (strcmp(at_json_key(m), "secrets") == 0)
			rc = parse_secrets(&c, m, &conf);
		else if (strcmp(at_json_key(m), "requests") == 0)
			rc = parse_requests(&c, m, &conf);
		else if (strcmp(at_json_key(m), "notify_command") == 0)
			rc = notify_command(&c, m, &conf.notify_command);
		else if (strcmp(at_json_key(m), "setup") == 0)
			rc = parse_setup(&c, m, &conf);
		else if (strcmp(at_json_key(m), "setup_timeout") == 0)
			rc = seconds(&c, m, "setup_timeout", &conf.setup_timeout_ms);
		else
			rc = bad(&c, at_json_key(m), "unknown key");
	}
	at_json_free(o);
	if (rc < 0) {
		at_runconf_release(&conf);
		return rc;
	}
	*out = conf;
	return 0;
}

void at_runconf_release(struct at_runconf *c)
{
	size_t i;

	if (!c)
		return;
	set_release(&c->run);
	for (i = 0; i < c->nprofiles; i++) {
		free(c->profiles[i].name);
		set_release(&c->profiles[i].set);
	}
	free(c->profiles);
	at_strlist_release(&c->notify_command);
	for (i = 0; i < c->nsetup; i++)
		at_runconf_setup_release(&c->setup[i]);
	free(c->setup);
	for (i = 0; i < c->nsecrets; i++)
		at_runconf_secret_release(&c->secrets[i]);
	free(c->secrets);
	for (i = 0; i < c->nrequests; i++)
		at_runconf_request_release(&c->requests[i]);
	free(c->requests);
	memset(c, 0, sizeof(*c));
}

const struct at_runconf_set *at_runconf_profile(const struct at_runconf *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->nprofiles; i++)
		if (c->profiles[i].name && strcmp(c->profiles[i].name, name) == 0)
			return &c->profiles[i].set;
	return NULL;
}
