/*
 * Provisional: no policy is ever found, so accept is never gated. The review
 * gate (policy, rules, checks) replaces this file.
 */
#include <stdlib.h>

#include "cmd/review.h"

struct at_gate_report {
	int unused;
};

int at_review_task(struct at_cli *cli, struct at_repo *r, const struct at_task *t,
		   const char *policy_file, struct at_gate_report **out, struct at_error *err)
{
	(void)cli;
	(void)r;
	(void)t;
	(void)policy_file;
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return at_error_set(err, AT_ESYS, "out of memory");
	return 0;
}

bool at_gate_report_has_policy(const struct at_gate_report *rep)
{
	(void)rep;
	return false;
}

bool at_gate_report_passed(const struct at_gate_report *rep)
{
	(void)rep;
	return true;
}

const char *at_gate_report_tree(const struct at_gate_report *rep)
{
	(void)rep;
	return "";
}

void at_gate_report_print_failures(const struct at_gate_report *rep, FILE *f)
{
	(void)rep;
	(void)f;
}

void at_gate_report_free(struct at_gate_report *rep)
{
	free(rep);
}
