/*
 * packscan.c - a pack's declared sizes checked before the indexer reads it
 * (packscan.h has the rules). Bytes in, verdict out: no libgit2 here.
 */
#include "gitfmt/packscan.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "core/array.h"

#define BUF 65536
#define TRAILER 20        /* the pack's SHA-1 */
#define DELTA_HEAD 20     /* two varints of at most 10 bytes each */

enum { OBJ_COMMIT = 1, OBJ_TAG = 4, OBJ_OFS_DELTA = 6, OBJ_REF_DELTA = 7 };

struct scan {
	int fd;
	uint64_t end;          /* where the objects end: the trailer's offset */
	uint64_t start;        /* the file offset of in[0] */
	size_t len, at;        /* bytes in in[], the next unread */
	z_stream z;
	unsigned char in[BUF], out[BUF];
	struct entry {
		uint64_t off;
		uint64_t work;     /* what resolving it writes: its size, plus its base's work */
		uint64_t chain;    /* the inflated delta data held to resolve it */
	} *v;
	size_t n, cap;
};

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

static uint64_t pos(const struct scan *s)
{
	return s->start + s->at;
}

static int fill(struct scan *s)
{
	uint64_t p = pos(s);
	size_t want = s->end - p < BUF ? (size_t)(s->end - p) : BUF;
	ssize_t n;

	if (p >= s->end)
		return -1;
	n = pread(s->fd, s->in, want, (off_t)p);
	if (n <= 0)
		return -1;   /* the end, or a failed read: the pack is refused as truncated */
	s->start = p;
	s->len = (size_t)n;
	s->at = 0;
	return 0;
}

static int byte(struct scan *s, unsigned char *c)
{
	if (s->at == s->len && fill(s) < 0)
		return -1;
	*c = s->in[s->at++];
	return 0;
}

/* An object's header: its type and its inflated size. */
static int obj_header(struct scan *s, int *type, uint64_t *size)
{
	unsigned int shift = 4;
	unsigned char c;

	if (byte(s, &c) < 0)
		return -1;
	*type = (c >> 4) & 7;
	*size = c & 15;
	while (c & 0x80) {
		if (shift > 57 || byte(s, &c) < 0)
			return -1;
		*size |= (uint64_t)(c & 0x7f) << shift;
		shift += 7;
	}
	return 0;
}

/* An offset delta's distance back to its base, git's encoding. */
static int ofs_distance(struct scan *s, uint64_t *out)
{
	unsigned char c;
	uint64_t d;

	if (byte(s, &c) < 0)
		return -1;
	d = c & 0x7f;
	while (c & 0x80) {
		if (d > (UINT64_MAX >> 8) || byte(s, &c) < 0)
			return -1;
		d = ((d + 1) << 7) | (c & 0x7f);
	}
	*out = d;
	return 0;
}

/* The zlib stream here, inflated and dropped; it must be exactly `declared` bytes. */
static int inflate_one(struct scan *s, uint64_t declared, unsigned char *head, size_t *hlen)
{
	uint64_t total = 0;
	int zr = Z_OK;

	*hlen = 0;
	if (inflateReset(&s->z) != Z_OK)
		return -1;
	while (zr != Z_STREAM_END) {
		size_t got, keep;

		if (s->at == s->len && fill(s) < 0)
			return -1;
		s->z.next_in = s->in + s->at;
		s->z.avail_in = (uInt)(s->len - s->at);
		s->z.next_out = s->out;
		s->z.avail_out = BUF;
		zr = inflate(&s->z, Z_NO_FLUSH);
		s->at = (size_t)(s->z.next_in - s->in);
		if (zr != Z_OK && zr != Z_STREAM_END && !(zr == Z_BUF_ERROR && !s->z.avail_in))
			return -1;
		got = BUF - s->z.avail_out;
		keep = got < DELTA_HEAD - *hlen ? got : DELTA_HEAD - *hlen;
		if (head && keep) {
			memcpy(head + *hlen, s->out, keep);
			*hlen += keep;
		}
		total += got;
		if (total > declared)
			return -1;
	}
	return total == declared ? 0 : -1;
}

/* A delta's two sizes, from the start of its data. */
static int delta_sizes(const unsigned char *h, size_t n, uint64_t *base, uint64_t *result)
{
	uint64_t v[2];
	size_t i = 0;
	int k;

	for (k = 0; k < 2; k++) {
		unsigned int shift = 0;
		unsigned char c;

		v[k] = 0;
		do {
			if (i >= n || shift > 63)
				return -1;
			c = h[i++];
			v[k] |= (uint64_t)(c & 0x7f) << shift;
			shift += 7;
		} while (c & 0x80);
	}
	*base = v[0];
	*result = v[1];
	return 0;
}

