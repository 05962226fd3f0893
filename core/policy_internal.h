/*
 * policy_internal.h - what the files of the policy (core/policy*.c) share;
 * included by nothing else.
 */
#ifndef AT_CORE_POLICY_INTERNAL_H
#define AT_CORE_POLICY_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "core/policy.h"

/* Append a row (rule and message copied); NULL when out of memory. */
struct at_rule_result *at_policy_result_push(struct at_policy_result *res, const char *rule,
					     bool passed, const char *message);

/* Append a path (copied) to a row; 0, or -1 when out of memory. */
int at_policy_result_path(struct at_rule_result *r, const char *path);

/* Free n strings and their array (NULL: nothing). */
void at_policy_strv_free(char **v, size_t n);

#endif
