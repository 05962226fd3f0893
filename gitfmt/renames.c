#include "gitfmt/renames.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gitfmt/diff_format.h"

#define NONE AT_RENAME_NONE
#define MAX_IDENTICAL 100         /* exact candidates git looks at for one destination */
#define MIN_SCORE 30000           /* 50%: git's default rename threshold */
#define MIN_BASENAME_SCORE 45000  /* 75%: halfway from there to identical */
#define RENAME_LIMIT 1000         /* diff.renameLimit's default */
#define CANDIDATES 4              /* NUM_CANDIDATE_PER_DST */

/* A deleted file (a rename source) or an added one (a destination). */
struct cand {
	const struct at_rename_file *f;
	const char *base;             /* the part of the path after the last '/' */
	unsigned used;                /* source: 1 once a rename took it */
	size_t src;                   /* destination: its source (index in src[]), or NONE */
	int score;                    /* destination: the pair's score */
	struct at_diff_sig *sig;      /* made on first use */
	bool no_sig;                  /* unreadable: never alike */
};

struct renames {
	struct cand *src, *dst;
	size_t nsrc, ndst;
	at_rename_sig_fn sig;
	void *arg;
};

static bool is_reg(const struct at_rename_file *f)
{
	return f->mode == GIT_FILEMODE_BLOB || f->mode == GIT_FILEMODE_BLOB_EXECUTABLE;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static void record(struct renames *rn, size_t dst, size_t src, int score)
{
	rn->dst[dst].src = src;
	rn->dst[dst].score = score;
	rn->src[src].used = 1;
}

/* ---- 1. exact renames ------------------------------------------------- */

/* git_oid_cmp()'s order, the raw bytes'; without a call into libgit2. */
static int oid_cmp(const git_oid *a, const git_oid *b)
{
	return memcmp(a->id, b->id, GIT_OID_RAWSZ);
}

/* Sources ordered by object id, then by their own (path) order. */
static int by_id(const void *a, const void *b, void *arg)
{
	const struct renames *rn = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = oid_cmp(&rn->src[x].f->id, &rn->src[y].f->id);

	return c ? c : (x > y) - (x < y);
}

static size_t first_with_id(const struct renames *rn, const size_t *order, const git_oid *id)
{
	size_t lo = 0, hi = rn->nsrc;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (oid_cmp(&rn->src[order[mid]].f->id, id) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* diffcore-rename's find_identical_files for destination d. */
static void find_identical(struct renames *rn, const size_t *order, size_t d)
{
	const struct at_rename_file *t = rn->dst[d].f;
	size_t i = first_with_id(rn, order, &t->id), best = NONE, looked = 0;
	int best_score = -1;

	for (; i < rn->nsrc && looked < MAX_IDENTICAL; i++, looked++) {
		const struct cand *s = &rn->src[order[i]];
		int score;

		if (oid_cmp(&s->f->id, &t->id) != 0)
			break;
		/* A symlink or gitlink only with its own kind; a source once (no -C). */
		if (((!is_reg(s->f) || !is_reg(t)) && s->f->mode != t->mode) || s->used)
			continue;
		score = 1 + (strcmp(s->base, rn->dst[d].base) == 0);
		if (score > best_score) {
			best = order[i];
			best_score = score;
			if (score == 2)
				break;
		}
	}
	if (best != NONE)
		record(rn, d, best, AT_DIFF_MAX_SCORE);
}

static int exact_renames(struct renames *rn)
{
	size_t *order = calloc(rn->nsrc ? rn->nsrc : 1, sizeof(*order)), i;

	if (!order)
		return -1;
	for (i = 0; i < rn->nsrc; i++)
		order[i] = i;
	qsort_r(order, rn->nsrc, sizeof(*order), by_id, rn);
	for (i = 0; i < rn->ndst; i++)
		find_identical(rn, order, i);
	free(order);
	return 0;
}

/* ---- similarity ------------------------------------------------------- */

static struct at_diff_sig *sig_of(struct renames *rn, struct cand *c)
{
	if (c->sig || c->no_sig)
		return c->sig;
	c->sig = rn->sig(rn->arg, &c->f->id);
	c->no_sig = !c->sig;
	return c->sig;
}

/* estimate_similarity(): regular files only; 0 when unreadable. */
static int estimate(struct renames *rn, struct cand *s, struct cand *d, int min_score)
{
	struct at_diff_sig *a, *b;

	if (!is_reg(s->f) || !is_reg(d->f))
		return 0;
	if (!(a = sig_of(rn, s)) || !(b = sig_of(rn, d)))
		return 0;
	return at_diff_sig_estimate(a, b, min_score);
}

/* ---- 2. unique base names --------------------------------------------- */

struct by_base {
	const char *base;
	size_t idx;
};

static int base_cmp(const void *a, const void *b)
{
	const struct by_base *x = a, *y = b;
	int c = strcmp(x->base, y->base);

	return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

/* The candidates not yet paired, sorted by base name; NULL out of memory. */
static struct by_base *bases(struct cand *c, size_t n, bool sources, size_t *count)
{
	struct by_base *v = calloc(n ? n : 1, sizeof(*v));
	size_t i, k = 0;

	if (!v)
		return NULL;
	for (i = 0; i < n; i++)
		if (sources ? c[i].used == 0 : c[i].src == NONE)
			v[k++] = (struct by_base){ c[i].base, i };
	qsort(v, k, sizeof(*v), base_cmp);
	*count = k;
	return v;
}

/* The one candidate of that base name, or NONE (none, or more than one). */
static size_t unique_base(const struct by_base *v, size_t n, const char *base)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(v[mid].base, base) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == n || strcmp(v[lo].base, base) != 0)
		return NONE;
	if (lo + 1 < n && strcmp(v[lo + 1].base, base) == 0)
		return NONE;
	return v[lo].idx;
}

static int basename_renames(struct renames *rn)
{
	size_t ns = 0, nd = 0, i;
	struct by_base *s = bases(rn->src, rn->nsrc, true, &ns);
	struct by_base *d = bases(rn->dst, rn->ndst, false, &nd);

	if (!s || !d) {
		free(s);
		free(d);
		return -1;
	}
	for (i = 0; i < rn->nsrc; i++) {
		size_t j;
		int score;

		if (rn->src[i].used || unique_base(s, ns, rn->src[i].base) != i ||
		    (j = unique_base(d, nd, rn->src[i].base)) == NONE || rn->dst[j].src != NONE)
			continue;
		score = estimate(rn, &rn->src[i], &rn->dst[j], MIN_BASENAME_SCORE);
		if (score >= MIN_BASENAME_SCORE)
			record(rn, j, i, score);
	}
	free(s);
	free(d);
	return 0;
}

/* ---- 3. every remaining pair ------------------------------------------ */

struct score {
	size_t dst, src;              /* dst NONE: an empty slot */
	int score, name_score;
	size_t pos;                   /* for a stable sort */
};

/*
 * git's score_compare: < 0 when a is the better pair. An empty slot is worse
 * than any pair, even one of score 0: which slot a later pair replaces, and
 * so the order of equal pairs, depends on it.
 */
static int score_cmp(const struct score *a, const struct score *b)
{
	if (a->dst == NONE)
		return b->dst != NONE;
	if (b->dst == NONE)
		return -1;
	return a->score == b->score ? b->name_score - a->name_score : b->score - a->score;
}

static int score_sort(const void *a, const void *b)
{
	const struct score *x = a, *y = b;
	int c = score_cmp(x, y);

	return c ? c : (x->pos > y->pos) - (x->pos < y->pos);
}

/* record_if_better: keep the best CANDIDATES for one destination. */
static void keep_if_better(struct score *m, const struct score *o)
{
	int i, worst = 0;

	for (i = 1; i < CANDIDATES; i++)
		if (score_cmp(&m[i], &m[worst]) > 0)
			worst = i;
	if (score_cmp(&m[worst], o) > 0)
		m[worst] = *o;
}

static int matrix_renames(struct renames *rn)
{
	size_t nsrc = 0, ndst = 0, i, j, k = 0;
	struct score *mx;

	for (i = 0; i < rn->nsrc; i++)
		nsrc += rn->src[i].used == 0;
	for (i = 0; i < rn->ndst; i++)
		ndst += rn->dst[i].src == NONE;
	if (!nsrc || !ndst)
		return 0;
	/* Too many: git skips this step (and says so); the exact renames stand. */
	if ((ndst > RENAME_LIMIT && nsrc > RENAME_LIMIT) ||
	    (uint64_t)ndst * nsrc > (uint64_t)RENAME_LIMIT * RENAME_LIMIT)
		return 0;
	if (!(mx = calloc(ndst * CANDIDATES, sizeof(*mx))))
		return -1;
	for (i = 0; i < rn->ndst; i++) {
		struct score *m = &mx[k * CANDIDATES];

		if (rn->dst[i].src != NONE)
			continue;
		for (j = 0; j < CANDIDATES; j++)
			m[j] = (struct score){ NONE, NONE, 0, 0, 0 };
		for (j = 0; j < rn->nsrc; j++) {
			struct score o = { i, j, 0, 0, 0 };

			if (rn->src[j].used)
				continue;
			o.score = estimate(rn, &rn->src[j], &rn->dst[i], MIN_SCORE);
			o.name_score = strcmp(rn->src[j].base, rn->dst[i].base) == 0;
			keep_if_better(m, &o);
		}
		k++;
	}
	for (i = 0; i < k * CANDIDATES; i++)
		mx[i].pos = i;
	qsort(mx, k * CANDIDATES, sizeof(*mx), score_sort);
	for (i = 0; i < k * CANDIDATES; i++) {
		if (mx[i].dst == NONE || mx[i].score < MIN_SCORE)
			break;
		if (rn->dst[mx[i].dst].src != NONE || rn->src[mx[i].src].used)
			continue;
		record(rn, mx[i].dst, mx[i].src, mx[i].score);
	}
	free(mx);
	return 0;
}

/* ---- the candidates ---------------------------------------------------- */

static struct cand *candidates(const struct at_rename_file *f, size_t n)
{
	struct cand *c = calloc(n ? n : 1, sizeof(*c));
	size_t i;

	for (i = 0; c && i < n; i++) {
		c[i].f = &f[i];
		c[i].base = base_name(f[i].path);
		c[i].src = NONE;
	}
	return c;
}

static void renames_release(struct renames *rn)
{
	size_t i;

	for (i = 0; rn->src && i < rn->nsrc; i++)
		at_diff_sig_free(rn->src[i].sig);
	for (i = 0; rn->dst && i < rn->ndst; i++)
		at_diff_sig_free(rn->dst[i].sig);
	free(rn->src);
	free(rn->dst);
}

int at_renames_find(struct at_rename_file *src, size_t nsrc, struct at_rename_file *dst,
		    size_t ndst, at_rename_sig_fn sig, void *arg)
{
	struct renames rn = { candidates(src, nsrc), candidates(dst, ndst), nsrc, ndst, sig, arg };
	size_t i;
	int rc = rn.src && rn.dst ? 0 : -1;

	if (rc == 0)
		rc = exact_renames(&rn);
	if (rc == 0)
		rc = basename_renames(&rn);
	if (rc == 0)
		rc = matrix_renames(&rn);
	for (i = 0; rc == 0 && i < nsrc; i++)
		src[i].used = rn.src[i].used != 0;
	for (i = 0; rc == 0 && i < ndst; i++) {
		dst[i].src = rn.dst[i].src;
		dst[i].score = rn.dst[i].score;
	}
	renames_release(&rn);
	return rc;
}
