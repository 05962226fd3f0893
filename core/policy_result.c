/*
 * policy_result.c - the rows of a gate's report (struct at_policy_result):
 * each rule's and each check's verdict, message and paths.
 */
#include "core/policy.h"

#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/policy_internal.h"

static char *xstrdup(const char *s)
{
	return strdup(s ? s : "");
}

struct at_rule_result *at_policy_result_push(struct at_policy_result *res, const char *rule,
					     bool passed, const char *message)
{
	struct at_rule_result *r;

	if (AT_ARRAY_GROW(res->rules, res->cap, res->count + 1) < 0)
		return NULL;
	r = &res->rules[res->count];
	memset(r, 0, sizeof(*r));
	r->rule = xstrdup(rule);
	r->message = xstrdup(message);
	r->passed = passed;
	if (!r->rule || !r->message) {
		free(r->rule);
		free(r->message);
		return NULL;
	}
	res->count++;
	return r;
}

int at_policy_result_path(struct at_rule_result *r, const char *path)
{
	if (AT_ARRAY_GROW(r->paths, r->paths_cap, r->npaths + 1) < 0)
		return -1;
	r->paths[r->npaths] = xstrdup(path);
	if (!r->paths[r->npaths])
		return -1;
	r->npaths++;
	return 0;
}

int at_policy_result_add(struct at_policy_result *res, const char *rule, bool passed,
			 const char *message, const char *output, struct at_error *err)
{
	struct at_rule_result *r = at_policy_result_push(res, rule, passed, message);

	if (!r)
		return at_error_set(err, AT_ESYS, "out of memory");
	r->is_check = true;
	if (output && !(r->output = xstrdup(output)))
		return at_error_set(err, AT_ESYS, "out of memory");
	return 0;
}

bool at_policy_result_passed(const struct at_policy_result *res)
{
	size_t i;

	for (i = 0; i < res->count; i++)
		if (!res->rules[i].passed)
			return false;
	return true;
}

void at_policy_result_release(struct at_policy_result *res)
{
	size_t i;

	if (!res)
		return;
	for (i = 0; i < res->count; i++) {
		free(res->rules[i].rule);
		free(res->rules[i].message);
		at_policy_strv_free(res->rules[i].paths, res->rules[i].npaths);
		free(res->rules[i].output);
	}
	free(res->rules);
	res->rules = NULL;
	res->count = res->cap = 0;
}
