#include "core/audit.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/fs.h"
#include "core/name.h"
#include "core/util.h"

int at_audit_path(const struct at_paths *p, const char *task, char *buf, size_t size)
{
	return at_fmt(buf, size, "%s/%s.jsonl", p->logs_dir, task);
}

static int add_time(at_json *entry)
{
	char buf[32];
	struct tm tm;
	time_t now = time(NULL);

	if (at_json_get(entry, "time"))
		return 0;
	gmtime_r(&now, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	return at_json_add_string(entry, "time", buf);
}

/* The logs directory is made only when missing: every run appends here. */
static int open_log(const struct at_paths *p, const char *path, struct at_error *err)
{
	int flags = O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW;
	int fd = open(path, flags, 0600);

	if (fd < 0 && errno == ENOENT) {
		if (at_mkdirs(p->logs_dir, 0700, err) < 0)
			return -1;
		fd = open(path, flags, 0600);
	}
	if (fd < 0)
		at_error_sys(err, AT_ESYS, "cannot open '%s'", path);
	return fd;
}

int at_audit_append(const struct at_paths *p, const char *task, at_json *entry,
		    struct at_error *err)
{
	char path[PATH_MAX];
	AT_AUTOFREE char *text = NULL;
	AT_AUTOFREE char *line = NULL;
	AT_AUTOCLOSE int fd = -1;
	size_t len;
	ssize_t n;

	if (at_name_check(task, err) < 0)
		return err->code;
	if (!at_json_is_object(entry) || !at_json_get_string(entry, "event"))
		return at_error_set(err, AT_EUSAGE, "an audit entry needs an \"event\"");
	if (at_audit_path(p, task, path, sizeof(path)) < 0)
		return at_error_sys(err, AT_ESYS, "path too long for the log of '%s'", task);
	if (add_time(entry) < 0 || !(text = at_json_print(entry, false)))
		return at_error_set(err, AT_ESYS, "out of memory");
	len = strlen(text);
	if (len + 1 > AT_AUDIT_LINE_MAX)
		return at_error_set(err, AT_ESYS, "audit entry too large (%zu bytes)", len);
	line = malloc(len + 2);
	if (!line)
		return at_error_set(err, AT_ESYS, "out of memory");
	memcpy(line, text, len);
	line[len] = '\n';
	fd = open_log(p, path, err);
	if (fd < 0)
		return err->code;
	/* One write: with O_APPEND the line lands whole, after any other. */
	do {
		n = write(fd, line, len + 1);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return at_error_sys(err, AT_ESYS, "cannot append to '%s'", path);
	if ((size_t)n != len + 1) {
		errno = ENOSPC;
		return at_error_sys(err, AT_ESYS, "short write to '%s'", path);
	}
	return 0;
}

static int corrupt_entry(at_json *arr, size_t lineno, const char *why)
{
	at_json *o = at_json_object();

	if (!o || at_json_add_string(o, "event", "corrupt") < 0 ||
	    at_json_add_number(o, "line", (double)lineno) < 0 ||
	    at_json_add_string(o, "error", why) < 0) {
		at_json_free(o);
		return -1;
	}
	return at_json_append(arr, o);
}

static int parse_lines(at_json *arr, FILE *f, const char *path, struct at_error *err)
{
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	ssize_t n;
	int rc = 0;

	while ((n = getline(&line, &cap, f)) >= 0) {
		struct at_error lerr = AT_ERROR_INIT;
		at_json *j = NULL;

		lineno++;
		if (n > 0 && line[n - 1] == '\n')
			line[--n] = '\0';
		if (n == 0)
			continue;
		if (at_json_parse(&j, line, path, &lerr) == 0 && at_json_is_object(j)) {
			rc = at_json_append(arr, j);
		} else {
			at_json_free(j);
			rc = corrupt_entry(arr, lineno, lerr.msg[0] ? lerr.msg : "not a JSON object");
		}
		if (rc < 0) {
			rc = at_error_set(err, AT_ESYS, "out of memory");
			break;
		}
	}
	if (rc == 0 && ferror(f))
		rc = at_error_sys(err, AT_ESYS, "cannot read '%s'", path);
	free(line);
	return rc;
}

/* Every line of f (closed here) into a new array. */
static int read_stream(FILE *f, const char *what, at_json **array_out, struct at_error *err)
{
	at_json *arr = at_json_array();
	int rc;

	if (!arr) {
		fclose(f);
		return at_error_set(err, AT_ESYS, "out of memory");
	}
	rc = parse_lines(arr, f, what, err);
	fclose(f);
	if (rc < 0) {
		at_json_free(arr);
		return rc;
	}
	*array_out = arr;
	return 0;
}

int at_audit_read(const struct at_paths *p, const char *task, at_json **array_out,
		  struct at_error *err)
{
	char path[PATH_MAX];
	FILE *f;
	int fd;

	if (at_name_check(task, err) < 0)
		return err->code;
	if (at_audit_path(p, task, path, sizeof(path)) < 0)
		return at_error_sys(err, AT_ESYS, "path too long for the log of '%s'", task);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		if (errno == ENOENT)
			return at_audit_parse("", 0, path, array_out, err);
		return at_error_sys(err, AT_ESYS, "cannot open '%s'", path);
	}
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return at_error_sys(err, AT_ESYS, "cannot read '%s'", path);
	}
	return read_stream(f, path, array_out, err);
}

int at_audit_parse(const char *buf, size_t len, const char *what, at_json **array_out,
		   struct at_error *err)
{
	at_json *arr;
	FILE *f;

	if (len == 0) {   /* fmemopen() refuses an empty buffer */
		if (!(arr = at_json_array()))
			return at_error_set(err, AT_ESYS, "out of memory");
		*array_out = arr;
		return 0;
	}
	if (!(f = fmemopen((void *)buf, len, "r")))
		return at_error_sys(err, AT_ESYS, "cannot read '%s'", what);
	return read_stream(f, what, array_out, err);
}
