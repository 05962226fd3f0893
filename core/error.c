#include "core/error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int error_vset(struct at_error *err, int code, int errnum, const char *fmt,
		      va_list ap)
{
	if (!err)
		return code;
	if (err->code != 0)
		return err->code;
	err->code = code;
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	if (errnum) {
		size_t len = strlen(err->msg);
		snprintf(err->msg + len, sizeof(err->msg) - len, ": %s", strerror(errnum));
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
		err->msg[0] = '\0';
	}
}

void at_error_append(struct at_error *err, const char *fmt, ...)
{
	size_t len;
	va_list ap;

	if (!err)
		return;
	len = strlen(err->msg);
	va_start(ap, fmt);
	vsnprintf(err->msg + len, sizeof(err->msg) - len, fmt, ap);
	va_end(ap);
}

/* Indexed by -code: one name per code, for JSON ("error": {"code": ...}). */
static const char *const code_names[] = {
	"ok", "usage", "not-found", "not-a-repository", "policy", "exists", "conflict",
	"dirty", "stale", "gate", "corrupt", "system", "git", "sandbox", "no-task", "busy",
	"unsafe", "cancelled",
};

const char *at_error_code_name(int code)
{
	size_t i = code <= 0 ? (size_t)-(long)code : 0;

	return i < sizeof(code_names) / sizeof(code_names[0]) ? code_names[i] : "system";
}
