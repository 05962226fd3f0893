#include "core/comments.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/array.h"
#include "core/util.h"

#define LINE_MAX_NO 100000000.0

void at_comments_release(struct at_comments *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->n; i++) {
		free(c->v[i].path);
		free(c->v[i].text);
	}
	free(c->v);
	memset(c, 0, sizeof(*c));
}

int at_comments_add(struct at_comments *c, const struct at_oid *tree, const char *path,
		    size_t first, size_t last, const char *text, int64_t time,
		    unsigned long *out_id, struct at_error *err)
{
	struct at_comment *m;
	size_t len = strlen(text);

	if (len == 0)
		return at_error_set(err, AT_EUSAGE, "empty comment");
	if (len > AT_COMMENT_TEXT_MAX)
		return at_error_set(err, AT_EUSAGE, "comment too long (%zu bytes, at most %d)",
				    len, AT_COMMENT_TEXT_MAX);
	if (c->n >= AT_COMMENTS_MAX)
		return at_error_set(err, AT_EUSAGE, "too many comments (at most %d)",
				    AT_COMMENTS_MAX);
	if (AT_ARRAY_GROW(c->v, c->cap, c->n + 1) < 0)
		return at_error_set(err, AT_ESYS, "out of memory");
	m = &c->v[c->n];
	memset(m, 0, sizeof(*m));
	m->path = path ? strdup(path) : NULL;
	m->text = strdup(text);
	if ((path && !m->path) || !m->text) {
		free(m->path);
		free(m->text);
		return at_error_set(err, AT_ESYS, "out of memory");
	}
	if (c->next_id == 0)
		c->next_id = 1;
	m->id = c->next_id++;
	m->tree = *tree;
	m->first = path ? first : 0;
	m->last = path ? last : 0;
	strcpy(m->author, "person");
	m->time = time;
	c->n++;
	if (out_id)
		*out_id = m->id;
	return 0;
}

struct at_comment *at_comments_find(struct at_comments *c, unsigned long id)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (c->v[i].id == id)
			return &c->v[i];
	return NULL;
}

size_t at_comments_open(const struct at_comments *c)
{
	size_t i, n = 0;

	for (i = 0; i < c->n; i++)
		n += !c->v[i].resolved;
	return n;
}

static at_json *comment_json(const struct at_comment *m)
{
	char hex[AT_OID_HEXSZ + 1];
	at_json *o = at_json_object();

	at_oid_fmt(hex, &m->tree);
	if (!o)
		return NULL;
	if (at_json_add_number(o, "id", (double)m->id) < 0 ||
	    at_json_add_string(o, "tree", hex) < 0 ||
	    (m->path ? at_json_add_string(o, "path", m->path) : at_json_add_null(o, "path")) < 0 ||
	    at_json_add_number(o, "first", (double)m->first) < 0 ||
	    at_json_add_number(o, "last", (double)m->last) < 0 ||
	    at_json_add_string(o, "text", m->text) < 0 ||
	    at_json_add_string(o, "author", m->author) < 0 ||
	    at_json_add_number(o, "time", (double)m->time) < 0 ||
	    at_json_add_bool(o, "resolved", m->resolved) < 0) {
		at_json_free(o);
		return NULL;
	}
	return o;
}

char *at_comments_to_json(const struct at_comments *c)
{
	char hex[AT_OID_HEXSZ + 1];
	at_json *o = at_json_object(), *arr = at_json_array();
	char *text = NULL;
	size_t i;

	if (!o || !arr)
		goto out;
	for (i = 0; i < c->n; i++)
		if (at_json_append(arr, comment_json(&c->v[i])) < 0)
			goto out;
	if (c->has_reviewed)
		at_oid_fmt(hex, &c->reviewed);
	if (at_json_add_number(o, "version", 1) == 0 &&
	    at_json_add_number(o, "next_id", (double)(c->next_id ? c->next_id : 1)) == 0 &&
	    (c->has_reviewed ? at_json_add_string(o, "reviewed", hex)
			     : at_json_add_null(o, "reviewed")) == 0 &&
	    at_json_add(o, "comments", arr) == 0) {
		arr = NULL;
		text = at_json_print(o, true);
	}
out:
	at_json_free(arr);
	at_json_free(o);
	return text;
}

static int bad(struct at_error *err, const char *what, const char *why)
{
	return at_error_set(err, AT_ECORRUPT, "corrupt comments '%s': %s", what, why);
}

/* A whole number in [lo, hi]: range-checked before any conversion. */
static bool get_count(const at_json *o, const char *key, double lo, double hi, double *out)
{
	double v;

	if (!at_json_get_number(o, key, &v) || !(v >= lo && v <= hi) || v != (double)(int64_t)v)
		return false;
	*out = v;
	return true;
}

