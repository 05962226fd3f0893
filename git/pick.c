#include "git/pick.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/change.h"
#include "git/diff.h"
#include "git/internal.h"

/* Building one file's header and hunks from its patch lines. */
struct collect {
	struct at_pick_file *f;
	char *buf;                    /* the current hunk's body */
	size_t len, cap;
	size_t old_start, new_start;
	bool in_hunk, binary;
	int rc;
};

static int append(char **buf, size_t *len, size_t *cap, const char *p, size_t n)
{
	if (*len + n + 1 > *cap) {
		size_t c = (*len + n + 1) * 2;
		char *q = realloc(*buf, c);

		if (!q)
			return -1;
		*buf = q;
		*cap = c;
	}
	memcpy(*buf + *len, p, n);
	*len += n;
	(*buf)[*len] = '\0';
	return 0;
}

static int end_hunk(struct collect *c)
{
	struct at_pick_file *f = c->f;
	struct at_hunk *h;
	bool *t;

	if (!c->in_hunk)
		return 0;
	c->in_hunk = false;
	if (!(h = realloc(f->hunks, (f->n + 1) * sizeof(*h))))
		return -1;
	f->hunks = h;
	if (!(t = realloc(f->take, (f->n + 1) * sizeof(*t))))
		return -1;
	f->take = t;
	if (at_hunk_parse(&f->hunks[f->n], c->buf ? c->buf : "", c->len, c->old_start,
			  c->new_start, 0) < 0)
		return -1;
	f->take[f->n++] = false;
	c->len = 0;
	return 0;
}

static int on_line(char origin, const char *content, size_t len, void *payload)
{
	struct collect *c = payload;
	size_t hlen = c->f->header ? strlen(c->f->header) : 0, hcap = hlen + 1;
	char o = origin;
	int rc = 0;

	switch (origin) {
	case AT_DIFF_FILE_HDR:
	case AT_DIFF_BINARY:
		c->binary |= origin == AT_DIFF_BINARY;
		if (c->in_hunk || c->f->n)
			c->binary = true;   /* a second file (a type change's halves): whole */
		rc = append(&c->f->header, &hlen, &hcap, content, len);
		if (rc == 0)
			rc = append(&c->f->header, &hlen, &hcap, "\n", 1);
		break;
	case AT_DIFF_HUNK_HDR:
		rc = end_hunk(c);
		c->in_hunk = true;
		c->old_start = c->new_start = 0;
		sscanf(content, "@@ -%zu", &c->old_start);
		if (memchr(content, '+', len))
			sscanf(strchr(content, '+'), "+%zu", &c->new_start);
		break;
	case AT_DIFF_CONTEXT_EOFNL:
	case AT_DIFF_ADD_EOFNL:
	case AT_DIFF_DEL_EOFNL:
		rc = append(&c->buf, &c->len, &c->cap, "\\ No newline at end of file\n", 28);
		break;
	default:
		rc = append(&c->buf, &c->len, &c->cap, &o, 1);
		if (rc == 0)
			rc = append(&c->buf, &c->len, &c->cap, content, len);
		if (rc == 0)
			rc = append(&c->buf, &c->len, &c->cap, "\n", 1);
	}
	if (rc < 0)
		c->rc = -1;
	return rc;
}

/* One file's patch, by a diff limited to its paths. */
static int load_file(struct at_repo *r, struct at_worktree *w, const struct at_task_state *st,
		     const struct at_change_file *cf, struct at_pick_file *f, struct at_error *err)
{
	char *paths[2] = { cf->old_path, cf->path };
	struct collect c = { f, NULL, 0, 0, 0, 0, false, false, 0 };
	struct at_diff *d = NULL;
	int rc;

	f->path = strdup(cf->path);
	f->old_path = strdup(cf->old_path);
	f->status = (char)cf->status;
	if (!f->path || !f->old_path)
		return at_error_set(err, AT_ESYS, "out of memory");
	if ((rc = at_diff_open_state(&d, r, w, st, err)) == 0 &&
	    (rc = at_diff_limit(d, paths, strcmp(paths[0], paths[1]) ? 2 : 1, err)) == 0)
		rc = at_diff_patch(d, on_line, &c, err);
	if (rc == 0 && end_hunk(&c) < 0)
		rc = at_error_set(err, AT_ESYS, "out of memory");
	at_diff_free(d);
	free(c.buf);
	if (rc < 0)
		return c.rc < 0 ? at_error_set(err, AT_ESYS, "out of memory") : rc;
	/* Hunk by hunk: a regular file changed in place or renamed, with text hunks. */
	f->whole = c.binary || f->n == 0 ||
		   (cf->status != AT_CHANGE_MODIFIED && cf->status != AT_CHANGE_RENAMED) ||
		   (cf->old_mode & 0170000) != 0100000 || (cf->new_mode & 0170000) != 0100000;
	return 0;
}

