#include "git/diff_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "gitfmt/diff_format.h"

#define NO_NEWLINE "\\ No newline at end of file"

/* ---- the patch -------------------------------------------------------- */

struct out {
	at_diff_line_cb cb;
	void *payload;
	struct at_error *err;
};

static int put(struct out *o, char origin, const char *s, size_t len)
{
	if (o->cb(origin, s, len, o->payload) == 0)
		return 0;
	return at_error_sys(o->err, AT_ESYS, "cannot write the diff");
}

static int putf(struct out *o, char origin, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int putf(struct out *o, char origin, const char *fmt, ...)
{
	char *s = NULL;
	va_list ap;
	int n, rc;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return at_error_set(o->err, AT_ESYS, "out of memory");
	rc = put(o, origin, s, (size_t)n);
	free(s);
	return rc;
}

/* The shortest unique abbreviation of at least d->abbrev digits, like git's. */
static void abbrev_id(struct at_diff *d, const git_oid *id, char buf[AT_OID_HEXSZ + 1])
{
	int len = d->abbrev;
	git_oid found;

	if (!git_oid_is_zero(id))
		while (len < AT_OID_HEXSZ &&
		       git_odb_exists_prefix(&found, d->odb, id, (size_t)len) == GIT_EAMBIGUOUS)
			len++;
	git_error_clear();
	git_oid_tostr(buf, (size_t)len + 1, id);
}

struct side {
	const char *path;
	unsigned int mode;         /* 0: this side does not exist */
	git_oid id;
};

struct file_hdr {
	struct side a, b;
	git_delta_t status;
	int similarity;
	bool binary;
	bool hunks;
};

static void side_of(struct side *s, const git_diff_file *f)
{
	s->path = f->path;
	s->mode = f->mode;
	git_oid_cpy(&s->id, &f->id);
}

/* The mode lines and the rename lines, in git's order. */
static int emit_meta(struct at_diff *d, struct out *o, const struct file_hdr *h)
{
	const char *kind = h->status == GIT_DELTA_COPIED ? "copy" : "rename";
	AT_AUTOFREE char *from = NULL, *to = NULL;
	int rc = 0;

	if (!h->a.mode)
		rc = putf(o, 'F', "new file mode %06o", h->b.mode);
	else if (!h->b.mode)
		rc = putf(o, 'F', "deleted file mode %06o", h->a.mode);
	else if (h->a.mode != h->b.mode && (rc = putf(o, 'F', "old mode %06o", h->a.mode)) == 0)
		rc = putf(o, 'F', "new mode %06o", h->b.mode);
	if (rc < 0 || (h->status != GIT_DELTA_RENAMED && h->status != GIT_DELTA_COPIED))
		return rc;
	from = at_diff_quote("", h->a.path, d->quote_high);
	to = at_diff_quote("", h->b.path, d->quote_high);
	if (!from || !to)
		return at_error_set(o->err, AT_ESYS, "out of memory");
	if ((rc = putf(o, 'F', "similarity index %d%%", h->similarity)) == 0 &&
	    (rc = putf(o, 'F', "%s from %s", kind, from)) == 0)
		rc = putf(o, 'F', "%s to %s", kind, to);
	return rc;
}

static int emit_index(struct at_diff *d, struct out *o, const struct file_hdr *h)
{
	char a[AT_OID_HEXSZ + 1], b[AT_OID_HEXSZ + 1];

	if (git_oid_equal(&h->a.id, &h->b.id))
		return 0;
	abbrev_id(d, &h->a.id, a);
	abbrev_id(d, &h->b.id, b);
	if (h->a.mode == h->b.mode)
		return putf(o, 'F', "index %s..%s %06o", a, b, h->a.mode);
	return putf(o, 'F', "index %s..%s", a, b);
}

/* "--- a/x" / "+++ b/x", or the binary notice; git adds a tab after a name with a space. */
static int emit_labels(struct out *o, const struct file_hdr *h, const char *qa, const char *qb)
{
	const char *la = h->a.mode ? qa : "/dev/null", *lb = h->b.mode ? qb : "/dev/null";
	int rc;

	if (git_oid_equal(&h->a.id, &h->b.id))
		return 0;
	if (h->binary)
		return putf(o, 'B', "Binary files %s and %s differ", la, lb);
	if (!h->hunks)
		return 0;
	rc = putf(o, 'F', "--- %s%s", la, strchr(la, ' ') ? "\t" : "");
	return rc < 0 ? rc : putf(o, 'F', "+++ %s%s", lb, strchr(lb, ' ') ? "\t" : "");
}

static int emit_header(struct at_diff *d, struct out *o, const struct file_hdr *h)
{
	AT_AUTOFREE char *qa = at_diff_quote("a/", h->a.path, d->quote_high);
	AT_AUTOFREE char *qb = at_diff_quote("b/", h->b.path, d->quote_high);
	int rc;

	if (!qa || !qb)
		return at_error_set(o->err, AT_ESYS, "out of memory");
	if ((rc = putf(o, 'F', "diff --git %s %s", qa, qb)) < 0 || (rc = emit_meta(d, o, h)) < 0 ||
	    (rc = emit_index(d, o, h)) < 0)
		return rc;
	return emit_labels(o, h, qa, qb);
}

static size_t chomp(const char *s, size_t len)
{
	return len > 0 && s[len - 1] == '\n' ? len - 1 : len;
}

static int emit_line(struct out *o, const git_diff_line *line)
{
	switch (line->origin) {
	case GIT_DIFF_LINE_CONTEXT_EOFNL:
	case GIT_DIFF_LINE_ADD_EOFNL:
	case GIT_DIFF_LINE_DEL_EOFNL:
		return put(o, line->origin, NO_NEWLINE, strlen(NO_NEWLINE));
	default:
		return put(o, line->origin, line->content, chomp(line->content, line->content_len));
	}
}

static int emit_hunks(struct out *o, git_patch *p)
{
	size_t h, l, nlines, nh = git_patch_num_hunks(p);
	const git_diff_hunk *hunk;
	const git_diff_line *line;
	int rc = 0;

	for (h = 0; rc == 0 && h < nh; h++) {
		if (git_patch_get_hunk(&hunk, &nlines, p, h) < 0)
			return at_git_error(o->err, AT_EGIT, "cannot read a hunk");
		rc = put(o, 'H', hunk->header, chomp(hunk->header, hunk->header_len));
		for (l = 0; rc == 0 && l < nlines; l++) {
			if (git_patch_get_line_in_hunk(&line, p, h, l) < 0)
				return at_git_error(o->err, AT_EGIT, "cannot read a line");
			rc = emit_line(o, line);
		}
	}
	return rc;
}

static int emit_patch(struct at_diff *d, struct out *o, git_patch *p, struct file_hdr *h)
{
	int rc;

	h->binary = (git_patch_get_delta(p)->flags & GIT_DIFF_FLAG_BINARY) != 0;
	h->hunks = git_patch_num_hunks(p) > 0;
	rc = emit_header(d, o, h);
	return rc < 0 ? rc : emit_hunks(o, p);
}

/* One side of a type change as a whole file deleted (old) or added (new). */
static int emit_half(struct at_diff *d, struct out *o, const git_diff_delta *delta, bool old)
{
	const git_diff_file *f = old ? &delta->old_file : &delta->new_file;
	struct file_hdr h = { .status = old ? GIT_DELTA_DELETED : GIT_DELTA_ADDED };
	struct at_diff_side_text ta, tb;
	git_patch *p = NULL;
	int rc;

	side_of(old ? &h.a : &h.b, f);
	(old ? &h.b : &h.a)->path = f->path;
	if (at_diff_sides_patch(d, old ? f : NULL, old ? NULL : f, &ta, &tb, &p) < 0)
		rc = at_git_error(o->err, AT_EGIT, "cannot compare '%s'", f->path);
	else
		rc = emit_patch(d, o, p, &h);
	git_patch_free(p);
	at_diff_side_text_release(&ta);
	at_diff_side_text_release(&tb);
	return rc;
}

static int emit_entry(struct at_diff *d, struct out *o, const struct at_diff_entry *e)
{
	const git_diff_delta *delta = git_diff_get_delta(d->diff, e->idx);
	const git_diff_file *a = at_diff_entry_old(d->diff, e), *b = at_diff_entry_new(d->diff, e);
	struct file_hdr h = { .status = e->status, .similarity = e->similarity };
	struct at_diff_side_text ta = { 0 }, tb = { 0 };
	git_patch *p = NULL;
	int rc;

	/* git shows a file <-> symlink change as a deletion, then an addition. */
	if (e->status == GIT_DELTA_TYPECHANGE) {
		rc = emit_half(d, o, delta, true);
		return rc < 0 ? rc : emit_half(d, o, delta, false);
	}
	side_of(&h.a, a);
	side_of(&h.b, b);
	if (at_diff_own_patch(e) ? at_diff_sides_patch(d, a, b, &ta, &tb, &p) < 0
			 : git_patch_from_diff(&p, d->diff, e->idx) < 0)
		rc = at_git_error(o->err, AT_EGIT, "cannot compare '%s'", at_diff_delta_path(delta));
	else
		rc = emit_patch(d, o, p, &h);
	git_patch_free(p);
	at_diff_side_text_release(&ta);
	at_diff_side_text_release(&tb);
	return rc;
}

int at_diff_patch(struct at_diff *d, at_diff_line_cb cb, void *payload, struct at_error *err)
{
	struct out o = { cb, payload, err };
	size_t i;
	int rc = 0;

	for (i = 0; rc == 0 && i < d->n; i++)
		rc = emit_entry(d, &o, &d->ent[i]);
	return rc;
}
