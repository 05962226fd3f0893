#include "gitfmt/cache_tree.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"

#define NONE SIZE_MAX

struct node {
	const char *path;       /* full path, "" for the root */
	size_t pathlen;
	const char *name;       /* last component */
	size_t namelen;
	const git_oid *id;
	size_t count;           /* files under it */
	size_t first, last, next;   /* children, as a list */
	size_t nchildren;
};

struct out {
	unsigned char *buf;
	size_t len, cap;
	bool failed;
};

static void put(struct out *o, const void *data, size_t len)
{
	if (o->failed || len == 0)
		return;
	if (AT_ARRAY_GROW(o->buf, o->cap, o->len + len) < 0) {
		o->failed = true;
		return;
	}
	memcpy(o->buf + o->len, data, len);
	o->len += len;
}

/* git's order of subdirectories: shorter names first, then by bytes. */
static int child_cmp(const void *a, const void *b, void *arg)
{
	const struct node *nodes = arg;
	const struct node *x = &nodes[*(const size_t *)a], *y = &nodes[*(const size_t *)b];

	if (x->namelen != y->namelen)
		return x->namelen < y->namelen ? -1 : 1;
	return memcmp(x->name, y->name, x->namelen);
}

static void write_node(struct out *o, struct node *nodes, size_t k)
{
	struct node *nd = &nodes[k];
	size_t i, c, *kids;
	char line[64];

	put(o, nd->name, nd->namelen);
	put(o, "", 1);
	snprintf(line, sizeof(line), "%zu %zu\n", nd->count, nd->nchildren);
	put(o, line, strlen(line));
	put(o, nd->id->id, GIT_OID_RAWSZ);
	if (!nd->nchildren)
		return;
	if (!(kids = malloc(nd->nchildren * sizeof(*kids)))) {
		o->failed = true;
		return;
	}
	for (i = 0, c = nd->first; c != NONE; c = nodes[c].next)
		kids[i++] = c;
	qsort_r(kids, nd->nchildren, sizeof(*kids), child_cmp, nodes);
	for (i = 0; i < nd->nchildren && !o->failed; i++)
		write_node(o, nodes, kids[i]);
	free(kids);
}

static bool under(const struct node *dir, const char *path)
{
	return dir->pathlen == 0 ||
	       (strncmp(path, dir->path, dir->pathlen) == 0 && path[dir->pathlen] == '/');
}

int at_cache_tree_encode(const git_oid *root, const struct at_tree_item *items, size_t n,
			 unsigned char **out, size_t *len)
{
	struct node *nodes = calloc(n + 1, sizeof(*nodes));
	size_t *stack = calloc(n + 1, sizeof(*stack));
	size_t i, d, depth = 1, nnodes = 1;
	struct out o = { NULL, 0, 0, false };

	if (!nodes || !stack) {
		free(nodes);
		free(stack);
		return -1;
	}
	nodes[0] = (struct node){ "", 0, "", 0, root, 0, NONE, NONE, NONE, 0 };
	stack[0] = 0;
	for (i = 0; i < n; i++) {
		const char *path = items[i].path, *slash = strrchr(path, '/');
		struct node *parent;

		while (depth > 1 && !under(&nodes[stack[depth - 1]], path))
			depth--;
		if (!items[i].dir) {
			for (d = 0; d < depth; d++)
				nodes[stack[d]].count++;
			continue;
		}
		parent = &nodes[stack[depth - 1]];
		nodes[nnodes] = (struct node){ path, strlen(path), slash ? slash + 1 : path,
					       strlen(slash ? slash + 1 : path), items[i].id, 0,
					       NONE, NONE, NONE, 0 };
		if (parent->last == NONE)
			parent->first = nnodes;
		else
			nodes[parent->last].next = nnodes;
		parent->last = nnodes;
		parent->nchildren++;
		stack[depth++] = nnodes++;
	}
	write_node(&o, nodes, 0);
	free(nodes);
	free(stack);
	if (o.failed) {
		free(o.buf);
		return -1;
	}
	*out = o.buf;
	*len = o.len;
	return 0;
}