static const struct entry *find(const struct scan *s, uint64_t off)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->v[mid].off == off)
			return &s->v[mid];
		if (s->v[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* One object at the current position: its entry, or a refusal. */
static int one(struct scan *s, const char *name, const struct at_packscan_limits *lim,
	       struct entry *e, struct at_error *err)
{
	unsigned char head[DELTA_HEAD];
	uint64_t size, dist, base_work = lim->object_max, base_chain = lim->object_max;
	uint64_t base_size, result;
	size_t hlen;
	int type;

	e->off = pos(s);
	if (obj_header(s, &type, &size) < 0 || type == 0 || type == 5)
		return at_error_set(err, AT_EUNSAFE, "the task's pack '%s' is invalid at offset "
				    "%llu", name, (unsigned long long)e->off);
	if (type == OBJ_OFS_DELTA) {
		const struct entry *b;

		if (ofs_distance(s, &dist) < 0 || dist == 0 || dist > e->off ||
		    !(b = find(s, e->off - dist)))
			return at_error_set(err, AT_EUNSAFE, "the task's pack '%s' has a delta at "
					    "offset %llu whose base is not in it", name,
					    (unsigned long long)e->off);
		base_work = b->work;
		base_chain = b->chain;
	} else if (type == OBJ_REF_DELTA) {
		unsigned char c;
		int i;

		for (i = 0; i < 20; i++)
			if (byte(s, &c) < 0)
				return at_error_set(err, AT_EUNSAFE, "the task's pack '%s' is "
						    "truncated", name);
	}
	if (size > (type >= OBJ_OFS_DELTA ? 2 * lim->object_max : lim->object_max))
		return at_error_set(err, AT_EUNSAFE, "the task's pack '%s' declares an object of "
				    "%llu bytes at offset %llu, over the size limit of %llu", name,
				    (unsigned long long)size, (unsigned long long)e->off,
				    (unsigned long long)lim->object_max);
	if (inflate_one(s, size, type >= OBJ_OFS_DELTA ? head : NULL, &hlen) < 0)
		return at_error_set(err, AT_EUNSAFE, "the task's pack '%s' has a corrupt object "
				    "at offset %llu", name, (unsigned long long)e->off);
	if (type < OBJ_OFS_DELTA) {
		e->work = size;
		e->chain = 0;
		return 0;
	}
	if (delta_sizes(head, hlen, &base_size, &result) < 0)
		return at_error_set(err, AT_EUNSAFE, "the task's pack '%s' has a corrupt delta at "
				    "offset %llu", name, (unsigned long long)e->off);
	e->work = add_sat(result, base_work);
	e->chain = add_sat(size, base_chain);
	if (base_size > lim->object_max || result > lim->object_max ||
	    e->chain > 2 * lim->object_max)
		return at_error_set(err, AT_EUNSAFE, "the task's pack '%s' has a delta at offset "
				    "%llu declaring %llu bytes from a base of %llu (its chain %llu "
				    "bytes of deltas), over the size limit of %llu", name,
				    (unsigned long long)e->off, (unsigned long long)result,
				    (unsigned long long)base_size, (unsigned long long)e->chain,
				    (unsigned long long)lim->object_max);
	return 0;
}

static int header(int fd, uint64_t size, const char *name, uint32_t *count,
		  struct at_error *err)
{
	unsigned char h[12];
	uint32_t version;

	if (size < sizeof(h) + TRAILER || pread(fd, h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
	    memcmp(h, "PACK", 4) != 0)
		return at_error_set(err, AT_EUNSAFE, "the task's pack '%s' is invalid", name);
	version = (uint32_t)h[4] << 24 | (uint32_t)h[5] << 16 | (uint32_t)h[6] << 8 | h[7];
	*count = (uint32_t)h[8] << 24 | (uint32_t)h[9] << 16 | (uint32_t)h[10] << 8 | h[11];
	/* Every object takes at least two bytes: libgit2 sizes its tables by the count. */
	if ((version != 2 && version != 3) || (uint64_t)*count * 2 > size)
		return at_error_set(err, AT_EUNSAFE, "the task's pack '%s' is invalid: %u objects "
				    "claimed in %llu bytes", name, *count,
				    (unsigned long long)size);
	return 0;
}

int at_packscan_check(int fd, uint64_t size, const char *name,
		      const struct at_packscan_limits *lim, struct at_error *err)
{
	struct scan *s;
	uint64_t total = 0;
	uint32_t count = 0, i;
	int rc;

	if ((rc = header(fd, size, name, &count, err)) < 0)
		return rc;
	if (!(s = calloc(1, sizeof(*s))))
		return at_error_set(err, AT_ESYS, "out of memory");
	s->fd = fd;
	s->end = size - TRAILER;
	s->start = 12;
	if (inflateInit(&s->z) != Z_OK) {
		free(s);
		return at_error_set(err, AT_ESYS, "out of memory");
	}
	for (i = 0; rc == 0 && i < count; i++) {
		struct entry e;

		if ((rc = one(s, name, lim, &e, err)) < 0)
			break;
		total = add_sat(total, e.work);
		if (total > lim->total_max)
			rc = at_error_set(err, AT_EUNSAFE, "the task's pack '%s' would take more than "
					  "%llu bytes of work to index (its deltas' results, each "
					  "with its chain): not read", name,
					  (unsigned long long)lim->total_max);
		else if (AT_ARRAY_GROW(s->v, s->cap, s->n + 1) < 0)
			rc = at_error_set(err, AT_ESYS, "out of memory");
		else
			s->v[s->n++] = e;
	}
	if (rc == 0 && pos(s) != s->end)
		rc = at_error_set(err, AT_EUNSAFE, "the task's pack '%s' is invalid: bytes after "
				  "its last object", name);
	inflateEnd(&s->z);
	free(s->v);
	free(s);
	return rc;
}
