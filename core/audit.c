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
	return at_paths_log(p, task, buf, size, NULL);
}

static int add_time(at_json *entry)
{
	char buf[AT_TIME_MAX];

	if (at_json_get(entry, "time"))
		return 0;
	at_time_iso(buf, sizeof(buf), (int64_t)time(NULL));
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
	    at_json_add(o, "error", at_json_error("corrupt", why)) < 0) {
		at_json_free(o);
		return -1;
	}
	return at_json_append(arr, o);
}

/*
 * A run entry written before errors were {code, message} holds a string:
 * read, it is the object too. The run exited 125 when the sandbox could not
 * be set up; otherwise its command could not be executed (126, 127).
 */
static int upgrade_entry(at_json *e)
{
	const char *why = at_json_get_string(e, "error");
	double status = 0;

	if (!why)
		return 0;
	at_json_get_number(e, "exit_code", &status);
	return at_json_set(e, "error",
			   at_json_error(status == AT_RUN_SETUP ? "sandbox" : "exec", why));
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
			if ((rc = upgrade_entry(j)) < 0)
				at_json_free(j);
			else
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

/* ---- the builders: one per event, the whole schema (audit.h) ---- */

/* Append e (consumed) when every member was added (bad == 0). */
static int append_built(const struct at_paths *p, const char *task, at_json *e, int bad,
			struct at_error *err)
{
	int rc;

	if (!e || bad)
		rc = at_error_set(err, AT_ESYS, "out of memory");
	else
		rc = at_audit_append(p, task, e, err);
	at_json_free(e);
	return rc;
}

static at_json *event(const char *kind)
{
	at_json *e = at_json_object();

	if (e && at_json_add_string(e, "event", kind) < 0) {
		at_json_free(e);
		return NULL;
	}
	return e;
}

static int add_oid(at_json *e, const char *key, const struct at_oid *id)
{
	char hex[AT_OID_HEXSZ + 1];

	if (!id)
		return at_json_add_null(e, key);
	at_oid_fmt(hex, id);
	return at_json_add_string(e, key, hex);
}

int at_audit_new(const struct at_paths *p, const struct at_task *t, struct at_error *err)
{
	at_json *e = event("new");
	int bad = 0;

	bad |= at_json_add_string(e, "base_branch", at_branch_short(t->base_branch));
	bad |= at_json_add_string(e, "base_commit", t->base_commit);
	return append_built(p, t->name, e, bad, err);
}

static at_json *strings_json(char *const *v)
{
	at_json *arr = at_json_array();
	size_t i;

	for (i = 0; arr && v && v[i]; i++) {
		if (at_json_append(arr, at_json_string(v[i])) < 0) {
			at_json_free(arr);
			return NULL;
		}
	}
	return arr;
}

static at_json *binds_json(const struct at_run_bind *b, size_t n)
{
	at_json *arr = at_json_array();
	size_t i;
	int bad = 0;

	for (i = 0; arr && i < n; i++) {
		at_json *o = at_json_object();

		bad |= at_json_add_string(o, "path", b[i].path);
		bad |= at_json_add_bool(o, "writable", b[i].writable);
		bad |= at_json_append(arr, o);
	}
	if (bad) {
		at_json_free(arr);
		return NULL;
	}
	return arr;
}

at_json *at_audit_limits_json(const struct at_limits *l, const enum at_limit_mech *mech,
			      uint64_t timeout_ms)
{
	at_json *o = at_json_object();
	int i, bad = 0;

	for (i = 0; o && l && i < AT_LIMIT_COUNT; i++) {
		const char *note = at_limit_mech_note((enum at_limit)i, mech[i]);
		at_json *v;

		if (!l->value[i])
			continue;
		v = at_json_object();
		bad |= at_json_add_number(v, "value", (double)l->value[i]);
		bad |= at_json_add_string(v, "mechanism", at_limit_mech_name(mech[i]));
		bad |= at_json_add_bool(v, "default", (l->defaults >> i) & 1);
		if (note)
			bad |= at_json_add_string(v, "note", note);
		bad |= at_json_add(o, at_limit_name((enum at_limit)i), v);
	}
	/* The timeout is a limit like the others: one shape for all (its value in ms). */
	if (o && timeout_ms) {
		at_json *v = at_json_object();

		bad |= at_json_add_number(v, "value", (double)timeout_ms);
		bad |= at_json_add_string(v, "mechanism", "supervisor");
		bad |= at_json_add_bool(v, "default", false);
		bad |= at_json_add(o, "timeout", v);
	}
	if (bad) {
		at_json_free(o);
		return NULL;
	}
	return o;
}

int at_audit_run(const struct at_paths *p, const char *task, const struct at_audit_run *r,
		 struct at_error *err)
{
	const struct at_run_result *res = r->res;
	at_json *e = event("run");
	char start[AT_TIME_MAX + 8];
	int bad = 0;

	at_time_iso_ms(start, sizeof(start), res->start_ms);
	bad |= at_json_add_string(e, "time", start);
	bad |= at_json_add_string(e, "task", task);
	bad |= at_json_add(e, "argv", strings_json(r->argv));
	if (r->number)
		bad |= at_json_add_number(e, "number", r->number);
	bad |= at_json_add_string(e, "start", start);
	bad |= at_json_add_number(e, "duration_ms", (double)res->duration_ms);
	bad |= at_json_add_number(e, "exit_code", r->exit_code);
	bad |= at_json_add_bool(e, "timed_out", res->timed_out);
	bad |= at_json_add_number(e, "signal", res->term_signal);
	bad |= at_json_add_number(e, "max_rss_kb", (double)res->max_rss_kb);
	bad |= at_json_add_number(e, "user_cpu_ms", (double)res->user_cpu_ms);
	bad |= at_json_add_number(e, "sys_cpu_ms", (double)res->sys_cpu_ms);
	bad |= at_json_add_bool(e, "net", r->net);
	if (r->network)
		bad |= at_json_add(e, "network", r->network);
	if (r->published)
		bad |= at_json_add(e, "published", r->published);
	bad |= at_json_add(e, "binds", binds_json(r->binds, r->nbinds));
	bad |= at_json_add(e, "limits", at_audit_limits_json(r->limits, res->mech, r->timeout_ms));
	if (at_run_stop_name(res->stop))
		bad |= at_json_add_string(e, "reason", at_run_stop_name(res->stop));
	if (res->cancelled)
		bad |= at_json_add_bool(e, "cancelled", true);
	if (r->error && r->error->code)
		bad |= at_json_add(e, "error", at_json_error_of(r->error));
	else if (res->exec_failed)
		bad |= at_json_add(e, "error", at_json_error("exec", res->exec_error));
	return append_built(p, task, e, bad, err);
}

int at_audit_gate(const struct at_paths *p, const char *task, bool passed,
		  const struct at_oid *tree, const char *policy, const struct at_strlist *failed,
		  const at_json *network, struct at_error *err)
{
	at_json *e = event("gate"), *names = at_json_array();
	size_t i;
	int bad = 0;

	for (i = 0; names && failed && i < failed->n; i++)
		bad |= at_json_append(names, at_json_string(failed->v[i]));
	bad |= at_json_add_string(e, "task", task);
	bad |= at_json_add_bool(e, "passed", passed);
	bad |= add_oid(e, "tree", tree);
	bad |= policy ? at_json_add_string(e, "policy", policy) : at_json_add_null(e, "policy");
	bad |= at_json_add(e, "failed", names);
	if (network)
		bad |= at_json_add(e, "network", at_json_dup(network));
	return append_built(p, task, e, bad, err);
}

int at_audit_override(const struct at_paths *p, const struct at_task *t, const char *reason,
		      const struct at_oid *tree, struct at_error *err)
{
	at_json *e = event("accept-override");
	int bad = 0;

	bad |= at_json_add_string(e, "reason", reason);
	bad |= add_oid(e, "tree", tree);
	bad |= at_json_add_string(e, "base_branch", at_branch_short(t->base_branch));
	return append_built(p, t->name, e, bad, err);
}

int at_audit_accept(const struct at_paths *p, const char *task, const char *base_branch,
		    const struct at_oid *commit, const char *result, struct at_error *err)
{
	at_json *e = event("accept");
	int bad = 0;

	bad |= at_json_add_string(e, "base_branch", at_branch_short(base_branch));
	bad |= add_oid(e, "commit", commit);
	bad |= at_json_add_string(e, "result", result);
	return append_built(p, task, e, bad, err);
}

int at_audit_commit(const struct at_paths *p, const char *task, const struct at_oid *commit,
		    struct at_error *err)
{
	at_json *e = event("commit");
	int bad = add_oid(e, "commit", commit);

	return append_built(p, task, e, bad, err);
}

int at_audit_discard(const struct at_paths *p, const char *task, const char *trash_ref,
		     bool commits_only, struct at_error *err)
{
	at_json *e = event("discard");
	int bad = 0;

	bad |= at_json_add_string(e, "trash", trash_ref);
	bad |= at_json_add_string(e, "saved", commits_only ? "commits only (--force)" : "full state");
	return append_built(p, task, e, bad, err);
}

int at_audit_restore(const struct at_paths *p, const struct at_task *t, const char *trash_ref,
		     struct at_error *err)
{
	at_json *e = event("restore");
	int bad = 0;

	bad |= at_json_add_string(e, "trash", trash_ref);
	bad |= at_json_add_string(e, "base_branch", at_branch_short(t->base_branch));
	return append_built(p, t->name, e, bad, err);
}

int at_audit_fork(const struct at_paths *p, const struct at_task *t, const char *from,
		  const struct at_oid *tip, struct at_error *err)
{
	char hex[AT_OID_HEXSZ + 1];
	at_json *e = event("fork");
	int bad = 0;

	at_oid_fmt(hex, tip);
	bad |= at_json_add_string(e, "from", from);
	bad |= at_json_add_string(e, "base_branch", at_branch_short(t->base_branch));
	bad |= at_json_add_string(e, "base_commit", t->base_commit);
	bad |= at_json_add_string(e, "tip", hex);
	return append_built(p, t->name, e, bad, err);
}

int at_audit_file(const struct at_paths *p, const char *task, const char *op, const char *path,
		  uint64_t bytes, bool created, struct at_error *err)
{
	at_json *e = event("file");
	int bad = 0;

	bad |= at_json_add_string(e, "op", op);
	bad |= at_json_add(e, "path", at_json_bytes(path, strlen(path), NULL));
	bad |= at_json_add_number(e, "bytes", (double)bytes);
	if (strcmp(op, "write") == 0)
		bad |= at_json_add_bool(e, "created", created);
	return append_built(p, task, e, bad, err);
}

int at_audit_import(const struct at_paths *p, const char *task, const struct at_oid *old,
		    const struct at_oid *new_tip, size_t objects, struct at_error *err)
{
	at_json *e = event("import");
	int bad = 0;

	bad |= add_oid(e, "old", old);
	bad |= add_oid(e, "new", new_tip);
	bad |= at_json_add_number(e, "objects", (double)objects);
	return append_built(p, task, e, bad, err);
}

int at_audit_rewind(const struct at_paths *p, const char *task, unsigned to, unsigned saved,
		    const struct at_oid *head, struct at_error *err)
{
	at_json *e = event("rewind");
	int bad = 0;

	bad |= at_json_add_number(e, "to", to);
	bad |= at_json_add_number(e, "saved", saved);
	bad |= add_oid(e, "head", head);
	return append_built(p, task, e, bad, err);
}

int at_audit_repair(const struct at_paths *p, const char *task, const struct at_oid *tip,
		    const struct at_oid *dropped, const char *reason, const char *kept,
		    struct at_error *err)
{
	at_json *e = event("repair");
	int bad = 0;

	bad |= add_oid(e, "tip", tip);
	bad |= add_oid(e, "dropped", dropped);
	bad |= reason ? at_json_add_string(e, "reason", reason) : at_json_add_null(e, "reason");
	bad |= at_json_add_string(e, "kept", kept);
	return append_built(p, task, e, bad, err);
}

bool at_audit_entry_time(const at_json *entry, int64_t *secs)
{
	const char *v = at_json_get_string(entry, "time");
	struct tm tm;
	int n = 0;

	memset(&tm, 0, sizeof(tm));
	if (!v || sscanf(v, "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
			 &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &n) != 6 || n != 19)
		return false;
	double ms = 0;

	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	/* A run's time is its start: it was active until its end. */
	if (!at_json_get_number(entry, "duration_ms", &ms) || ms < 0 || ms > 1e12)
		ms = 0;
	*secs = (int64_t)timegm(&tm) + (int64_t)(ms / 1000);
	return true;
}

int at_audit_last_time(const struct at_paths *p, const char *task, int64_t *secs,
		       struct at_error *err)
{
	at_json *entries = NULL;
	int64_t last = 0, t;
	size_t i;

	if (at_audit_read(p, task, &entries, err) < 0)
		return err->code;
	for (i = 0; i < at_json_size(entries); i++)
		if (at_audit_entry_time(at_json_at(entries, i), &t) && t > last)
			last = t;
	at_json_free(entries);
	*secs = last;
	return 0;
}