/* ---- reading ------------------------------------------------------------ */

struct parse {
	const unsigned char *p, *end;
	struct at_cache_tree *v;
	size_t n, cap;
};

static bool number(struct parse *ps, long *out, char stop)
{
	long val = 0;
	bool neg = false, digits = false;

	if (ps->p < ps->end && *ps->p == '-') {
		neg = true;
		ps->p++;
	}
	while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9') {
		if (val > (LONG_MAX - 9) / 10)
			return false;
		val = val * 10 + (*ps->p++ - '0');
		digits = true;
	}
	if (!digits || ps->p >= ps->end || *ps->p++ != (unsigned char)stop)
		return false;
	*out = neg ? -val : val;
	return true;
}

static bool parse_node(struct parse *ps, const char *parent, int depth)
{
	const unsigned char *name = ps->p, *nul;
	struct at_cache_tree *t;
	long count, subtrees, i;
	size_t plen = strlen(parent), nlen;

	if (depth > 4096 || !(nul = memchr(ps->p, '\0', (size_t)(ps->end - ps->p))))
		return false;
	nlen = (size_t)(nul - name);
	/*
	 * The root has no name, every other directory one component: an
	 * empty name or a '/' would give a path another entry has, or one
	 * that is no directory of the index.
	 */
	if ((depth == 0) != (nlen == 0) || memchr(name, '/', nlen))
		return false;
	ps->p = nul + 1;
	if (!number(ps, &count, ' ') || !number(ps, &subtrees, '\n') || count < -1 ||
	    subtrees < 0)
		return false;
	if (AT_ARRAY_GROW(ps->v, ps->cap, ps->n + 1) < 0)
		return false;
	t = &ps->v[ps->n];
	if (!(t->path = malloc(plen + nlen + 2)))
		return false;
	snprintf(t->path, plen + nlen + 2, "%s%s%.*s", parent, plen ? "/" : "", (int)nlen,
		 (const char *)name);
	t->count = count;
	ps->n++;
	if (count >= 0) {
		if ((size_t)(ps->end - ps->p) < GIT_OID_RAWSZ)
			return false;
		memcpy(t->id.id, ps->p, GIT_OID_RAWSZ);
		ps->p += GIT_OID_RAWSZ;
	}
	parent = t->path;   /* t may move as the array grows; the string does not */
	for (i = 0; i < subtrees; i++)
		if (!parse_node(ps, parent, depth + 1))
			return false;
	return true;
}

static int tree_cmp(const void *a, const void *b)
{
	return strcmp(((const struct at_cache_tree *)a)->path,
		      ((const struct at_cache_tree *)b)->path);
}

bool at_cache_tree_decode(const unsigned char *data, size_t len, struct at_cache_tree **out,
			  size_t *n)
{
	struct parse ps = { data, data + len, NULL, 0, 0 };
	size_t i;

	if (!parse_node(&ps, "", 0) || ps.p != ps.end)
		goto bad;
	qsort(ps.v, ps.n, sizeof(*ps.v), tree_cmp);
	/* A directory listed twice: which record at_cache_tree_find() returns is chance. */
	for (i = 1; i < ps.n; i++)
		if (strcmp(ps.v[i - 1].path, ps.v[i].path) == 0)
			goto bad;
	*out = ps.v;
	*n = ps.n;
	return true;
bad:
	at_cache_tree_free(ps.v, ps.n);
	return false;
}

const struct at_cache_tree *at_cache_tree_find(const struct at_cache_tree *v, size_t n,
					       const char *path, size_t len)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strncmp(v[mid].path, path, len);

		if (c == 0 && v[mid].path[len] != '\0')
			c = 1;
		if (c == 0)
			return v[mid].count >= 0 ? &v[mid] : NULL;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void at_cache_tree_free(struct at_cache_tree *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i].path);
	free(v);
}
