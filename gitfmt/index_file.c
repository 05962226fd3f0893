#include "gitfmt/index_file.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "core/array.h"

#define HEADER_SIZE 12
#define CHECKSUM_SIZE 20
#define ENTRY_FIXED 62           /* stat data, mode, id, flags */
#define FLAG_EXTENDED 0x4000
#define NAME_MASK 0x0fff

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint16_t get16(const unsigned char *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* git's offset varint (version 4): each continuation adds one before the shift. */
static bool get_varint(const unsigned char **p, const unsigned char *end, size_t *out)
{
	const unsigned char *q = *p;
	size_t val;

	if (q >= end)
		return false;
	val = *q & 127;
	while (*q++ & 128) {
		if (q >= end || val > (SIZE_MAX >> 8))
			return false;
		val = ((val + 1) << 7) | (*q & 127);
	}
	*p = q;
	*out = val;
	return true;
}

struct parser {
	const unsigned char *p, *end;   /* end: where the extensions or checksum begin */
	unsigned version;
	char *paths;                    /* every path, NUL-terminated, one after another */
	size_t used, cap;
	size_t prev_off, prev_len;      /* the previous path (version 4 compression) */
};

/*
 * len is a path's length in the mapped index: used + len + 1 cannot
 * overflow. The buffer grows through locals: handing out the address of a
 * field of *ps would keep the parser in memory, not in registers, for every
 * entry of the loop (+4% of the index's read).
 */
static bool path_room(struct parser *ps, size_t len)
{
	char *paths = ps->paths;
	size_t cap = ps->cap;

	if (ps->used + len + 1 <= cap)
		return true;
	if (at_array_reserve(&paths, &cap, ps->used + len + 1, 1) < 0)
		return false;
	ps->paths = paths;
	ps->cap = cap;
	return true;
}

/* One entry; its path is stored at the offset written to *path_off. */
static bool parse_entry(struct parser *ps, git_index_entry *e, size_t *path_off)
{
	const unsigned char *start = ps->p, *name;
	size_t fixed = ENTRY_FIXED, len, strip = 0, keep;
	const unsigned char *nul;

	if ((size_t)(ps->end - start) < fixed)
		return false;
	e->ctime.seconds = (int32_t)get32(start);
	e->ctime.nanoseconds = get32(start + 4);
	e->mtime.seconds = (int32_t)get32(start + 8);
	e->mtime.nanoseconds = get32(start + 12);
	e->dev = get32(start + 16);
	e->ino = get32(start + 20);
	e->mode = get32(start + 24);
	e->uid = get32(start + 28);
	e->gid = get32(start + 32);
	e->file_size = get32(start + 36);
	memcpy(e->id.id, start + 40, GIT_OID_RAWSZ);
	e->flags = get16(start + 60);
	e->flags_extended = 0;
	if (e->flags & FLAG_EXTENDED) {
		if (ps->version < 3 || (size_t)(ps->end - start) < fixed + 2)
			return false;
		e->flags_extended = get16(start + 62);
		fixed += 2;
	}
	name = start + fixed;
	if (ps->version == 4 && !get_varint(&name, ps->end, &strip))
		return false;
	if (!(nul = memchr(name, '\0', (size_t)(ps->end - name))))
		return false;
	len = (size_t)(nul - name);
	if (ps->version == 4) {
		if (strip > ps->prev_len)
			return false;
		keep = ps->prev_len - strip;
		if (!path_room(ps, keep + len))
			return false;
		memmove(ps->paths + ps->used, ps->paths + ps->prev_off, keep);
		memcpy(ps->paths + ps->used + keep, name, len);
		len += keep;
		ps->p = nul + 1;
	} else {
		/* NUL padding to a multiple of eight, at least one byte. */
		ps->p = start + ((fixed + len + 8) & ~(size_t)7);
		if (ps->p > ps->end || len == 0 ||
		    ((e->flags & NAME_MASK) != NAME_MASK && (e->flags & NAME_MASK) != len))
			return false;
		e->path = (const char *)name;   /* NUL-terminated in the mapping */
		return true;
	}
	if (len == 0 || ((e->flags & NAME_MASK) != NAME_MASK && (e->flags & NAME_MASK) != len))
		return false;
	ps->paths[ps->used + len] = '\0';
	*path_off = ps->used;
	ps->prev_off = ps->used;
	ps->prev_len = len;
	ps->used += len + 1;
	return true;
}

/*
 * The extensions up to the checksum: all optional (uppercase), each within
 * bounds; the cache tree kept.
 */
static bool read_extensions(const unsigned char *p, const unsigned char *end, struct at_index *out)
{
	while (p < end) {
		uint32_t size;

		if ((size_t)(end - p) < 8 || p[0] < 'A' || p[0] > 'Z')
			return false;
		size = get32(p + 4);
		if (size > (size_t)(end - p) - 8)
			return false;
		if (memcmp(p, "TREE", 4) == 0 && !out->trees &&
		    !at_cache_tree_decode(p + 8, size, &out->trees, &out->ntrees)) {
			out->trees = NULL;
			out->ntrees = 0;
		}
		p += 8 + size;
	}
	return true;
}

/*
 * git's order: by path, then by stage, and a merged path (stage 0) once.
 * Two entries for one path would leave the choice between them to whoever
 * reads the file: declined, the snapshot reads it as libgit2 does, as
 * accept does.
 */
static bool in_order(const git_index_entry *a, const git_index_entry *b)
{
	int c = strcmp(a->path, b->path);

	return c < 0 || (c == 0 && GIT_INDEX_ENTRY_STAGE(a) != 0 &&
			 GIT_INDEX_ENTRY_STAGE(a) < GIT_INDEX_ENTRY_STAGE(b));
}

/* A fault for each page of a 1.6 MB index and its entries was a fifth of the read. */
void *at_index_buf_new(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
		       -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

int at_index_parse(const void *data, size_t size, struct at_index *out)
{
	const unsigned char *buf = data;
	struct parser ps;
	size_t i, count, *offs = NULL;
	int rc = AT_INDEX_DECLINED;

	memset(out, 0, sizeof(*out));
	memset(&ps, 0, sizeof(ps));
	if (size < HEADER_SIZE + CHECKSUM_SIZE || memcmp(buf, "DIRC", 4) != 0)
		return AT_INDEX_DECLINED;
	ps.version = get32(buf + 4);
	count = get32(buf + 8);
	if (ps.version < 2 || ps.version > 4 || count > size / 40)
		return AT_INDEX_DECLINED;
	ps.p = buf + HEADER_SIZE;
	ps.end = buf + size - CHECKSUM_SIZE;
	out->v_len = (count ? count : 1) * sizeof(*out->v);
	if (!(out->v = at_index_buf_new(out->v_len)))
		goto out;
	if (ps.version == 4 && !(offs = calloc(count ? count : 1, sizeof(*offs))))
		goto out;
	for (i = 0; i < count; i++)
		if (!parse_entry(&ps, &out->v[i], offs ? &offs[i] : NULL))
			goto out;
	if (!read_extensions(ps.p, ps.end, out))
		goto out;
	for (i = 0; i < count; i++) {
		if (offs)
			out->v[i].path = ps.paths + offs[i];
		if (i > 0 && !in_order(&out->v[i - 1], &out->v[i]))
			goto out;
	}
	out->n = count;
	out->paths = ps.paths;
	ps.paths = NULL;
	rc = 0;
out:
	free(offs);
	free(ps.paths);
	if (rc != 0) {
		if (out->v)
			munmap(out->v, out->v_len);
		at_cache_tree_free(out->trees, out->ntrees);
		out->v = NULL;
		out->trees = NULL;
		out->ntrees = 0;
	}
	return rc;
}

void at_index_free(struct at_index *idx)
{
	if (idx->v)
		munmap(idx->v, idx->v_len);
	if (idx->map)
		munmap(idx->map, idx->map_len);
	free(idx->paths);
	at_cache_tree_free(idx->trees, idx->ntrees);
	memset(idx, 0, sizeof(*idx));
}

int at_index_checksum(unsigned char out[GIT_OID_RAWSZ], const unsigned char *buf, size_t len)
{
	unsigned int outlen = 0;

	OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CONFIG, NULL);
	return EVP_Digest(buf, len, out, &outlen, EVP_sha1(), NULL) == 1 &&
			       outlen == GIT_OID_RAWSZ
		       ? 0
		       : -1;
}
