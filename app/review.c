#include "app/review.h"

#include <stdlib.h>
#include <string.h>

#include "app/diff.h"
#include "core/array.h"
#include "core/esc.h"
#include "core/util.h"

/* What one line of the diff's text stands for. */
struct place {
	size_t off, len;     /* the line in text, without its newline */
	long file;           /* index in the change set; -1 before the first file */
	size_t line;         /* its line in the new version, 0 when it has none */
	bool removed;        /* a '-' line: line is the nearest new one */
	bool hunk;           /* a line of a hunk ('H' included) */
};

struct at_app_review {
	struct at_app_diff *d;
	const struct at_change_set *cs;
	char *text;
	size_t len, cap;
	struct place *v;
	size_t n, vcap;
	/* while the text is made */
	long file;
	bool second_half;    /* a type change's second "diff --git" is still to come */
	size_t next;         /* the new line the next ' ' or '+' line is */
};

static int put(struct at_app_review *rv, const char *s, size_t n)
{
	if (AT_ARRAY_GROW(rv->text, rv->cap, rv->len + n + 2) < 0)
		return -1;
	memcpy(rv->text + rv->len, s, n);
	rv->len += n;
	rv->text[rv->len] = '\0';
	return 0;
}

/* The new side's first line of a hunk header "@@ -a,b +c,d @@ ...". */
static size_t hunk_start(const char *s, size_t len)
{
	const char *plus = memchr(s, '+', len);

	return plus ? strtoul(plus + 1, NULL, 10) : 0;
}

static void new_file(struct at_app_review *rv)
{
	if (rv->second_half) {
		rv->second_half = false;
		return;
	}
	rv->file++;
	rv->second_half = rv->file < (long)rv->cs->nfiles &&
			  rv->cs->files[rv->file].status == AT_CHANGE_TYPECHANGE;
}

static int collect(char origin, const char *content, size_t len, void *payload)
{
	struct at_app_review *rv = payload;
	struct place p = { rv->len, 0, -1, 0, false, false };
	char o = origin;
	int rc = 0;

	if (o == AT_DIFF_FILE_HDR && len >= 11 && memcmp(content, "diff --git ", 11) == 0)
		new_file(rv);
	p.file = rv->file;
	if (o == ' ' || o == '+' || o == '-')
		rc = put(rv, &o, 1);
	if (rc == 0)
		rc = put(rv, content, len);
	p.len = rv->len - p.off;
	if (rc == 0)
		rc = put(rv, "\n", 1);
	switch (o) {
	case AT_DIFF_HUNK_HDR:
		rv->next = hunk_start(content, len);
		p.hunk = true;
		break;
	case AT_DIFF_CONTEXT:
	case AT_DIFF_ADDITION:
		p.line = rv->next++;
		p.hunk = true;
		break;
	case AT_DIFF_DELETION:
		p.removed = true;
		p.hunk = true;
		break;
	case AT_DIFF_CONTEXT_EOFNL:
	case AT_DIFF_ADD_EOFNL:
	case AT_DIFF_DEL_EOFNL:
		if (rv->n)   /* "\ No newline": the line above's place */
			p = (struct place){ p.off, p.len, p.file, rv->v[rv->n - 1].line,
					    rv->v[rv->n - 1].removed, true };
		break;
	default:
		break;
	}
	if (rc == 0 && AT_ARRAY_GROW(rv->v, rv->vcap, rv->n + 1) < 0)
		rc = -1;
	if (rc == 0)
		rv->v[rv->n++] = p;
	return rc;
}

/*
 * A removed line's nearest line of the new version: the next context or
 * added line of its hunk, else (the hunk ends the file) the one before.
 */
static void place_removed(struct at_app_review *rv)
{
	size_t i, j;

	for (i = 0; i < rv->n; i++) {
		struct place *p = &rv->v[i];

		if (!p->removed || p->line)
			continue;
		for (j = i + 1; j < rv->n && rv->v[j].hunk && rv->v[j].file == p->file; j++)
			if (!rv->v[j].removed && rv->v[j].line) {
				p->line = rv->v[j].line;
				break;
			}
		for (j = i; !p->line && j-- > 0 && rv->v[j].hunk && rv->v[j].file == p->file;)
			if (!rv->v[j].removed && rv->v[j].line)
				p->line = rv->v[j].line;
	}
}

int at_app_review_open(const struct at_app *app, const char *name, struct at_app_review **out,
		       struct at_error *err)
{
	struct at_app_diff_opts o = { name, NULL, NULL, NULL, 0, false };
	struct at_app_review *rv = calloc(1, sizeof(*rv));
	int rc;

	if (!rv)
		return at_error_set(err, AT_ESYS, "out of memory");
	rv->file = -1;
	rc = at_app_diff_open(app, &o, &rv->d, err);
	if (rc == 0)
		rc = at_app_diff_changes(rv->d, &rv->cs, err);
	if (rc == 0 && put(rv, "", 0) < 0)
		rc = at_error_set(err, AT_ESYS, "out of memory");
	if (rc == 0)
		rc = at_app_diff_patch(rv->d, collect, rv, err);
	if (rc < 0) {
		at_app_review_free(rv);
		return rc;
	}
	place_removed(rv);
	*out = rv;
	return 0;
}

void at_app_review_free(struct at_app_review *rv)
{
	if (!rv)
		return;
	at_app_diff_free(rv->d);
	free(rv->text);
	free(rv->v);
	free(rv);
}

const struct at_task *at_app_review_task(const struct at_app_review *rv)
{
	return at_app_diff_task(rv->d);
}

