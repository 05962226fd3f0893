#include "core/report.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/array.h"

static int add(struct at_report *r, bool failed, const char *fmt, va_list ap)
{
	char *s;

	if (AT_ARRAY_GROW(r->failed, r->cap, r->lines.n + 1) < 0 || vasprintf(&s, fmt, ap) < 0)
		return -1;
	if (at_strlist_push_owned(&r->lines, s) < 0)
		return -1;
	r->failed[r->lines.n - 1] = failed;
	r->nfailed += failed;
	return 0;
}

int at_report_add(struct at_report *r, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = add(r, false, fmt, ap);
	va_end(ap);
	return rc;
}

int at_report_failf(struct at_report *r, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = add(r, true, fmt, ap);
	va_end(ap);
	return rc;
}

int at_report_fail(struct at_report *r, struct at_error *err)
{
	int rc = at_report_failf(r, "%s", err->msg[0] ? err->msg : "failed");

	at_error_clear(err);
	return rc;
}

void at_report_release(struct at_report *r)
{
	if (!r)
		return;
	at_strlist_release(&r->lines);
	free(r->failed);
	r->failed = NULL;
	r->cap = r->nfailed = 0;
}
