/*
 * secrets.c - the secrets and request rules of one run (app/internal.h):
 * which secrets it uses, their values loaded into a vault (core/vault.h),
 * their placeholders, the hosts the proxy terminates (net/term.h), the
 * task's CA and the sandbox's view of it.
 *
 * A run uses a secret when `--secret` names it, when a set of a run
 * configuration names it ("secrets": [...], defined in the user's file), or
 * when the user's file defines it for a host the run allows. Each host a
 * used secret goes to must be allowed by the run: a secret never widens the
 * network. A value that cannot be read, is empty, shorter than 8 bytes or
 * holds a control character stops the run before anything starts.
 */
#include "app/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/esc.h"
#include "core/util.h"
#include "net/tls.h"

#define VALUE_MIN 8
#define BUNDLE_MAX ((size_t)8 << 20)
#define SYSTEM_BUNDLE "/etc/ssl/certs/ca-certificates.crt"

/* What the tools inside read for their trust store: all point at the bundle. */
static const char *const ca_vars[] = {
	"SSL_CERT_FILE", "CURL_CA_BUNDLE", "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE",
	"GIT_SSL_CAINFO", "PIP_CERT", "CARGO_HTTP_CAINFO", "DENO_CERT", "AWS_CA_BUNDLE", NULL,
};

struct use {
	const char *name;
	const struct at_strlist *hosts;
	const char *from;
	const char *header;
	struct at_strlist own_hosts;  /* --secret NAME:HOST,... */
	char own_from[AT_NET_SECRET_NAME_MAX + 8];
};

static const char *env_of(const struct at_app *app, const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; app && app->environ && app->environ[i]; i++)
		if (strncmp(app->environ[i], name, n) == 0 && app->environ[i][n] == '=')
			return app->environ[i] + n + 1;
	return NULL;
}

int at_app_secrets_check_pass(const struct at_app *app, const struct at_app_secrets *s,
			      char *const *pass, size_t npass, struct at_error *err)
{
	for (size_t i = 0; i < s->term.nsecrets; i++) {
		const struct at_net_secret *sec = &s->term.secrets[i];

		for (size_t j = 0; j < npass; j++) {
			const char *v = env_of(app, pass[j]);

			if (strcmp(pass[j], sec->name) == 0 ||
			    (v && memmem(v, strlen(v), sec->value, sec->len)))
				return at_error_set(err, AT_EUSAGE, "--pass-env '%s' would put the "
						    "value of secret '%s' inside: its placeholder "
						    "is there already", pass[j], sec->name);
		}
	}
	return 0;
}

/* The output of argv (split at spaces, no shell), at most size - 1 bytes, into buf. */
static int run_source(const char *cmdline, char *buf, size_t size, size_t *len,
		      struct at_error *err)
{
	char line[4096], *argv[64], *save = NULL, *tok;
	posix_spawn_file_actions_t fa;
	extern char **environ;
	int p[2], status, argc = 0, rc;
	pid_t pid;
	ssize_t n;

