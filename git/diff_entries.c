#include "git/diff_entries.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "gitfmt/renames.h"

/* The deleted (sources) and added (destinations) files of the entries, in path order. */
struct sides {
	struct at_rename_file *src, *dst;
	size_t *src_delta, *dst_delta;
	size_t nsrc, ndst;
};

static const char *delta_path(git_diff *diff, size_t idx)
{
	const git_diff_delta *d = git_diff_get_delta(diff, idx);

	return d->new_file.path ? d->new_file.path : d->old_file.path;
}

static int by_path(const void *a, const void *b, void *diff)
{
	const struct at_diff_entry *x = a, *y = b;
	int c = strcmp(delta_path(diff, x->idx), delta_path(diff, y->idx));

	return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

static struct at_diff_sig *blob_sig(void *repo, const git_oid *id)
{
	struct at_diff_sig *sig = NULL;
	git_blob *blob = NULL;

	if (git_blob_lookup(&blob, repo, id) == 0)
		sig = at_diff_sig_new(git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));
	git_blob_free(blob);
	git_error_clear();
	return sig;
}

static void take(struct at_rename_file *f, size_t *delta, size_t idx, const git_diff_file *side)
{
	*f = (struct at_rename_file){ side->path, side->id, side->mode, false, AT_RENAME_NONE, 0 };
	*delta = idx;
}

static int gather(struct sides *s, git_diff *diff, const struct at_diff_entry *ent, size_t n)
{
	size_t i;

	s->src = calloc(n ? n : 1, sizeof(*s->src));
	s->dst = calloc(n ? n : 1, sizeof(*s->dst));
	s->src_delta = calloc(n ? n : 1, sizeof(*s->src_delta));
	s->dst_delta = calloc(n ? n : 1, sizeof(*s->dst_delta));
	if (!s->src || !s->dst || !s->src_delta || !s->dst_delta)
		return -1;
	for (i = 0; i < n; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, ent[i].idx);

		if (d->status == GIT_DELTA_DELETED) {
			take(&s->src[s->nsrc], &s->src_delta[s->nsrc], ent[i].idx, &d->old_file);
			s->nsrc++;
		} else if (d->status == GIT_DELTA_ADDED) {
			take(&s->dst[s->ndst], &s->dst_delta[s->ndst], ent[i].idx, &d->new_file);
			s->ndst++;
		}
	}
	return 0;
}

/* Pairs into the entries: a source taken is no longer a deletion. */
static size_t apply(const struct sides *s, struct at_diff_entry *ent, size_t n)
{
	size_t i, d = 0, k = 0, kept = 0;

	for (i = 0; i < n; i++) {
		struct at_diff_entry e = ent[i];

		if (k < s->nsrc && s->src_delta[k] == e.idx && s->src[k++].used)
			continue;
		if (d < s->ndst && s->dst_delta[d] == e.idx) {
			const struct at_rename_file *f = &s->dst[d++];

			if (f->src != AT_RENAME_NONE) {
				e.old_idx = s->src_delta[f->src];
				e.similarity = (int)((double)f->score * 100 / AT_DIFF_MAX_SCORE);
				e.status = GIT_DELTA_RENAMED;
			}
		}
		ent[kept++] = e;
	}
	return kept;
}

static void sides_release(struct sides *s)
{
	free(s->src);
	free(s->dst);
	free(s->src_delta);
	free(s->dst_delta);
}

int at_diff_entries(git_repository *repo, git_diff *diff, struct at_diff_entry **out,
		    size_t *n_out)
{
	size_t n = git_diff_num_deltas(diff), i;
	struct at_diff_entry *ent = calloc(n ? n : 1, sizeof(*ent));
	struct sides s = { NULL, NULL, NULL, NULL, 0, 0 };
	int rc = ent ? 0 : -1;

	for (i = 0; rc == 0 && i < n; i++)
		ent[i] = (struct at_diff_entry){ i, AT_DIFF_NO_DELTA,
						 git_diff_get_delta(diff, i)->status, 0 };
	if (rc == 0) {
		qsort_r(ent, n, sizeof(*ent), by_path, diff);
		rc = gather(&s, diff, ent, n);
	}
	if (rc == 0)
		rc = at_renames_find(s.src, s.nsrc, s.dst, s.ndst, blob_sig, repo);
	if (rc == 0) {
		*n_out = apply(&s, ent, n);
		*out = ent;
	} else {
		free(ent);
	}
	sides_release(&s);
	return rc;
}

const git_diff_file *at_diff_entry_old(git_diff *diff, const struct at_diff_entry *e)
{
	size_t idx = e->old_idx != AT_DIFF_NO_DELTA ? e->old_idx : e->idx;

	return &git_diff_get_delta(diff, idx)->old_file;
}

const git_diff_file *at_diff_entry_new(git_diff *diff, const struct at_diff_entry *e)
{
	return &git_diff_get_delta(diff, e->idx)->new_file;
}