static int comment_from(const at_json *o, const char *what, struct at_comments *c,
			struct at_error *err)
{
	const char *tree = at_json_get_string(o, "tree"), *path = at_json_get_string(o, "path");
	const char *text = at_json_get_string(o, "text");
	double id, time, first = 0, last = 0;
	struct at_oid oid;
	struct at_comment *m;
	bool resolved;

	if (!at_json_is_object(o) || !get_count(o, "id", 1, 1e12, &id) ||
	    !tree || at_oid_parse(&oid, tree) < 0 || !text || !*text ||
	    strlen(text) > AT_COMMENT_TEXT_MAX || !get_count(o, "time", 0, 1e15, &time) ||
	    !at_json_get_bool(o, "resolved", &resolved))
		return bad(err, what, "a comment lacks a valid field");
	if (path) {
		if (!*path || path[0] == '/' || !get_count(o, "first", 1, LINE_MAX_NO, &first) ||
		    !get_count(o, "last", first, LINE_MAX_NO, &last))
			return bad(err, what, "a comment's path or lines are not valid");
	}
	if (at_comments_find(c, (unsigned long)id))
		return bad(err, what, "two comments have one id");
	if (at_comments_add(c, &oid, path, (size_t)first, (size_t)last, text, (int64_t)time, NULL,
			    err) < 0)
		return err->code == AT_ESYS ? err->code : bad(err, what, "a comment is not valid");
	m = &c->v[c->n - 1];
	m->id = (unsigned long)id;
	m->resolved = resolved;
	return 0;
}

int at_comments_from_json(const char *text, const char *what, struct at_comments *out,
			  struct at_error *err)
{
	struct at_comments c = { 0 };
	const char *reviewed;
	at_json *o = NULL, *arr, *it;
	double next;
	int rc;

	if ((rc = at_json_parse(&o, text, what, err)) < 0)
		return rc;
	arr = at_json_get(o, "comments");
	reviewed = at_json_get_string(o, "reviewed");
	if (!at_json_is_object(o) || !at_json_is_array(arr) ||
	    !get_count(o, "next_id", 1, 1e12, &next)) {
		rc = bad(err, what, "not a comments file");
		goto out;
	}
	if (reviewed) {
		if (at_oid_parse(&c.reviewed, reviewed) < 0) {
			rc = bad(err, what, "bad 'reviewed'");
			goto out;
		}
		c.has_reviewed = true;
	}
	for (it = at_json_child(arr); it; it = at_json_next(it))
		if ((rc = comment_from(it, what, &c, err)) < 0)
			goto out;
	c.next_id = (unsigned long)next;
	for (size_t i = 0; i < c.n; i++)
		if (c.v[i].id >= c.next_id)
			c.next_id = c.v[i].id + 1;
	*out = c;
	memset(&c, 0, sizeof(c));
	rc = 0;
out:
	at_comments_release(&c);
	at_json_free(o);
	return rc;
}

int at_comments_load(const struct at_paths *p, const char *name, struct at_comments *out,
		     struct at_error *err)
{
	AT_AUTOFREE char *text = NULL;
	char path[PATH_MAX];

	if (at_paths_comments(p, name, path, sizeof(path), err) < 0)
		return err->code;
	text = at_read_file(path, AT_COMMENTS_FILE_MAX, NULL);
	if (!text) {
		if (errno == ENOENT) {
			memset(out, 0, sizeof(*out));
			out->next_id = 1;
			return 0;
		}
		return at_error_sys(err, AT_ECORRUPT, "cannot read comments '%s'", path);
	}
	return at_comments_from_json(text, path, out, err);
}

int at_comments_save(const struct at_paths *p, const char *name, const struct at_comments *c,
		     struct at_error *err)
{
	AT_AUTOFREE char *text = NULL;
	char path[PATH_MAX];

	if (at_paths_comments(p, name, path, sizeof(path), err) < 0 ||
	    at_paths_ensure_comments(p, err) < 0)
		return err->code;
	text = at_comments_to_json(c);
	if (!text)
		return at_error_set(err, AT_ESYS, "out of memory writing '%s'", path);
	if (at_write_atomic(path, text, strlen(text), 0600) < 0)
		return at_error_sys(err, AT_ESYS, "cannot write '%s'", path);
	return 0;
}

int at_comments_remove(const struct at_paths *p, const char *name, struct at_error *err)
{
	char path[PATH_MAX];

	if (at_paths_comments(p, name, path, sizeof(path), err) < 0)
		return err->code;
	if (unlink(path) < 0 && errno != ENOENT)
		return at_error_sys(err, AT_ESYS, "cannot remove '%s'", path);
	return 0;
}

int at_comments_set_reviewed(const struct at_paths *p, const char *name,
			     const struct at_oid *tree, struct at_error *err)
{
	struct at_comments c;
	int rc;

	if ((rc = at_comments_load(p, name, &c, err)) < 0)
		return rc;
	c.reviewed = *tree;
	c.has_reviewed = true;
	rc = at_comments_save(p, name, &c, err);
	at_comments_release(&c);
	return rc;
}