int at_pick_load(struct at_repo *r, struct at_worktree *w, const struct at_task_state *st,
		 struct at_pick *out, struct at_error *err)
{
	const struct at_change_set *cs;
	struct at_diff *d = NULL;
	struct at_pick p;
	size_t i;
	int rc;

	memset(&p, 0, sizeof(p));
	if ((rc = at_diff_open_state(&d, r, w, st, err)) == 0)
		rc = at_diff_changes(d, &cs, err);
	if (rc == 0 && !(p.f = calloc(cs->nfiles + 1, sizeof(*p.f))))
		rc = at_error_set(err, AT_ESYS, "out of memory");
	if (rc == 0) {
		p.merge_base = cs->base;
		p.state_tree = cs->tree;
	}
	for (i = 0; rc == 0 && i < cs->nfiles; i++, p.n++)
		rc = load_file(r, w, st, &cs->files[i], &p.f[i], err);
	if (rc == 0 && !p.n)
		rc = at_error_set(err, AT_EUSAGE, "task '%s' changes nothing", w->task.name);
	at_diff_free(d);
	if (rc < 0) {
		if (p.f)
			p.n++;   /* the one being loaded */
		at_pick_release(&p);
		return rc;
	}
	*out = p;
	return 0;
}

int at_pick_split(struct at_pick_file *f, size_t i, size_t *parts, struct at_error *err)
{
	struct at_hunk *v, *nh;
	bool *nt;
	size_t n, k;

	if (at_hunk_split(&f->hunks[i], &v, &n) < 0)
		return at_error_set(err, AT_ESYS, "out of memory");
	nh = realloc(f->hunks, (f->n + n) * sizeof(*nh));
	if (nh)
		f->hunks = nh;
	nt = nh ? realloc(f->take, (f->n + n) * sizeof(*nt)) : NULL;
	if (nt)
		f->take = nt;
	if (!nh || !nt) {
		for (k = 0; k < n; k++)
			at_hunk_release(&v[k]);
		free(v);
		return at_error_set(err, AT_ESYS, "out of memory");
	}
	at_hunk_release(&f->hunks[i]);
	memmove(&f->hunks[i + n], &f->hunks[i + 1], (f->n - i - 1) * sizeof(*nh));
	memmove(&f->take[i + n], &f->take[i + 1], (f->n - i - 1) * sizeof(*nt));
	for (k = 0; k < n; k++) {
		f->hunks[i + k] = v[k];
		f->take[i + k] = false;
	}
	f->n += n - 1;
	free(v);
	*parts = n;
	return 0;
}

/* The base's blob of f (empty when it has none), into *blob (to free). */
static int base_blob(struct at_repo *r, const struct at_pick *p, const struct at_pick_file *f,
		     git_blob **blob, git_tree_entry **e, struct at_error *err)
{
	git_commit *c = NULL;
	git_tree *t = NULL;
	git_oid id;
	int rc = 0;

	*blob = NULL;
	*e = NULL;
	at_oid_to_git(&id, &p->merge_base);
	if (git_commit_lookup(&c, r->repo, &id) < 0 || git_commit_tree(&t, c) < 0)
		rc = at_git_error(err, AT_EGIT, "cannot read the merge base");
	else if (git_tree_entry_bypath(e, t, f->old_path) == 0 &&
		 git_blob_lookup(blob, r->repo, git_tree_entry_id(*e)) < 0)
		rc = at_git_error(err, AT_EGIT, "cannot read '%s'", f->old_path);
	git_error_clear();
	git_tree_free(t);
	git_commit_free(c);
	return rc;
}

