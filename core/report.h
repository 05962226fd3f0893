/*
 * report.h - what a long operation did, one line per thing done, left alone
 * or failed, in order (gc, and the trash and scratch sweeps it calls).
 *
 * A plain list in core/, so that the git/ files gc calls add to it without
 * knowing gc (no call cycle between them). A failure is a line too, marked:
 * the operation went on past it, and its caller says so (exit 1).
 */
#ifndef AT_CORE_REPORT_H
#define AT_CORE_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "core/strlist.h"

struct at_report {
	struct at_strlist lines;
	bool *failed;             /* failed[i]: lines.v[i] is a failure */
	size_t cap, nfailed;
};

#define AT_REPORT_INIT { AT_STRLIST_INIT, NULL, 0, 0 }

/* A thing done or left alone. 0, or -1 when out of memory. */
int at_report_add(struct at_report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A failure, then err cleared for the operation to go on. 0, or -1 when out of memory. */
int at_report_fail(struct at_report *r, struct at_error *err);

/* A failure, in words. 0, or -1 when out of memory. */
int at_report_failf(struct at_report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

void at_report_release(struct at_report *r);

#endif
