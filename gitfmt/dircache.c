#include "gitfmt/dircache.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAGIC "agenttask-dircache 1\n"

static bool ts_equal(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

static int prefix_cmp(const void *a, const void *b)
{
	return strcmp(((const struct at_dircache_dir *)a)->prefix,
		      ((const struct at_dircache_dir *)b)->prefix);
}

const struct at_dircache_dir *at_dircache_trusted(const struct at_dircache *c,
						  const char *prefix, const struct stat *st)
{
	struct at_dircache_dir key = { (char *)prefix, { 0, 0 }, { 0, 0 }, 0, 0, NULL, 0 };
	const struct at_dircache_dir *d;

	if (!c->n || !(d = bsearch(&key, c->v, c->n, sizeof(*c->v), prefix_cmp)))
		return NULL;
	if (!ts_equal(&d->ctime, &st->st_ctim) || !ts_equal(&d->mtime, &st->st_mtim) ||
	    d->ino != (uint64_t)st->st_ino || d->dev != (uint64_t)st->st_dev)
		return NULL;
	/*
	 * Changed less than a second before that scan began: maybe in its tick.
	 * (scanned - 1, not ctime + 1: the file's times are >= 0, and may be
	 * the largest a time_t holds.)
	 */
	if (d->ctime.tv_sec > c->scanned.tv_sec - 1 ||
	    (d->ctime.tv_sec == c->scanned.tv_sec - 1 && d->ctime.tv_nsec >= c->scanned.tv_nsec))
		return NULL;
	return d;
}

/* ---- the file ----------------------------------------------------------- */

struct reader {
	const char *p, *end;
};

static bool read_line(struct reader *r, long long *v, int n)
{
	const char *nl = memchr(r->p, '\n', (size_t)(r->end - r->p));
	char line[256], *s, *e;
	int i;

	if (!nl || (size_t)(nl - r->p) >= sizeof(line))
		return false;
	memcpy(line, r->p, (size_t)(nl - r->p));
	line[nl - r->p] = '\0';
	r->p = nl + 1;
	for (s = line, i = 0; i < n; i++) {
		errno = 0;
		v[i] = strtoll(s, &e, 10);
		if (errno || e == s || v[i] < 0 || (*e != ' ' && *e != '\0'))
			return false;
		s = e;
	}
	return *s == '\0';
}

/* Each name: 'f' or 'd', then a name that is one path component, then a NUL. */
static bool names_valid(const char *names, size_t len)
{
	const char *p = names, *end = names + len, *nul;

	while (p < end) {
		if (!(nul = memchr(p, '\0', (size_t)(end - p))) || (p[0] != 'f' && p[0] != 'd') ||
		    nul == p + 1 || memchr(p + 1, '/', (size_t)(nul - p - 1)) ||
		    strcmp(p + 1, ".") == 0 || strcmp(p + 1, "..") == 0)
			return false;
		p = nul + 1;
	}
	return true;
}

static bool parse(const char *buf, size_t len, struct at_dircache *out)
{
	struct reader r = { buf, buf + len };
	long long head[3], v[8];
	size_t i;

	if (len < strlen(MAGIC) || memcmp(buf, MAGIC, strlen(MAGIC)) != 0)
		return false;
	r.p += strlen(MAGIC);
	/* A record takes at least 16 bytes: no count the file cannot hold. */
	if (!read_line(&r, head, 3) || head[1] >= 1000000000LL || head[2] > (long long)(len / 16))
		return false;
	out->scanned.tv_sec = (time_t)head[0];
	out->scanned.tv_nsec = (long)head[1];
	if (!(out->v = calloc(head[2] ? (size_t)head[2] : 1, sizeof(*out->v))))
		return false;
	for (i = 0; i < (size_t)head[2]; i++) {
		struct at_dircache_dir *d = &out->v[i];
		size_t plen, nlen;

		if (!read_line(&r, v, 8) || v[1] >= 1000000000LL || v[3] >= 1000000000LL)
			return false;
		plen = (size_t)v[7];
		nlen = (size_t)v[6];
		if (plen > PATH_MAX || nlen > (size_t)(r.end - r.p) ||
		    plen + nlen + 1 > (size_t)(r.end - r.p) || r.p[plen + nlen] != '\n' ||
		    memchr(r.p, '\0', plen) || (nlen && r.p[plen + nlen - 1] != '\0'))
			return false;
		d->ctime = (struct timespec){ (time_t)v[0], (long)v[1] };
		d->mtime = (struct timespec){ (time_t)v[2], (long)v[3] };
		d->ino = (uint64_t)v[4];
		d->dev = (uint64_t)v[5];
		if (!(d->prefix = strndup(r.p, plen)) || !(d->names = malloc(nlen ? nlen : 1))) {
			out->n = i + 1;
			return false;
		}
		memcpy(d->names, r.p + plen, nlen);
		d->names_len = nlen;
		if (!names_valid(d->names, nlen)) {
			out->n = i + 1;
			return false;
		}
		r.p += plen + nlen + 1;
		out->n = i + 1;
		if (i > 0 && strcmp(out->v[i - 1].prefix, d->prefix) >= 0)
			return false;
	}
	return r.p == r.end;
}

static int pointer_cmp(const void *a, const void *b)
{
	return prefix_cmp(*(const struct at_dircache_dir *const *)a,
			  *(const struct at_dircache_dir *const *)b);
}

bool at_dircache_parse(const char *buf, size_t len, struct at_dircache *out)
{
	memset(out, 0, sizeof(*out));
	if (parse(buf, len, out))
		return true;
	at_dircache_free(out);
	return false;
}

int at_dircache_write(FILE *f, const struct timespec *scanned, const struct at_dircache_dir *v,
		      size_t n)
{
	const struct at_dircache_dir **sorted = calloc(n ? n : 1, sizeof(*sorted));
	size_t i;
	bool ok;

	if (!sorted)
		return -1;
	for (i = 0; i < n; i++)
		sorted[i] = &v[i];
	if (n > 1)
		qsort(sorted, n, sizeof(*sorted), pointer_cmp);
	ok = fprintf(f, "%s%lld %ld %zu\n", MAGIC, (long long)scanned->tv_sec, scanned->tv_nsec,
		     n) > 0;
	for (i = 0; ok && i < n; i++) {
		const struct at_dircache_dir *d = sorted[i];

		ok = fprintf(f, "%lld %ld %lld %ld %" PRIu64 " %" PRIu64 " %zu %zu\n",
			     (long long)d->ctime.tv_sec, d->ctime.tv_nsec, (long long)d->mtime.tv_sec,
			     d->mtime.tv_nsec, d->ino, d->dev, d->names_len, strlen(d->prefix)) > 0 &&
		     fwrite(d->prefix, 1, strlen(d->prefix), f) == strlen(d->prefix) &&
		     fwrite(d->names, 1, d->names_len, f) == d->names_len && fputc('\n', f) != EOF;
	}
	free(sorted);
	return ok ? 0 : -1;
}

void at_dircache_dir_free(struct at_dircache_dir *d)
{
	free(d->prefix);
	free(d->names);
	d->prefix = d->names = NULL;
}

void at_dircache_free(struct at_dircache *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		at_dircache_dir_free(&c->v[i]);
	free(c->v);
	memset(c, 0, sizeof(*c));
}