/* f's picked hunks applied to the base's blob: *out, *len (malloc'd). */
static int applied(struct at_repo *r, const struct at_pick *p, const struct at_pick_file *f,
		   const struct at_hunk *only, char **out, size_t *len, struct at_error *err)
{
	struct at_hunk *sel = calloc(f->n + 1, sizeof(*sel));
	git_tree_entry *e = NULL;
	git_blob *blob = NULL;
	size_t i, n = 0, which = 0;
	int rc;

	if (!sel)
		return at_error_set(err, AT_ESYS, "out of memory");
	if (only)
		sel[n++] = *only;
	for (i = 0; i < f->n && !only; i++)
		if (f->take[i])
			sel[n++] = f->hunks[i];
	if ((rc = base_blob(r, p, f, &blob, &e, err)) == 0) {
		rc = at_hunks_apply(blob ? git_blob_rawcontent(blob) : "",
				    blob ? (size_t)git_blob_rawsize(blob) : 0, sel, n, out, len, &which);
		if (rc == -1)
			rc = at_error_set(err, AT_ESYS, "out of memory");
		else if (rc < 0)
			rc = at_error_set(err, AT_EUSAGE, "the hunk of '%s' no longer applies",
					  f->path);
	}
	git_blob_free(blob);
	git_tree_entry_free(e);
	free(sel);
	return rc;
}

int at_pick_edit(struct at_repo *r, const struct at_pick *p, struct at_pick_file *f, size_t i,
		 const char *text, size_t len, struct at_error *err)
{
	struct at_error aerr = AT_ERROR_INIT;
	struct at_hunk h;
	char *out = NULL;
	size_t olen;
	int rc = at_hunk_parse(&h, text, len, f->hunks[i].old_start, f->hunks[i].new_start, 1);

	if (rc == -1)
		return at_error_set(err, AT_ESYS, "out of memory");
	if (rc < 0)
		return at_error_set(err, AT_EUSAGE, "the edited hunk of '%s' is no hunk (each line "
				    "starts with ' ', '-' or '+')", f->path);
	if ((rc = applied(r, p, f, &h, &out, &olen, &aerr)) < 0) {
		at_hunk_release(&h);
		if (rc != AT_EUSAGE) {
			*err = aerr;
			return rc;
		}
		return at_error_set(err, AT_EUSAGE, "the edited hunk of '%s' no longer applies",
				    f->path);
	}
	free(out);
	at_hunk_release(&f->hunks[i]);
	f->hunks[i] = h;
	return 0;
}

/* path in idx as tree `from` has it (nothing when it has none). */
static bool any(const struct at_pick_file *f)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		if (f->take[i])
			return true;
	return false;
}

/* f's picked hunks as a blob at its new path, its mode the task's. */
static int put_hunks(struct at_repo *r, const struct at_pick *p, const struct at_pick_file *f,
		     git_index *idx, git_tree *state, struct at_error *err)
{
	git_tree_entry *e = NULL;
	git_index_entry ie;
	char *bytes = NULL;
	size_t len;
	int rc;

	if ((rc = applied(r, p, f, NULL, &bytes, &len, err)) < 0)
		return rc;
	memset(&ie, 0, sizeof(ie));
	ie.path = f->path;
	git_index_remove(idx, f->old_path, 0);
	git_error_clear();
	if (git_tree_entry_bypath(&e, state, f->path) < 0 ||
	    git_blob_create_from_buffer(&ie.id, r->repo, bytes, len) < 0)
		rc = at_git_error(err, AT_EGIT, "cannot write '%s'", f->path);
	else if ((ie.mode = git_tree_entry_filemode(e)), git_index_add(idx, &ie) < 0)
		rc = at_git_error(err, AT_EGIT, "cannot stage '%s'", f->path);
	git_tree_entry_free(e);
	free(bytes);
	return rc;
}

static void turn_over(const struct at_pick *p)
{
	size_t i, k;

	for (i = 0; i < p->n; i++) {
		p->f[i].take_whole = !p->f[i].take_whole;
		for (k = 0; k < p->f[i].n; k++)
			p->f[i].take[k] = !p->f[i].take[k];
	}
}

