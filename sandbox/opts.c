/*
 * opts.c - the command's environment, and paths. Pure functions, so the
 * unit tests can cover them without a sandbox.
 */
#include "sandbox/sandbox.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>


/* ---- environment ---- */

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

/* Set K=V: replace an entry of the same name, else append. */
static int env_put(struct at_strlist *e, const char *kv)
{
	size_t klen = (size_t)(strchr(kv, '=') - kv), i;
	char *copy;

	for (i = 0; i < e->n; i++) {
		if (strncmp(e->v[i], kv, klen + 1) == 0) {
			if (!(copy = strdup(kv)))
				return -1;
			free(e->v[i]);
			e->v[i] = copy;
			return 0;
		}
	}
	return at_strlist_push(e, kv);
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

static int env_fill(struct at_strlist *e, char *const *host_env, char *const *pass, size_t npass,
		    char *const *set, size_t nset, struct at_error *err)
{
	size_t i;

	if (env_put(e, "PATH=" AT_RUN_PATH) < 0 || env_put(e, "HOME=" AT_RUN_HOME) < 0)
		return at_error_set(err, AT_ESYS, "out of memory");
	for (i = 0; host_env && host_env[i]; i++) {
		const char *eq = strchr(host_env[i], '=');

		if (eq && passes_by_default(host_env[i]) &&
		    name_valid(host_env[i], (size_t)(eq - host_env[i])) && env_put(e, host_env[i]) < 0)
			return at_error_set(err, AT_ESYS, "out of memory");
	}
	for (i = 0; i < npass; i++) {
		const char *kv;

		if (!name_valid(pass[i], strlen(pass[i])))
			return at_error_set(err, AT_EUSAGE, "invalid variable name '%s'", pass[i]);
		kv = env_find(host_env, pass[i], strlen(pass[i]));
		if (kv && env_put(e, kv) < 0)
			return at_error_set(err, AT_ESYS, "out of memory");
	}
	for (i = 0; i < nset; i++) {
		const char *eq = strchr(set[i], '=');

		if (!eq || !name_valid(set[i], (size_t)(eq - set[i])))
			return at_error_set(err, AT_EUSAGE, "invalid --env '%s' (want NAME=VALUE)",
					    set[i]);
		if (env_put(e, set[i]) < 0)
			return at_error_set(err, AT_ESYS, "out of memory");
	}
	return 0;
}

int at_sandbox_env(char *const *host_env, char *const *pass, size_t npass, char *const *set,
		   size_t nset, struct at_strlist *out, struct at_error *err)
{
	struct at_strlist e = AT_STRLIST_INIT;
	int rc = env_fill(&e, host_env, pass, npass, set, nset, err);

	if (rc < 0) {
		at_strlist_release(&e);
		return rc;
	}
	*out = e;
	return 0;
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

bool at_sandbox_path_within(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return true;
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}
