/*
 * review_report.h - the gate report's insides, shared by review.c (which
 * fills it) and review_print.c (which shows it); nothing else includes it.
 */
#ifndef AT_CMD_REVIEW_REPORT_H
#define AT_CMD_REVIEW_REPORT_H

#include <limits.h>
#include <stdbool.h>

#include "core/policy.h"
#include "core/task.h"

struct at_gate_report {
	bool has_policy;
	char policy[PATH_MAX + 64];               /* "main:.agenttask/policy.json", or the file */
	char policy_commit[AT_OID_HEXSZ + 1];     /* the commit it was read at ("" for a file) */
	char base[AT_OID_HEXSZ + 1];              /* the merge base compared against */
	char tree[AT_OID_HEXSZ + 1];              /* the tree judged */
	char note[PATH_MAX + 128];                /* why nothing was judged, when so */
	struct at_policy_result res;
};

#endif