int at_pick_tree_rest(struct at_repo *r, const struct at_pick *p, struct at_oid *tree,
		      struct at_error *err)
{
	int rc;

	turn_over(p);
	rc = at_pick_tree(r, p, tree, err);
	turn_over(p);
	return rc;
}

int at_pick_tree(struct at_repo *r, const struct at_pick *p, struct at_oid *tree,
		 struct at_error *err)
{
	git_commit *c = NULL;
	git_tree *base = NULL, *state = NULL;
	git_index *idx = NULL;
	git_oid id;
	size_t i;
	int rc = 0;

	at_oid_to_git(&id, &p->merge_base);
	if (git_commit_lookup(&c, r->repo, &id) < 0 || git_commit_tree(&base, c) < 0 ||
	    (at_oid_to_git(&id, &p->state_tree), git_tree_lookup(&state, r->repo, &id)) < 0 ||
	    git_index_new(&idx) < 0 || git_index_read_tree(idx, base) < 0)
		rc = at_git_error(err, AT_EGIT, "cannot read the trees of the task");
	for (i = 0; rc == 0 && i < p->n; i++) {
		const struct at_pick_file *f = &p->f[i];

		if (f->whole && f->take_whole) {
			rc = at_git_index_take(idx, state, f->old_path, err);
			if (rc == 0 && strcmp(f->old_path, f->path) != 0)
				rc = at_git_index_take(idx, state, f->path, err);
		} else if (!f->whole && any(f)) {
			rc = put_hunks(r, p, f, idx, state, err);
		}
	}
	if (rc == 0 && git_index_write_tree_to(&id, idx, r->repo) < 0)
		rc = at_git_error(err, AT_EGIT, "cannot write the tree of the picks");
	if (rc == 0)
		at_oid_from_git(tree, &id);
	git_index_free(idx);
	git_tree_free(base);
	git_tree_free(state);
	git_commit_free(c);
	return rc;
}

int at_pick_stat(struct at_repo *r, const struct at_pick *p, const struct at_oid *tree, char **out,
		 struct at_error *err)
{
	git_diff_options o = GIT_DIFF_OPTIONS_INIT;
	git_diff_find_options fo = GIT_DIFF_FIND_OPTIONS_INIT;
	git_commit *c = NULL;
	git_tree *a = NULL, *b = NULL;
	git_diff *d = NULL;
	git_diff_stats *st = NULL;
	git_buf buf = { NULL, 0, 0 };
	git_oid id;
	int rc = 0;

	at_oid_to_git(&id, &p->merge_base);
	if (git_commit_lookup(&c, r->repo, &id) < 0 || git_commit_tree(&a, c) < 0 ||
	    (at_oid_to_git(&id, tree), git_tree_lookup(&b, r->repo, &id)) < 0 ||
	    git_diff_tree_to_tree(&d, r->repo, a, b, &o) < 0 || git_diff_find_similar(d, &fo) < 0 ||
	    git_diff_get_stats(&st, d) < 0 ||
	    git_diff_stats_to_buf(&buf, st, GIT_DIFF_STATS_FULL, 80) < 0)
		rc = at_git_error(err, AT_EGIT, "cannot work out the --stat of the picks");
	else if (!(*out = strdup(buf.ptr && git_diff_num_deltas(d) ? buf.ptr : "")))
		rc = at_error_set(err, AT_ESYS, "out of memory");
	git_buf_dispose(&buf);
	git_diff_stats_free(st);
	git_diff_free(d);
	git_tree_free(a);
	git_tree_free(b);
	git_commit_free(c);
	return rc;
}

void at_pick_release(struct at_pick *p)
{
	size_t i, k;

	if (!p || !p->f)
		return;
	for (i = 0; i < p->n; i++) {
		for (k = 0; k < p->f[i].n; k++)
			at_hunk_release(&p->f[i].hunks[k]);
		free(p->f[i].hunks);
		free(p->f[i].take);
		free(p->f[i].header);
		free(p->f[i].path);
		free(p->f[i].old_path);
	}
	free(p->f);
	p->f = NULL;
	p->n = 0;
}
