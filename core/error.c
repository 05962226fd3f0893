#include "core/error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int error_vset(struct at_error *err, int code, int sys_errno, const char *fmt,
		      va_list ap)
{
	if (!err)
		return code;
	if (err->code != 0)
		return err->code;
	err->code = code;
	err->sys_errno = sys_errno;
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	if (sys_errno) {
		size_t len = strlen(err->msg);
		snprintf(err->msg + len, sizeof(err->msg) - len, ": %s", strerror(sys_errno));
	}
	return code;
}

int at_error_set(struct at_error *err, int code, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = error_vset(err, code, 0, fmt, ap);
	va_end(ap);
	return rc;
}

int at_error_sys(struct at_error *err, int code, const char *fmt, ...)
{
	int saved = errno;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = error_vset(err, code, saved ? saved : EIO, fmt, ap);
	va_end(ap);
	errno = saved;
	return rc;
}

void at_error_clear(struct at_error *err)
{
	if (err) {
		err->code = 0;
		err->sys_errno = 0;
		err->msg[0] = '\0';
	}
}
