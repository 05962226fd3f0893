#include "gitfmt/hunks.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One line of a body: its kind, its text (without the kind, with its '\n' unless followed by '\'). */
struct line {
	char kind;
	const char *p;
	size_t len;
};

struct lines {
	struct line *v;
	size_t n;
};

/* The lines of a body; -1 out of memory, AT_HUNK_MALFORMED. */
static int body_lines(const char *body, size_t len, struct lines *out)
{
	const char *p = body, *end = body + len, *nl;
	bool old_ended = false, new_ended = false;
	size_t cap = 0;
	char k;

	out->v = NULL;
	out->n = 0;
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		nl = nl ? nl + 1 : end;
		if (*p == '\\') {
			/*
			 * "\ No newline at end of file": the line before loses its '\n'
			 * (a line of no bytes at all is none: refused).
			 */
			if (out->n == 0 || out->v[out->n - 1].len <= 1 ||
			    out->v[out->n - 1].p[out->v[out->n - 1].len - 1] != '\n')
				goto malformed;
			out->v[out->n - 1].len--;
			k = out->v[out->n - 1].kind;
			old_ended |= k != '+';
			new_ended |= k != '-';
			p = nl;
			continue;
		}
		if ((*p != ' ' && *p != '-' && *p != '+') || nl[-1] != '\n')
			goto malformed;
		/* Nothing of a side after its last line (the one without a newline). */
		if ((old_ended && *p != '+') || (new_ended && *p != '-'))
			goto malformed;
		if (out->n == cap) {
			struct line *v;

			cap = cap ? cap * 2 : 16;
			if (!(v = realloc(out->v, cap * sizeof(*v)))) {
				free(out->v);
				return -1;
			}
			out->v = v;
		}
		out->v[out->n++] = (struct line){ *p, p + 1, (size_t)(nl - p - 1) };
		p = nl;
	}
	return 0;
malformed:
	free(out->v);
	out->v = NULL;
	return AT_HUNK_MALFORMED;
}

static void count(struct at_hunk *h, const struct lines *l)
{
	size_t i;

	h->old_count = h->new_count = 0;
	for (i = 0; i < l->n; i++) {
		h->old_count += l->v[i].kind != '+';
		h->new_count += l->v[i].kind != '-';
	}
}

/* The edited text as a body: '#' lines gone, empty lines context, a final '\n'. */
static char *clean_edit(const char *text, size_t len, size_t *out_len)
{
	const char *p = text, *end = text + len, *nl;
	char *out = malloc(len * 2 + 2), *o = out;

	if (!out)
		return NULL;
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		nl = nl ? nl + 1 : end;
		if (*p != '#' && !(nl - p >= 2 && p[0] == '@' && p[1] == '@')) {
			if (*p == '\n')
				*o++ = ' ';
			memcpy(o, p, (size_t)(nl - p));
			o += nl - p;
			if (nl == end && nl[-1] != '\n')
				*o++ = '\n';
		}
		p = nl;
	}
	*o = '\0';
	*out_len = (size_t)(o - out);
	return out;
}

int at_hunk_parse(struct at_hunk *out, const char *body, size_t len, size_t old_start,
		  size_t new_start, int edited)
{
	struct at_hunk h = { old_start, 0, new_start, 0, NULL, 0 };
	struct lines l;
	int rc;

	if (edited)
		h.body = clean_edit(body, len, &h.len);
	else if ((h.body = malloc(len + 1))) {
		memcpy(h.body, body, len);
		h.body[len] = '\0';
		h.len = len;
	}
	if (!h.body)
		return -1;
	if ((rc = body_lines(h.body, h.len, &l)) < 0) {
		free(h.body);
		return rc;
	}
	count(&h, &l);
	free(l.v);
	*out = h;
	return 0;
}

void at_hunk_release(struct at_hunk *h)
{
	if (!h)
		return;
	free(h->body);
	h->body = NULL;
	h->len = 0;
}

void at_hunk_header(const struct at_hunk *h, char *buf, size_t size)
{
	char a[48] = "", b[48] = "";

	if (h->old_count != 1)
		snprintf(a, sizeof(a), ",%zu", h->old_count);
	if (h->new_count != 1)
		snprintf(b, sizeof(b), ",%zu", h->new_count);
	snprintf(buf, size, "@@ -%zu%s +%zu%s @@", h->old_start, a, h->new_start, b);
}

/* ---- split ---- */

/* The part of h made of its lines [from, to), old_before and new_before lines after its start. */
static int part(const struct at_hunk *h, const struct lines *l, size_t from, size_t to,
		size_t old_before, size_t new_before, struct at_hunk *out)
{
	const char *start = from < l->n ? l->v[from].p - 1 : h->body + h->len;
	const char *stop = to < l->n ? l->v[to].p - 1 : h->body + h->len;

	return at_hunk_parse(out, start, (size_t)(stop - start), h->old_start + old_before,
			     h->new_start + new_before, 0);
}