	snprintf(line, sizeof(line), "%s", cmdline);
	for (tok = strtok_r(line, " \t", &save); tok && argc < 63; tok = strtok_r(NULL, " \t", &save))
		argv[argc++] = tok;
	argv[argc] = NULL;
	if (!argc)
		return at_error_set(err, AT_EUSAGE, "an empty command");
	if (pipe2(p, O_CLOEXEC) < 0)
		return at_error_sys(err, AT_ESYS, "cannot make a pipe");
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	if (rc != 0) {
		close(p[0]);
		errno = rc;
		return at_error_sys(err, AT_EUSAGE, "cannot run '%s'", argv[0]);
	}
	*len = 0;
	while (*len < size - 1 && (n = read(p[0], buf + *len, size - 1 - *len)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		*len += (size_t)n;
	}
	close(p[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return at_error_set(err, AT_EUSAGE, "'%s' failed (status %d)", argv[0],
				    WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	return 0;
}

/* The value where from says, into buf (wiped by the caller). */
static int read_source(const struct at_app *app, const char *from, char *buf, size_t size,
		       size_t *len, struct at_error *err)
{
	const char *v;
	int fd;
	ssize_t n;

	if (strncmp(from, "env:", 4) == 0) {
		if (!(v = env_of(app, from + 4)))
			return at_error_set(err, AT_EUSAGE, "the variable '%s' is not set", from + 4);
		*len = strlen(v);
		if (*len >= size)
			return at_error_set(err, AT_EUSAGE, "longer than %zu bytes", size - 1);
		memcpy(buf, v, *len);
		return 0;
	}
	if (strncmp(from, "command:", 8) == 0)
		return run_source(from + 8, buf, size, len, err);
	fd = open(from + 5, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return at_error_sys(err, AT_EUSAGE, "cannot read '%s'", from + 5);
	n = read(fd, buf, size);
	close(fd);
	if (n < 0)
		return at_error_sys(err, AT_EUSAGE, "cannot read '%s'", from + 5);
	if ((size_t)n >= size)
		return at_error_set(err, AT_EUSAGE, "'%s' is longer than %zu bytes", from + 5,
				    size - 1);
	*len = (size_t)n;
	return 0;
}

/* A placeholder: the value's first three bytes, then random ones of each byte's kind. */
static int placeholder(const char *value, size_t len, char **out, struct at_error *err)
{
	static const char lower[] = "abcdefghijklmnopqrstuvwxyz", upper[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
			  digit[] = "0123456789";
	unsigned char rnd[AT_NET_SECRET_MAX];
	char *p = malloc(len + 1);

	if (!p)
		return at_error_set(err, AT_ESYS, "out of memory");
	do {
		if (getrandom(rnd, len, 0) != (ssize_t)len) {
			free(p);
			return at_error_sys(err, AT_ESYS, "cannot get random bytes");
		}
		for (size_t i = 0; i < len; i++) {
			char c = value[i];
			if (i < 3)
				p[i] = c;
			else if (c >= 'a' && c <= 'z')
				p[i] = lower[rnd[i] % 26];
			else if (c >= 'A' && c <= 'Z')
				p[i] = upper[rnd[i] % 26];
			else if (c >= '0' && c <= '9')
				p[i] = digit[rnd[i] % 10];
			else if ((unsigned char)c >= 0x80 || c == '=')
				p[i] = lower[rnd[i] % 26];
			else
				p[i] = c;    /* '-', '_', '.': the value's shape */
		}
		p[len] = '\0';
	} while (memcmp(p, value, len) == 0);
	*out = p;
	return 0;
}

static int load(const struct at_app *app, const struct use *u, struct at_app_secrets *s,
		struct at_error *err)
{
	struct at_net_secret *sec = &s->term.secrets[s->term.nsecrets];
	char buf[AT_NET_SECRET_MAX + 2], esc[100];
	struct at_error e = AT_ERROR_INIT;
	size_t len = 0, i;
	int rc;

	rc = read_source(app, u->from, buf, sizeof(buf), &len, &e);
	while (rc == 0 && len && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
		len--;   /* a file's or a command's last newline */
	for (i = 0; rc == 0 && i < len; i++)
		if ((unsigned char)buf[i] < 0x20 || buf[i] == 0x7f)
			rc = at_error_set(&e, AT_EUSAGE, "it holds a control character");
	if (rc == 0 && len < VALUE_MIN)
		rc = at_error_set(&e, AT_EUSAGE, "it is %s (at least %d bytes)",
				  len ? "too short" : "empty", VALUE_MIN);
	if (rc == 0 && !(sec->value = at_vault_put(&s->vault, buf, len)))
		rc = at_error_set(&e, AT_EUSAGE, "the secrets are too large together");
	at_vault_wipe(buf, sizeof(buf));
	if (rc < 0)
		return at_error_set(err, AT_EUSAGE, "cannot load secret '%s' from '%s': %s", u->name,
				    at_esc(esc, sizeof(esc), u->from), e.msg);
	sec->len = len;
	snprintf(sec->name, sizeof(sec->name), "%s", u->name);
	sec->where = AT_NET_CRED_ANY;
	if (u->header && strcmp(u->header, "bearer") == 0)
		sec->where = AT_NET_CRED_BEARER;
	else if (u->header && strcmp(u->header, "basic") == 0)
		sec->where = AT_NET_CRED_BASIC;
	else if (u->header) {
		sec->where = AT_NET_CRED_HEADER;
		snprintf(sec->header, sizeof(sec->header), "%s", u->header);
	}
	if ((rc = placeholder(sec->value, len, &sec->placeholder, err)) < 0)
		return rc;
	s->term.nsecrets++;
	if (at_strlist_pushf(&s->env, "%s=%s", u->name, sec->placeholder) < 0)
		return at_error_set(err, AT_ESYS, "out of memory");
	return 0;
}

static struct at_net_term_host *host_entry(struct at_app_secrets *s, const char *host,
					   const char *what, struct at_error *err)
{
	char canon[AT_NET_HOST_MAX + 1], esc[300];
	struct at_net_term_host *v;
	struct in6_addr ip;
	bool is_ip;

	if (!at_net_host_canon(host, canon, &ip, &is_ip)) {
		at_error_set(err, AT_EUSAGE, "%s: '%s' is not a host name", what,
			     at_esc(esc, sizeof(esc), host));
		return NULL;
	}
	for (size_t i = 0; i < s->term.nhosts; i++)
		if (strcmp(s->term.hosts[i].host, canon) == 0)
			return &s->term.hosts[i];
	v = realloc(s->term.hosts, (s->term.nhosts + 1) * sizeof(*v));
	if (!v) {
		at_error_set(err, AT_ESYS, "out of memory");
		return NULL;
	}
	s->term.hosts = v;
	v = &v[s->term.nhosts++];
	memset(v, 0, sizeof(*v));
	memcpy(v->host, canon, sizeof(canon));
	return v;
}

/* Does a rule of the run allow host, on 443 or on the port the rule names? */
static bool host_allowed(const struct at_app_net *n, const char *host)
{
	if (at_net_rules_match(&n->rules, host, 443))
		return true;
	for (size_t i = 0; i < n->rules.n; i++)
		if (n->rules.v[i].port && at_net_rules_match(&n->rules, host, n->rules.v[i].port))
			return true;
	return false;
}

/* Bind secret i to its hosts, each allowed by the run. */
static int bind_hosts(struct at_app_secrets *s, const struct use *u, size_t i,
		      const struct at_app_net *n, struct at_error *err)
{
	char what[128];

	snprintf(what, sizeof(what), "secret '%s'", u->name);
	for (size_t j = 0; j < u->hosts->n; j++) {
		struct at_net_term_host *h = host_entry(s, u->hosts->v[j], what, err);
		if (!h)
			return err->code;
		if (!host_allowed(n, h->host))
			return at_error_set(err, AT_EUSAGE, "secret '%s' goes to '%s', which this "
					    "run does not allow (--allow-host %s)", u->name,
					    h->host, h->host);
		h->secrets |= UINT32_C(1) << i;
	}
	return 0;
}

/* Keep, of l, the prefixes that lie under one of other's (prefix sets intersected). */
static int narrow_paths(struct at_strlist *l, const struct at_strlist *other)
{
	struct at_strlist out = AT_STRLIST_INIT;
	int rc = 0;

	for (size_t i = 0; i < l->n; i++)
		for (size_t j = 0; j < other->n; j++) {
			const char *a = l->v[i], *b = other->v[j];
			if (strncmp(a, b, strlen(b)) == 0)
				rc |= at_strlist_push(&out, a);
			else if (strncmp(b, a, strlen(a)) == 0)
				rc |= at_strlist_push(&out, b);
		}
	at_strlist_release(l);
	*l = out;
	if (!out.n)   /* nothing both allow: a prefix no path has */
		rc |= at_strlist_push(l, "/\x01");
	return rc;
}

static int narrow_methods(struct at_strlist *l, const struct at_strlist *other)
{
	struct at_strlist out = AT_STRLIST_INIT;
	int rc = 0;

	for (size_t i = 0; i < l->n; i++)
		if (at_strlist_has(other, l->v[i]))
			rc |= at_strlist_push(&out, l->v[i]);
	at_strlist_release(l);
	*l = out;
	if (!out.n)
		rc |= at_strlist_push(l, "\x01");
	return rc;
}

static int add_rules(struct at_app_secrets *s, const struct at_runconf_request *r,
		     const struct at_app_net *n, struct at_error *err)
{
	char canon[AT_NET_HOST_MAX + 1];
	struct at_net_term_host *h;
	struct in6_addr ip;
	bool is_ip;
	int rc = 0;

	/* rules for a host the run cannot reach have nothing to judge */
	if (at_net_host_canon(r->host, canon, &ip, &is_ip) && !host_allowed(n, canon))
		return 0;
	if (!(h = host_entry(s, r->host, "request rules", err)))
		return err->code;
	if (r->methods.n)
		rc |= h->methods.n ? narrow_methods(&h->methods, &r->methods)
				   : at_strlist_push_all(&h->methods, &r->methods);
	if (r->paths.n)
		rc |= h->paths.n ? narrow_paths(&h->paths, &r->paths)
				 : at_strlist_push_all(&h->paths, &r->paths);
	h->rules = true;
	return rc < 0 ? at_error_set(err, AT_ESYS, "out of memory") : 0;
}

/* --secret NAME (the user's definition) or NAME:HOST[,HOST...] (from the variable NAME). */
static int flag_use(const struct at_app_runconf *conf, const char *spec, struct use *u,
		    struct at_error *err)
{
	const char *colon = strchr(spec, ':');
	size_t nlen = colon ? (size_t)(colon - spec) : strlen(spec);
	const struct at_runconf_secret *d;
	char name[AT_NET_SECRET_NAME_MAX + 1], esc[200];
	char *hosts, *save = NULL, *tok;

	memset(u, 0, sizeof(*u));
	if (!nlen || nlen > AT_NET_SECRET_NAME_MAX || strspn(spec, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		"abcdefghijklmnopqrstuvwxyz0123456789_") != nlen || (spec[0] >= '0' && spec[0] <= '9'))
		return at_error_set(err, AT_EUSAGE, "invalid --secret '%s': NAME[:HOST[,HOST...]], "
				    "NAME a variable's name", at_esc(esc, sizeof(esc), spec));
	memcpy(name, spec, nlen);
	name[nlen] = '\0';
	if (!colon) {
		if (!(d = at_app_runconf_def(conf, name)))
			return at_error_set(err, AT_EUSAGE, "unknown secret '%s': your config.json "
					    "defines no such secret (or give it as %s:HOST)", name,
					    name);
		u->name = d->name;
		u->hosts = &d->hosts;
		u->from = d->from;
		u->header = d->header;
		return 0;
	}
	if (!(hosts = strdup(colon + 1)))
		return at_error_set(err, AT_ESYS, "out of memory");
	for (tok = strtok_r(hosts, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		at_strlist_push(&u->own_hosts, tok);
	free(hosts);
	if (!u->own_hosts.n)
		return at_error_set(err, AT_EUSAGE, "invalid --secret '%s': no host",
				    at_esc(esc, sizeof(esc), spec));
	snprintf(u->own_from, sizeof(u->own_from), "env:%s", name);
	u->name = u->own_from + 4;
	u->hosts = &u->own_hosts;
	u->from = u->own_from;
	return 0;
}

static bool used(const struct use *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i].name, name) == 0)
			return true;
	return false;
}

static bool def_allowed(const struct at_runconf_secret *d, const struct at_app_net *n)
{
	char canon[AT_NET_HOST_MAX + 1];
	struct in6_addr ip;
	bool is_ip;

	for (size_t j = 0; j < d->hosts.n; j++)
		if (at_net_host_canon(d->hosts.v[j], canon, &ip, &is_ip) && host_allowed(n, canon))
			return true;
	return false;
}

/* Which secrets the run uses, in uses (at most AT_NET_SECRETS_MAX). */
static int choose(const struct at_app_runconf *conf, char *const *flags, size_t nflags,
		  const struct at_app_net *n, struct use *uses, size_t *nuses,
		  struct at_error *err)
{
	const struct at_runconf_secret *d;
	int rc;

	for (size_t i = 0; i < nflags; i++) {
		if (*nuses == AT_NET_SECRETS_MAX)
			return at_error_set(err, AT_EUSAGE, "more than %d secrets",
					    AT_NET_SECRETS_MAX);
		if ((rc = flag_use(conf, flags[i], &uses[*nuses], err)) < 0)
			return rc;
		if (used(uses, *nuses, uses[*nuses].name)) {
			at_strlist_release(&uses[*nuses].own_hosts);
			return at_error_set(err, AT_EUSAGE, "--secret '%s' is given twice",
					    uses[*nuses].name);
		}
		(*nuses)++;
	}
	for (size_t i = 0; i < conf->secrets.n; i++) {
		if (used(uses, *nuses, conf->secrets.v[i]))
			continue;
		if (!(d = at_app_runconf_def(conf, conf->secrets.v[i])))
			return at_error_set(err, AT_EUSAGE, "unknown secret '%s': your config.json "
					    "defines no such secret", conf->secrets.v[i]);
		uses[(*nuses)++] = (struct use){ d->name, &d->hosts, d->from, d->header };
	}
	for (size_t i = 0; i < conf->ndefs; i++) {
		d = &conf->defs[i];
		if (!used(uses, *nuses, d->name) && def_allowed(d, n))
			uses[(*nuses)++] = (struct use){ d->name, &d->hosts, d->from, d->header };
	}
	return 0;
}

/* The sandbox's trust store: the system's bundle and the task's CA. */
static int bundle(struct at_app_secrets *s, struct at_error *err)
{
	size_t len = 0, pem_len;
	const char *pem = at_net_ca_pem(s->term.ca, &pem_len);
	char *sys = at_read_file(SYSTEM_BUNDLE, BUNDLE_MAX, &len);

	/* the sandbox's /etc is the host's, read-only: its bundle is covered, never added */
	if (!sys)
		return at_error_sys(err, AT_EUSAGE, "secrets need the system's CA bundle '%s' "
				    "(apt-get install ca-certificates)", SYSTEM_BUNDLE);
	if (!(s->bundle = malloc(len + pem_len + 2))) {
		free(sys);
		return at_error_set(err, AT_ESYS, "out of memory");
	}
	memcpy(s->bundle, sys, len);
	if (len && s->bundle[len - 1] != '\n')
		s->bundle[len++] = '\n';
	memcpy(s->bundle + len, pem, pem_len);
	s->bundle_len = len + pem_len;
	free(sys);
	for (size_t i = 0; ca_vars[i]; i++)
		if (at_strlist_pushf(&s->env, "%s=%s", ca_vars[i], SYSTEM_BUNDLE) < 0)
			return at_error_set(err, AT_ESYS, "out of memory");
	return 0;
}

/*
 * git inside asks its credential helper for a host whose secret goes as
 * basic auth: the helper answers with the placeholder, read from the
 * variable inside (GIT_CONFIG_COUNT: no file of the task's is touched).
 * git matches credential.<url> on the port too ("https://h" is h:443 only),
 * so each other port the run allows the host on gets a key of its own.
 */
static int git_helper(struct at_app_secrets *s, const char *host, uint16_t port,
		      const char *name, size_t *k)
{
	char url[AT_NET_HOST_MAX + 16];
	int rc = 0;

	if (port && port != 443)
		snprintf(url, sizeof(url), "%s:%u", host, (unsigned)port);
	else
		snprintf(url, sizeof(url), "%s", host);
	rc |= at_strlist_pushf(&s->env, "GIT_CONFIG_KEY_%zu=credential.https://%s.helper", *k, url);
	rc |= at_strlist_pushf(&s->env, "GIT_CONFIG_VALUE_%zu=!f() { test \"$1\" = get "
			       "&& printf 'username=x-access-token\\npassword=%%s\\n' "
			       "\"$%s\"; }; f", *k, name);
	(*k)++;
	return rc;
}

static int git_helpers(struct at_app_secrets *s, const struct at_app_net *n,
		       struct at_error *err)
{
	size_t k = 0;
	int rc = 0;

	for (size_t i = 0; i < s->term.nhosts; i++)
		for (size_t j = 0; j < s->term.nsecrets; j++) {
			const struct at_net_secret *sec = &s->term.secrets[j];
			const char *host = s->term.hosts[i].host;
			if (!(s->term.hosts[i].secrets & (UINT32_C(1) << j)) ||
			    sec->where != AT_NET_CRED_BASIC)
				continue;
			rc |= git_helper(s, host, 443, sec->name, &k);
			for (size_t r = 0; r < n->rules.n; r++) {
				uint16_t p = n->rules.v[r].port;
				bool seen = p == 0 || p == 443 ||
					    !at_net_rules_match(&n->rules, host, p);
				for (size_t q = 0; q < r && !seen; q++)
					seen = n->rules.v[q].port == p;
				if (!seen)
					rc |= git_helper(s, host, p, sec->name, &k);
			}
			break;
		}
	if (k)
		rc |= at_strlist_pushf(&s->env, "GIT_CONFIG_COUNT=%zu", k);
	return rc < 0 ? at_error_set(err, AT_ESYS, "out of memory") : 0;
}

int at_app_secrets_prepare(const struct at_app *app, struct at_repo *r, const struct at_task *t,
			   const struct at_app_runconf *conf, char *const *flags, size_t nflags,
			   const struct at_app_net *n, struct at_app_secrets *s,
			   struct at_error *err)
{
	struct use uses[AT_NET_SECRETS_MAX + AT_RUNCONF_SECRETS_MAX * 2];
	size_t nuses = 0, i;
	char dir[PATH_MAX];
	int rc;

	memset(s, 0, sizeof(*s));
	if ((rc = choose(conf, flags, nflags, n, uses, &nuses, err)) < 0)
		goto out;
	if (nuses > AT_NET_SECRETS_MAX) {
		rc = at_error_set(err, AT_EUSAGE, "more than %d secrets", AT_NET_SECRETS_MAX);
		goto out;
	}
	if (nuses && (rc = at_vault_open(&s->vault, nuses * (AT_NET_SECRET_MAX + 1), err)) < 0)
		goto out;
	for (i = 0; rc == 0 && i < nuses; i++)
		rc = bind_hosts(s, &uses[i], i, n, err);
	for (i = 0; rc == 0 && i < nuses; i++)
		rc = load(app, &uses[i], s, err);
	for (i = 0; rc == 0 && i < conf->nrequests; i++)
		rc = add_rules(s, &conf->requests[i], n, err);
	if (rc < 0 || !s->term.nhosts)
		goto out;
	if ((rc = at_paths_ca(at_repo_paths(r), t->name, dir, sizeof(dir), err)) < 0 ||
	    (mkdir(at_repo_paths(r)->cas_dir, 0700) < 0 && errno != EEXIST &&
	     (rc = at_error_sys(err, AT_ESYS, "cannot make the CAs' directory"))) ||
	    (rc = at_net_ca_open(dir, t->name, &s->term.ca, err)) < 0 ||
	    (rc = bundle(s, err)) < 0 || (rc = git_helpers(s, n, err)) < 0)
		goto out;
	s->active = true;
out:
	for (i = 0; i < nuses && i < AT_NET_SECRETS_MAX; i++)
		at_strlist_release(&uses[i].own_hosts);
	if (rc < 0)
		at_app_secrets_release(s);
	return rc;
}

void at_app_secrets_release(struct at_app_secrets *s)
{
	for (size_t i = 0; i < s->term.nsecrets; i++)
		free(s->term.secrets[i].placeholder);
	for (size_t i = 0; i < s->term.nhosts; i++) {
		at_strlist_release(&s->term.hosts[i].methods);
		at_strlist_release(&s->term.hosts[i].paths);
	}
	free(s->term.hosts);
	at_net_ca_free(s->term.ca);
	at_vault_close(&s->vault);
	at_strlist_release(&s->env);
	free(s->bundle);
	memset(s, 0, sizeof(*s));
}

int at_app_secrets_check_env(const struct at_app_secrets *s, char *const *envp,
			     struct at_error *err)
{
	for (size_t i = 0; i < s->term.nsecrets; i++) {
		const struct at_net_secret *sec = &s->term.secrets[i];

		for (size_t j = 0; envp && envp[j]; j++) {
			const char *eq = strchr(envp[j], '=');

			if (eq && memmem(eq + 1, strlen(eq + 1), sec->value, sec->len))
				return at_error_set(err, AT_EUSAGE, "the variable '%.*s' would put "
						    "the value of secret '%s' inside (passed by "
						    "default, --env or the run configuration)",
						    (int)(eq - envp[j]), envp[j], sec->name);
		}
	}
	return 0;
}
