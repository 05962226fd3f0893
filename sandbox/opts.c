/*
 * opts.c - checking what the caller asks of the sandbox: sizes, counts,
 * durations, the environment, and --ro/--rw paths. Pure functions, so the
 * unit tests can cover them without a sandbox.
 */
#include "sandbox/sandbox.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/util.h"

static int parse_digits(const char **sp, uint64_t *out)
{
	const char *s = *sp;
	uint64_t v = 0;

	if (!isdigit((unsigned char)*s))
		return -1;
	for (; isdigit((unsigned char)*s); s++) {
		unsigned int d = (unsigned int)(*s - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*sp = s;
	*out = v;
	return 0;
}

int at_sandbox_parse_size(const char *s, uint64_t *out, struct at_error *err)
{
	const char *p = s;
	uint64_t v = 0, mult = 1;
	bool overflow = false;

	if (!s || !isdigit((unsigned char)*p))
		goto bad;
	/* A number too large for 64 bits is still read to its end: its syntax may be right. */
	for (; isdigit((unsigned char)*p); p++) {
		unsigned int d = (unsigned int)(*p - '0');

		if (v > (UINT64_MAX - d) / 10)
			overflow = true;
		else
			v = v * 10 + d;
	}
	switch (tolower((unsigned char)*p)) {
	case 'k': mult = 1ULL << 10; p++; break;
	case 'm': mult = 1ULL << 20; p++; break;
	case 'g': mult = 1ULL << 30; p++; break;
	case 't': mult = 1ULL << 40; p++; break;
	default: break;
	}
	if (mult > 1 && (p[0] == 'i' || p[0] == 'I') && (p[1] == 'b' || p[1] == 'B'))
		p += 2;
	else if (*p == 'b' || *p == 'B')
		p++;
	if (*p || (v == 0 && !overflow))
		goto bad;
	if (overflow || v > UINT64_MAX / mult)
		return at_error_set(err, AT_EUSAGE, "size '%s' is too large (at most %lluT)", s,
				    (unsigned long long)(UINT64_MAX >> 40));
	*out = v * mult;
	return 0;
bad:
	return at_error_set(err, AT_EUSAGE,
			    "invalid size '%s' (a positive number, optionally with K, M, G or T)",
			    s ? s : "");
}

int at_sandbox_parse_count(const char *s, uint64_t max, uint64_t *out, struct at_error *err)
{
	const char *p = s;
	uint64_t v;

	if (!s || parse_digits(&p, &v) < 0 || *p || v == 0 || v > max)
		return at_error_set(err, AT_EUSAGE, "invalid number '%s' (1 to %llu)", s ? s : "",
				    (unsigned long long)max);
	*out = v;
	return 0;
}

/* "30", "1.5": thousandths, > 0; suffix (or none) may follow. */
static int parse_thousandths(const char *s, char suffix, uint64_t *out)
{
	const char *p = s;
	uint64_t whole, frac = 0, scale = 100;

	if (!s || parse_digits(&p, &whole) < 0 || whole > 100000000ULL)
		return -1;
	if (*p == '.') {
		p++;
		if (!isdigit((unsigned char)*p))
			return -1;
		for (; isdigit((unsigned char)*p); p++) {
			frac += (uint64_t)(*p - '0') * scale;
			scale /= 10;
		}
	}
	if (suffix && *p == suffix)
		p++;
	frac += whole * 1000;
	if (*p || frac == 0)
		return -1;
	*out = frac;
	return 0;
}

int at_sandbox_parse_seconds(const char *s, uint64_t *ms_out, struct at_error *err)
{
	if (parse_thousandths(s, 's', ms_out) == 0)
		return 0;
	return at_error_set(err, AT_EUSAGE, "invalid duration '%s' (seconds, like 30 or 1.5)",
			    s ? s : "");
}

int at_sandbox_parse_cpus(const char *s, uint64_t *milli_out, struct at_error *err)
{
	uint64_t v;

	if (parse_thousandths(s, '\0', &v) == 0 && v <= 1000000) {
		*milli_out = v;
		return 0;
	}
	return at_error_set(err, AT_EUSAGE, "invalid number of CPUs '%s' (like 2 or 0.5)",
			    s ? s : "");
}

/* ---- environment ---- */

struct env {
	char **v;
	size_t n, alloc;
};

static bool name_valid(const char *s, size_t len)
{
	size_t i;

	if (len == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return false;
	for (i = 1; i < len; i++) {
		if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
			return false;
	}
	return true;
}

static int env_put(struct env *e, const char *kv)
{
	size_t klen = (size_t)(strchr(kv, '=') - kv), i;
	char *copy = strdup(kv);

	if (!copy)
		return -1;
	for (i = 0; i < e->n; i++) {
		if (strncmp(e->v[i], kv, klen + 1) == 0) {
			free(e->v[i]);
			e->v[i] = copy;
			return 0;
		}
	}
	if (e->n + 2 > e->alloc) {
		size_t na = e->alloc ? e->alloc * 2 : 16;
		char **nv = realloc(e->v, na * sizeof(*nv));
		if (!nv) {
			free(copy);
			return -1;
		}
		e->v = nv;
		e->alloc = na;
	}
	e->v[e->n++] = copy;
	e->v[e->n] = NULL;
	return 0;
}

static const char *env_find(char *const *env, const char *name, size_t len)
{
	for (; env && *env; env++) {
		if (strncmp(*env, name, len) == 0 && (*env)[len] == '=')
			return *env;
	}
	return NULL;
}

/* Passed from the host: the terminal, the language and the time zone. */
static bool passes_by_default(const char *kv)
{
	return strncmp(kv, "TERM=", 5) == 0 || strncmp(kv, "LANG=", 5) == 0 ||
	       strncmp(kv, "LC_", 3) == 0 || strncmp(kv, "TZ=", 3) == 0;
}

int at_sandbox_env(char *const *host_env, char *const *pass, size_t npass, char *const *set,
		   size_t nset, char ***out, struct at_error *err)
{
	struct env e = { NULL, 0, 0 };
	size_t i;

	if (env_put(&e, "PATH=" AT_SANDBOX_PATH) < 0 || env_put(&e, "HOME=" AT_SANDBOX_HOME) < 0)
		goto oom;
	for (i = 0; host_env && host_env[i]; i++) {
		const char *eq = strchr(host_env[i], '=');
		if (eq && passes_by_default(host_env[i]) &&
		    name_valid(host_env[i], (size_t)(eq - host_env[i])) &&
		    env_put(&e, host_env[i]) < 0)
			goto oom;
	}
	for (i = 0; i < npass; i++) {
		const char *kv;
		if (!name_valid(pass[i], strlen(pass[i]))) {
			at_sandbox_env_free(e.v);
			return at_error_set(err, AT_EUSAGE, "invalid variable name '%s'", pass[i]);
		}
		kv = env_find(host_env, pass[i], strlen(pass[i]));
		if (kv && env_put(&e, kv) < 0)
			goto oom;
	}
	for (i = 0; i < nset; i++) {
		const char *eq = strchr(set[i], '=');
		if (!eq || !name_valid(set[i], (size_t)(eq - set[i]))) {
			at_sandbox_env_free(e.v);
			return at_error_set(err, AT_EUSAGE, "invalid --env '%s' (want NAME=VALUE)",
					    set[i]);
		}
		if (env_put(&e, set[i]) < 0)
			goto oom;
	}
	*out = e.v;
	return 0;
oom:
	at_sandbox_env_free(e.v);
	return at_error_set(err, AT_ESYS, "out of memory");
}

void at_sandbox_env_free(char **env)
{
	size_t i;

	for (i = 0; env && env[i]; i++)
		free(env[i]);
	free(env);
}

/* ---- paths ---- */

bool at_sandbox_path_normal(const char *path)
{
	const char *p;

	if (!path || path[0] != '/')
		return false;
	if (path[1] == '\0')
		return true;
	for (p = path; *p; p++) {
		if (*p != '/')
			continue;
		/* At each component: not empty, not "." or "..", no trailing '/'. */
		if (p[1] == '/' || p[1] == '\0')
			return false;
		if (p[1] == '.' && (p[2] == '/' || p[2] == '\0'))
			return false;
		if (p[1] == '.' && p[2] == '.' && (p[3] == '/' || p[3] == '\0'))
			return false;
	}
	return strlen(path) < PATH_MAX;
}

/* Is path inside dir (or dir itself)? Both normalised. */
static bool path_within(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return true;
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

int at_sandbox_check_bind(const struct at_sandbox_opts *o, const char *path, bool writable,
			  struct at_error *err)
{
	const char *opt = writable ? "--rw" : "--ro";
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
	if (path_within(path, o->common_dir)) {
		if (!path_within(path, o->worktree))
			return at_error_set(err, AT_EUSAGE,
					    "%s '%s': inside the git directory '%s' (git metadata "
					    "and agenttask state are never bound)",
					    opt, path, o->common_dir);
		if (writable && path_within(path, o->git_pointer_file))
			return at_error_set(err, AT_EUSAGE,
					    "%s '%s': the worktree's .git pointer stays read-only",
					    opt, path);
	} else if (writable && path_within(o->common_dir, path)) {
		return at_error_set(err, AT_EUSAGE,
				    "%s '%s': contains the git directory '%s', which must stay "
				    "read-only", opt, path, o->common_dir);
	}
	return 0;
}