const struct at_oid *at_app_review_tree(const struct at_app_review *rv)
{
	return &rv->cs->tree;
}

const char *at_app_review_text(const struct at_app_review *rv, size_t *len)
{
	*len = rv->len;
	return rv->text;
}

void at_app_review_comments_release(struct at_app_review_comments *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->n; i++) {
		free((char *)c->v[i].path);
		free((char *)c->v[i].text);
	}
	free(c->v);
	at_strlist_release(&c->notes);
	memset(c, 0, sizeof(*c));
}

/* s[0..n) and t[0..m) equal but for trailing blanks (an editor may strip them). */
static bool same_line(const char *s, size_t n, const char *t, size_t m)
{
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	while (m && (t[m - 1] == ' ' || t[m - 1] == '\t' || t[m - 1] == '\r'))
		m--;
	return n == m && memcmp(s, t, n) == 0;
}

/* One comment, the text of its ">>" lines, under the diff line at (NULL: before any). */
static int add_comment(const struct at_app_review *rv, const struct place *at, char *text,
		       struct at_app_review_comments *out)
{
	const struct at_change_file *f =
		at && at->file >= 0 && (size_t)at->file < rv->cs->nfiles ? &rv->cs->files[at->file]
									   : NULL;
	struct at_app_comment_new *c;
	char e[200], *named;

	if (AT_ARRAY_GROW(out->v, out->cap, out->n + 1) < 0) {
		free(text);
		return -1;
	}
	c = &out->v[out->n++];
	memset(c, 0, sizeof(*c));
	c->text = text;
	if (!f)
		return 0;
	at_esc(e, sizeof(e), f->path);
	/* lines of a regular file; a link's target, a submodule's commit have none to comment on */
	if (at->line && f->status != AT_CHANGE_DELETED &&
	    (f->new_mode == 0100644 || f->new_mode == 0100755)) {
		if (!(c->path = strdup(f->path)))
			return -1;
		c->first = c->last = at->line;
		if (at->removed)
			return at_strlist_pushf(&out->notes,
						"comment under a removed line of '%s': on line %zu, "
						"the nearest line of the new version", e, at->line);
		return 0;
	}
	/* a file header, a binary, deleted or not regular file: on the whole change, naming it */
	c->text = NULL;
	if (asprintf(&named, "on '%s': %s", f->path, text) < 0) {
		free(text);
		return -1;
	}
	free(text);
	c->text = named;
	return at_strlist_pushf(&out->notes, "comment on '%s' (no line of the new version): on "
				"the whole change", e);
}

/* The text of a run of ">>" lines: each without ">>" and one space, joined by newlines. */
static int gather(char **text, size_t *tlen, const char *line, size_t n)
{
	size_t skip = n > 2 && line[2] == ' ' ? 3 : 2;
	char *t;

	while (n > skip && (line[n - 1] == '\r' || line[n - 1] == ' ' || line[n - 1] == '\t'))
		n--;
	if (!(t = realloc(*text, *tlen + (n - skip) + 2)))
		return -1;
	*text = t;
	if (*tlen)
		t[(*tlen)++] = '\n';
	memcpy(t + *tlen, line + skip, n - skip);
	*tlen += n - skip;
	t[*tlen] = '\0';
	return 0;
}

/* A gathered text that is blank is no comment. */
static bool blank(const char *t)
{
	return !t || t[strspn(t, " \t\n")] == '\0';
}

int at_app_review_parse(const struct at_app_review *rv, const char *edited, size_t len,
			struct at_app_review_comments *out, struct at_error *err)
{
	struct at_app_review_comments c = { 0 };
	const struct place *under = NULL;   /* the diff line the next ">>" is under */
	size_t i = 0, lineno = 0, k = 0, tlen = 0;
	char *text = NULL;
	int rc = 0;

	while (rc == 0 && i < len) {
		const char *line = edited + i, *nl = memchr(line, '\n', len - i);
		size_t n = nl ? (size_t)(nl - line) : len - i;

		i += n + (nl != NULL);
		lineno++;
		if (n >= 2 && line[0] == '>' && line[1] == '>') {
			if (gather(&text, &tlen, line, n) < 0)
				rc = at_error_set(err, AT_ESYS, "out of memory");
			continue;
		}
		/* the run of '>>' lines above ends here: add_comment takes its text */
		if (text && blank(text))
			free(text);
		else if (text && add_comment(rv, under, text, &c) < 0)
			rc = at_error_set(err, AT_ESYS, "out of memory");
		text = NULL;
		tlen = 0;
		if (rc < 0)
			break;
		if (k < rv->n &&
		    same_line(line, n, rv->text + rv->v[k].off, rv->v[k].len)) {
			under = &rv->v[k++];
			continue;
		}
		if (k >= rv->n && same_line(line, n, "", 0))
			continue;   /* a blank line the editor added at the end */
		rc = at_error_set(err, AT_EUSAGE,
				  "line %zu of the review was changed (only lines starting with "
				  "'>>' may be added): nothing recorded", lineno);
	}
	if (rc == 0 && k < rv->n)
		rc = at_error_set(err, AT_EUSAGE,
				  "the review lost lines of the diff (line %zu on): nothing recorded",
				  lineno + 1);
	if (rc == 0 && text && !blank(text)) {
		if (add_comment(rv, under, text, &c) < 0)
			rc = at_error_set(err, AT_ESYS, "out of memory");
		text = NULL;
	}
	free(text);
	if (rc < 0) {
		at_app_review_comments_release(&c);
		return rc;
	}
	*out = c;
	return 0;
}
