/*
 * policy.c - reading .agenttask/policy.json: every key known, every value
 * checked, into struct at_policy (core/policy.h). The result rows are in
 * policy_result.c, the built-in rules in policy_rules.c.
 */
#include "core/policy.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/glob.h"
#include "core/json.h"
#include "core/parse.h"

#include "core/policy_internal.h"

static const char *const rule_keys[] = {
	"protected_paths", "max_changed_files", "max_changed_lines", "allow_binary",
	"allow_symlinks_out", "host_files", "open_comments", NULL,
};

static const char *const top_keys[] = {
	"protected_paths", "max_changed_files", "max_changed_lines", "allow_binary",
	"allow_symlinks_out", "host_files", "open_comments", "checks", NULL,
};

static const char *const check_keys[] = {
	"name", "run", "timeout", "net", "allow_hosts", "deny_private", "forward", NULL,
};

/* "malformed policy 'FILE': key 'KEY': DETAIL" */
static int bad(struct at_error *err, const char *what, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int bad(struct at_error *err, const char *what, const char *key, const char *fmt, ...)
{
	char detail[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	if (!key)
		return at_error_set(err, AT_EPOLICY, "malformed policy '%s': %s", what, detail);
	return at_error_set(err, AT_EPOLICY, "malformed policy '%s': key '%s': %s", what, key,
			    detail);
}

static bool in_list(const char *const *list, const char *s)
{
	for (; *list; list++)
		if (strcmp(*list, s) == 0)
			return true;
	return false;
}

/* Every member known and none twice (cJSON would keep both, and we read one). */
static int check_members(const at_json *obj, const char *const *known, const char *what,
			 const char *prefix, struct at_error *err)
{
	const at_json *m, *n;

	for (m = at_json_child(obj); m; m = at_json_next(m)) {
		const char *k = at_json_key(m);

		if (!in_list(known, k))
			return bad(err, what, NULL, "unknown key '%s%s'", prefix, k);
		for (n = at_json_next(m); n; n = at_json_next(n))
			if (strcmp(k, at_json_key(n)) == 0)
				return bad(err, what, NULL, "duplicate key '%s%s'", prefix, k);
	}
	return 0;
}

static char *xstrdup(const char *s)
{
	return strdup(s ? s : "");
}

static int oom(struct at_error *err)
{
	return at_error_set(err, AT_ESYS, "out of memory");
}

/* A whole number within [0, max]. */
static int parse_count(const at_json *j, const char *what, const char *key, double max,
		       size_t *out, struct at_error *err)
{
	double v;

	if (!at_json_is_number(j))
		return bad(err, what, key, "must be a number");
	v = at_json_number_value(j);
	if (!isfinite(v))
		return bad(err, what, key, "must be a whole number");
	if (v < 0)
		return bad(err, what, key, "must not be negative (got %g)", v);
	if (v > max)
		return bad(err, what, key, "must be at most %.0f (got %g)", max, v);
	/* In range, so the conversion is defined; no libm needed for floor(). */
	if (v != (double)(unsigned long long)v)
		return bad(err, what, key, "must be a whole number (got %g)", v);
	*out = (size_t)v;
	return 0;
}

static int parse_bool(const at_json *j, const char *what, const char *key, bool *out,
		      struct at_error *err)
{
	if (!at_json_is_bool(j))
		return bad(err, what, key, "must be true or false");
	*out = at_json_bool_value(j);
	return 0;
}

static int parse_patterns(struct at_policy *p, const at_json *arr, const char *what,
			  struct at_error *err)
{
	char norm[AT_GLOB_MAX + 1];
	const char *why;
	size_t i, n;

	if (!at_json_is_array(arr))
		return bad(err, what, "protected_paths", "must be an array of glob patterns");
	n = at_json_size(arr);
	p->protected_paths = calloc(n + 1, sizeof(char *));
	p->protected_cap = n + 1;
	if (!p->protected_paths)
		return oom(err);
	for (i = 0; i < n; i++) {
		const char *s = at_json_string_value(at_json_at(arr, i));

		if (!s)
			return bad(err, what, "protected_paths", "item %zu is not a string", i);
		if (at_glob_normalize(s, norm, sizeof(norm), &why) < 0)
			return bad(err, what, "protected_paths", "bad glob '%.80s': %s", s, why);
		p->protected_paths[i] = xstrdup(norm);
		if (!p->protected_paths[i])
			return oom(err);
		p->nprotected = i + 1;
	}
	return 0;
}

static int parse_argv(struct at_policy_check *c, const at_json *arr, const char *what,
		      const char *key, struct at_error *err)
{
	size_t i, n = at_json_size(arr);

	if (!at_json_is_array(arr) || n == 0)
		return bad(err, what, key, "must be a non-empty array of strings (the argv to run)");
	c->argv = calloc(n + 1, sizeof(char *));
	if (!c->argv)
		return oom(err);
	for (i = 0; i < n; i++) {
		const char *s = at_json_string_value(at_json_at(arr, i));

		if (!s)
			return bad(err, what, key, "item %zu is not a string", i);
		if (i == 0 && !*s)
			return bad(err, what, key, "the program (item 0) is empty");
		c->argv[i] = xstrdup(s);
		if (!c->argv[i])
			return oom(err);
		c->argc = i + 1;
	}
	return 0;
}

static bool host_pattern_ok(const char *s)
{
	if (!*s || strlen(s) > 300)
		return false;
	for (const unsigned char *q = (const unsigned char *)s; *q; q++)
		if (*q <= 0x20 || *q == 0x7f)
			return false;
	return true;
}

static bool forward_ok(const char *s)
{
	uint16_t host, inner;

	return at_parse_forward(s, &host, &inner);
}

/*
 * An array of strings that ok() accepts (`kind` names one in messages).
 * Host patterns are only screened here: their syntax is net/rules' to
 * judge, and the gate does before any check runs.
 */
static int parse_strings(const at_json *arr, const char *what, const char *key, const char *kind,
			 bool (*ok)(const char *), char ***out, size_t *nout, struct at_error *err)
{
	size_t i, n = at_json_size(arr);

	if (!at_json_is_array(arr))
		return bad(err, what, key, "must be an array of %ss", kind);
	*out = calloc(n + 1, sizeof(char *));
	if (!*out)
		return oom(err);
	for (i = 0; i < n; i++) {
		const char *s = at_json_string_value(at_json_at(arr, i));

		if (!s || !ok(s))
			return bad(err, what, key, "item %zu is not a %s", i, kind);
		(*out)[i] = xstrdup(s);
		if (!(*out)[i])
			return oom(err);
		*nout = i + 1;
	}
	return 0;
}

static int check_name_ok(const struct at_policy *p, const char *name, const char *what,
			 const char *key, struct at_error *err)
{
	const unsigned char *q;
	size_t i;

	if (!name || !*name)
		return bad(err, what, key, "must be a non-empty string");
	if (strlen(name) > AT_CHECK_NAME_MAX)
		return bad(err, what, key, "longer than %d characters", AT_CHECK_NAME_MAX);
	for (q = (const unsigned char *)name; *q; q++)
		if (*q < 0x20 || *q == 0x7f)
			return bad(err, what, key, "holds a control character");
	if (in_list(rule_keys, name))
		return bad(err, what, key, "'%s' is the name of a built-in rule", name);
	for (i = 0; i < p->nchecks; i++)
		if (strcmp(p->checks[i].name, name) == 0)
			return bad(err, what, key, "'%s' names two checks", name);
	return 0;
}

/* A check's network keys: allow_hosts, deny_private, forward, as `run` takes them. */
static int parse_check_net(struct at_policy_check *c, const at_json *j, size_t idx,
			   const char *what, struct at_error *err)
{
	char key[64];
	const at_json *v;
	int rc;

	snprintf(key, sizeof(key), "checks[%zu].allow_hosts", idx);
	if ((v = at_json_get(j, "allow_hosts")) &&
	    (rc = parse_strings(v, what, key, "host pattern", host_pattern_ok, &c->allow_hosts,
				&c->nallow_hosts, err)) < 0)
		return rc;
	if (c->net && c->nallow_hosts)
		return bad(err, what, key, "the proxy keeps the sandbox's own network: not with "
			   "\"net\": true");
	snprintf(key, sizeof(key), "checks[%zu].forward", idx);
	if ((v = at_json_get(j, "forward")) &&
	    (rc = parse_strings(v, what, key, "forward (PORT[:INNER], ports from 1 to 65535)",
				forward_ok, &c->forward, &c->nforward, err)) < 0)
		return rc;
	if (c->net && c->nforward)
		return bad(err, what, key, "a forward keeps the sandbox's own network: not with "
			   "\"net\": true");
	snprintf(key, sizeof(key), "checks[%zu].deny_private", idx);
	if ((v = at_json_get(j, "deny_private")) &&
	    (rc = parse_bool(v, what, key, &c->deny_private, err)) < 0)
		return rc;
	if (c->deny_private && !c->nallow_hosts)
		return bad(err, what, key, "applies to allow_hosts: none given");
	return 0;
}

static int parse_check(struct at_policy *p, const at_json *j, size_t idx, const char *what,
		       struct at_error *err)
{
	struct at_policy_check *c = &p->checks[idx];
	char key[64], prefix[32];
	const at_json *v;
	size_t timeout;
	int rc;

	snprintf(prefix, sizeof(prefix), "checks[%zu].", idx);
	snprintf(key, sizeof(key), "checks[%zu]", idx);
	if (!at_json_is_object(j))
		return bad(err, what, key, "must be an object with 'name' and 'run'");
	if ((rc = check_members(j, check_keys, what, prefix, err)) < 0)
		return rc;
	snprintf(key, sizeof(key), "checks[%zu].name", idx);
	if ((rc = check_name_ok(p, at_json_get_string(j, "name"), what, key, err)) < 0)
		return rc;
	c->name = xstrdup(at_json_get_string(j, "name"));
	c->timeout = AT_CHECK_TIMEOUT_DEFAULT;
	if (!c->name)
		return oom(err);
	/* Counted only now, so that check_name_ok compares with complete entries. */
	p->nchecks = idx + 1;
	snprintf(key, sizeof(key), "checks[%zu].run", idx);
	if ((rc = parse_argv(c, at_json_get(j, "run"), what, key, err)) < 0)
		return rc;
	snprintf(key, sizeof(key), "checks[%zu].timeout", idx);
	if ((v = at_json_get(j, "timeout"))) {
		if ((rc = parse_count(v, what, key, AT_CHECK_TIMEOUT_MAX, &timeout, err)) < 0)
			return rc;
		if (timeout == 0)
			return bad(err, what, key, "must be at least 1 second");
		c->timeout = (unsigned int)timeout;
	}
	snprintf(key, sizeof(key), "checks[%zu].net", idx);
	if ((v = at_json_get(j, "net")) && (rc = parse_bool(v, what, key, &c->net, err)) < 0)
		return rc;
	return parse_check_net(c, j, idx, what, err);
}

static int parse_checks(struct at_policy *p, const at_json *arr, const char *what,
			struct at_error *err)
{
	size_t i, n;
	int rc;

	if (!at_json_is_array(arr))
		return bad(err, what, "checks", "must be an array of {\"name\", \"run\"} objects");
	n = at_json_size(arr);
	p->checks = calloc(n + 1, sizeof(*p->checks));
	if (!p->checks)
		return oom(err);
	for (i = 0; i < n; i++)
		if ((rc = parse_check(p, at_json_at(arr, i), i, what, err)) < 0)
			return rc;
	return 0;
}

/* "review" (the default: a change fails the gate) or "allow". */
static int parse_host_files(struct at_policy *p, const at_json *j, const char *what,
			    struct at_error *err)
{
	const char *s = at_json_string_value(j);

	if (!s || (strcmp(s, "review") != 0 && strcmp(s, "allow") != 0))
		return bad(err, what, "host_files", "must be \"review\" or \"allow\"");
	p->allow_host_files = strcmp(s, "allow") == 0;
	return 0;
}

static int parse_object(struct at_policy *p, const at_json *j, const char *what,
			struct at_error *err)
{
	const at_json *v;
	int rc = 0;

	if ((v = at_json_get(j, "protected_paths")))
		rc = parse_patterns(p, v, what, err);
	if (rc == 0 && (v = at_json_get(j, "max_changed_files"))) {
		p->has_max_files = true;
		rc = parse_count(v, what, "max_changed_files", 1e15, &p->max_changed_files, err);
	}
	if (rc == 0 && (v = at_json_get(j, "max_changed_lines"))) {
		p->has_max_lines = true;
		rc = parse_count(v, what, "max_changed_lines", 1e15, &p->max_changed_lines, err);
	}
	if (rc == 0 && (v = at_json_get(j, "open_comments"))) {
		p->has_open_comments = true;
		rc = parse_count(v, what, "open_comments", 1e15, &p->max_open_comments, err);
	}
	if (rc == 0 && (v = at_json_get(j, "allow_binary")))
		rc = parse_bool(v, what, "allow_binary", &p->allow_binary, err);
	if (rc == 0 && (v = at_json_get(j, "allow_symlinks_out")))
		rc = parse_bool(v, what, "allow_symlinks_out", &p->allow_symlinks_out, err);
	if (rc == 0 && (v = at_json_get(j, "host_files")))
		rc = parse_host_files(p, v, what, err);
	if (rc == 0 && (v = at_json_get(j, "checks")))
		rc = parse_checks(p, v, what, err);
	return rc;
}

/*
 * The policy protects itself: a task may not loosen the policy that judges
 * the tasks after it. A change under .agenttask/ fails like any protected
 * path (a person changes the policy on the base, or accepts with --override).
 */
static int protect_policy_dir(struct at_policy *p, struct at_error *err)
{
	size_t i;

	for (i = 0; i < p->nprotected; i++)
		if (strcmp(p->protected_paths[i], AT_POLICY_DIR) == 0)
			return 0;
	if (AT_ARRAY_GROW(p->protected_paths, p->protected_cap, p->nprotected + 2) < 0)
		return oom(err);
	p->protected_paths[p->nprotected] = xstrdup(AT_POLICY_DIR);
	if (!p->protected_paths[p->nprotected])
		return oom(err);
	p->protected_paths[++p->nprotected] = NULL;
	return 0;
}

int at_policy_parse(struct at_policy *out, const char *text, const char *what,
		    struct at_error *err)
{
	struct at_error perr = AT_ERROR_INIT;
	struct at_policy p;
	at_json *j = NULL;
	int rc;

	memset(&p, 0, sizeof(p));
	p.allow_binary = true;
	if (at_json_parse(&j, text, what, &perr) < 0)
		return at_error_set(err, AT_EPOLICY, "malformed policy: %s", perr.msg);
	if (!at_json_is_object(j))
		rc = bad(err, what, NULL, "not a JSON object");
	else if ((rc = check_members(j, top_keys, what, "", err)) == 0)
		rc = parse_object(&p, j, what, err);
	if (rc == 0)
		rc = protect_policy_dir(&p, err);
	at_json_free(j);
	if (rc < 0) {
		at_policy_release(&p);
		return rc;
	}
	*out = p;
	return 0;
}

void at_policy_strv_free(char **v, size_t n)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void at_policy_release(struct at_policy *p)
{
	size_t i;

	if (!p)
		return;
	at_policy_strv_free(p->protected_paths, p->nprotected);
	for (i = 0; p->checks && i < p->nchecks; i++) {
		free(p->checks[i].name);
		at_policy_strv_free(p->checks[i].argv, p->checks[i].argc);
		at_policy_strv_free(p->checks[i].allow_hosts, p->checks[i].nallow_hosts);
		at_policy_strv_free(p->checks[i].forward, p->checks[i].nforward);
	}
	free(p->checks);
	memset(p, 0, sizeof(*p));
}