int at_hunk_split(const struct at_hunk *h, struct at_hunk **out, size_t *n_out)
{
	size_t i, n = 0, from = 0, from_old = 0, from_new = 0, old_before = 0, new_before = 0;
	size_t run = SIZE_MAX, run_old = 0, run_new = 0;
	struct at_hunk *v;
	bool changed = false;
	struct lines l;
	int rc;

	*out = NULL;
	*n_out = 0;
	if ((rc = body_lines(h->body, h->len, &l)) < 0)
		return rc;
	if (!(v = calloc(l.n + 1, sizeof(*v)))) {
		free(l.v);
		return -1;
	}
	for (i = 0; i < l.n; i++) {
		if (l.v[i].kind == ' ') {
			if (run == SIZE_MAX) {
				run = i;
				run_old = old_before;
				run_new = new_before;
			}
		} else {
			/* A run of context between two changes: one part ends with it, the next begins with it. */
			if (run != SIZE_MAX && changed) {
				if ((rc = part(h, &l, from, i, from_old, from_new, &v[n])) < 0)
					goto fail;
				n++;
				from = run;
				from_old = run_old;
				from_new = run_new;
			}
			run = SIZE_MAX;
			changed = true;
		}
		old_before += l.v[i].kind != '+';
		new_before += l.v[i].kind != '-';
	}
	if ((rc = part(h, &l, from, l.n, from_old, from_new, &v[n])) < 0)
		goto fail;
	free(l.v);
	*out = v;
	*n_out = n + 1;
	return 0;
fail:
	while (n > 0)
		at_hunk_release(&v[--n]);
	free(v);
	free(l.v);
	return rc;
}

/* ---- apply ---- */

struct buf {
	char *p;
	size_t len, cap;
};

static int put(struct buf *b, const char *p, size_t len)
{
	if (b->len + len + 1 > b->cap) {
		size_t cap = (b->len + len + 1) * 2;
		char *q = realloc(b->p, cap);

		if (!q)
			return -1;
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, len);
	b->len += len;
	b->p[b->len] = '\0';
	return 0;
}

/* The old bytes as lines: each with its '\n' (the last may have none). */
static int old_lines(const char *old, size_t len, struct lines *out)
{
	const char *p = old, *end = old + len, *nl;
	size_t cap = 0;

	out->v = NULL;
	out->n = 0;
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		nl = nl ? nl + 1 : end;
		if (out->n == cap) {
			struct line *v;

			cap = cap ? cap * 2 : 64;
			if (!(v = realloc(out->v, cap * sizeof(*v)))) {
				free(out->v);
				return -1;
			}
			out->v = v;
		}
		out->v[out->n++] = (struct line){ ' ', p, (size_t)(nl - p) };
		p = nl;
	}
	return 0;
}

static bool line_eq(const struct line *a, const struct line *b)
{
	return a->len == b->len && memcmp(a->p, b->p, a->len) == 0;
}

/* Does the preimage of body (its ' ' and '-' lines) stand at old line at? */
static bool matches_at(const struct lines *old, const struct lines *body, size_t at)
{
	size_t i, k = at;

	for (i = 0; i < body->n; i++) {
		if (body->v[i].kind == '+')
			continue;
		if (k >= old->n || !line_eq(&old->v[k], &body->v[i]))
			return false;
		k++;
	}
	return true;
}

/* The old line where the preimage stands, nearest to want and not before min; false: nowhere. */
static bool find(const struct lines *old, const struct lines *body, size_t pre, size_t want,
		 size_t min, size_t *at)
{
	size_t d, hi = old->n >= pre ? old->n - pre : 0;

	if (old->n < pre)
		return false;
	if (want < min)
		want = min;
	if (want > hi)
		want = hi;
	for (d = 0; d <= hi; d++) {
		if (want >= d && want - d >= min && matches_at(old, body, want - d)) {
			*at = want - d;
			return true;
		}
		if (want + d <= hi && d && matches_at(old, body, want + d)) {
			*at = want + d;
			return true;
		}
		if (want < d + min && want + d > hi)
			break;
	}
	return false;
}

/* Apply one hunk: old lines [*cursor, at) then its postimage; its context shared with the last one skipped. */
static int apply_one(const struct lines *old, const struct at_hunk *h, size_t *cursor,
		     long long *shift, struct buf *b)
{
	struct lines body;
	size_t i, pre, lead = 0, at, want, skip, base;
	int rc;

	if ((rc = body_lines(h->body, h->len, &body)) < 0)
		return rc;
	for (pre = 0, i = 0; i < body.n; i++)
		pre += body.v[i].kind != '+';
	while (lead < body.n && body.v[lead].kind == ' ')
		lead++;
	base = h->old_count ? h->old_start - (h->old_start > 0) : h->old_start;
	want = (long long)base + *shift < 0 ? 0 : (size_t)((long long)base + *shift);
	/* A split hunk's parts share context: the next may begin inside the last one's tail. */
	if (!find(old, &body, pre, want, *cursor >= lead ? *cursor - lead : 0, &at)) {
		free(body.v);
		return AT_HUNK_NOMATCH;
	}
	skip = at < *cursor ? *cursor - at : 0;
	for (i = *cursor; i < at && rc == 0; i++)
		rc = put(b, old->v[i].p, old->v[i].len);
	for (i = skip; i < body.n && rc == 0; i++)
		if (body.v[i].kind != '-')
			rc = put(b, body.v[i].p, body.v[i].len);
	*shift = (long long)at - (long long)base;   /* later hunks move as this one did */
	*cursor = at + pre;
	free(body.v);
	return rc;
}

int at_hunks_apply(const char *old, size_t old_len, const struct at_hunk *h, size_t n,
		   char **out, size_t *out_len, size_t *which)
{
	struct buf b = { NULL, 0, 0 };
	struct lines l;
	size_t i, cursor = 0;
	long long shift = 0;
	int rc;

	if ((rc = old_lines(old, old_len, &l)) < 0)
		return rc;
	rc = put(&b, "", 0);
	for (i = 0; i < n && rc == 0; i++) {
		rc = apply_one(&l, &h[i], &cursor, &shift, &b);
		if (rc == AT_HUNK_NOMATCH && which)
			*which = i;
	}
	for (i = cursor; i < l.n && rc == 0; i++)
		rc = put(&b, l.v[i].p, l.v[i].len);
	free(l.v);
	if (rc < 0) {
		free(b.p);
		return rc;
	}
	*out = b.p;
	*out_len = b.len;
	return 0;
}
