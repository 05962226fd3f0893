/*
 * index_update.c - the index brought to a new tree by the changed paths
 * (index_update.h says how, and what it declines).
 */
#include "git/index_update.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"
#include "git/index_read.h"

#define HEADER_SIZE 12
#define FLAG_EXTENDED 0x4000
#define STAGE_MASK 0x3000
#define NAME_MASK 0x0fff

struct out {
	unsigned char *buf, *p;
};

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

static size_t entry_size(size_t fixed, size_t len)
{
	return (fixed + len + 8) & ~(size_t)7;
}

/* An entry of the old index as it is, but a racily clean one smudged (git's rule). */
static void copy_entry(struct out *o, const git_index_entry *e, const struct at_index *idx)
{
	size_t fixed = (e->flags & FLAG_EXTENDED) ? 64 : 62;
	size_t size = entry_size(fixed, strlen(e->path));

	memcpy(o->p, (const unsigned char *)e->path - fixed, size);
	if (e->mtime.seconds >= (int32_t)idx->mtime.tv_sec)
		put32(o->p + 36, 0);
	o->p += size;
}

/* A changed path's entry: no stat data, its mode and id, its name. */
static void new_entry(struct out *o, const struct at_index_change *c)
{
	size_t len = strlen(c->path), size = entry_size(62, len);

	memset(o->p, 0, size);
	put32(o->p + 24, c->mode);
	memcpy(o->p + 40, c->id.id, GIT_OID_RAWSZ);
	o->p[60] = (unsigned char)((len < NAME_MASK ? len : NAME_MASK) >> 8);
	o->p[61] = (unsigned char)(len < NAME_MASK ? len : NAME_MASK);
	memcpy(o->p + 62, c->path, len);
	o->p += size;
}

static bool acceptable(const struct at_index *idx, const struct at_index_change *c, size_t n)
{
	uint32_t version = ((const unsigned char *)idx->map)[7];
	size_t i;

	if (!idx->map || version < 2 || version > 3)
		return false;
	for (i = 0; i < idx->n; i++)
		if (idx->v[i].flags & STAGE_MASK)
			return false;
	for (i = 1; i < n; i++)
		if (strcmp(c[i - 1].path, c[i].path) >= 0)
			return false;
	return true;
}

/* The merge of the old entries and the changes, both in path order; returns the count. */
static uint32_t merge(struct out *o, const struct at_index *idx, const struct at_index_change *c,
		      size_t n)
{
	size_t i = 0, j = 0;
	uint32_t count = 0;

	while (i < idx->n || j < n) {
		int cmp = i == idx->n ? 1 : j == n ? -1 : strcmp(idx->v[i].path, c[j].path);

		if (cmp < 0) {
			copy_entry(o, &idx->v[i++], idx);
			count++;
			continue;
		}
		if (cmp == 0 && !c[j].remove && idx->v[i].mode == c[j].mode &&
		    git_oid_equal(&idx->v[i].id, &c[j].id)) {
			copy_entry(o, &idx->v[i], idx);   /* already so: its stat data the host's */
			count++;
		} else if (!c[j].remove) {
			new_entry(o, &c[j]);
			count++;
		}
		if (cmp == 0)
			i++;
		j++;
	}
	return count;
}

static int build_and_write(int fd, const char *lock, const struct at_index *idx,
			   const struct at_index_change *c, size_t n, struct at_error *err)
{
	size_t i, cap = idx->map_len + HEADER_SIZE + GIT_OID_RAWSZ;
	struct out o;
	uint32_t count;
	int rc;

	for (i = 0; i < n; i++)
		cap += entry_size(62, strlen(c[i].path));
	if (!(o.buf = malloc(cap)))
		return at_error_set(err, AT_ESYS, "out of memory writing the index");
	memcpy(o.buf, idx->map, 8);   /* "DIRC" and the version */
	o.p = o.buf + HEADER_SIZE;
	count = merge(&o, idx, c, n);
	put32(o.buf + 8, count);
	if (at_index_checksum(o.p, o.buf, (size_t)(o.p - o.buf)) < 0)
		rc = at_error_set(err, AT_ESYS, "cannot hash the index");
	else if (at_write_all(fd, o.buf, (size_t)(o.p - o.buf) + GIT_OID_RAWSZ) < 0)
		rc = at_error_sys(err, AT_ESYS, "cannot write '%s'", lock);
	else
		rc = 0;
	free(o.buf);
	return rc;
}

int at_index_update_to(const char *path, int fd, const char *name,
		       const struct at_index_change *changes, size_t n, struct at_error *err)
{
	struct at_index idx = AT_INDEX_INIT;
	int rc = at_index_read(path, &idx, err);

	if (rc == 0 && !acceptable(&idx, changes, n))
		rc = AT_INDEX_DECLINED;
	if (rc == 0)
		rc = build_and_write(fd, name, &idx, changes, n, err);
	at_index_free(&idx);
	return rc;
}

/* path's index.lock made as git makes it (exclusively): its descriptor, or < 0 with err set. */
static int lock_index(const char *path, char *lock, size_t size, struct at_error *err)
{
	int fd;

	if (at_fmt(lock, size, "%s.lock", path) < 0)
		return at_error_set(err, AT_ESYS, "path too long '%s'", path);
	fd = open(lock, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (fd < 0)
		return errno == EEXIST ? at_error_set(err, AT_EBUSY, "'%s' exists: another git "
						      "process holds the index", lock)
				       : at_error_sys(err, AT_ESYS, "cannot create '%s'", lock);
	return fd;
}

/* The lock closed, then renamed over path when all went well (rc 0), else removed. */
static int unlock_index(int fd, const char *lock, const char *path, int rc, struct at_error *err)
{
	if (close(fd) < 0 && rc == 0)
		rc = at_error_sys(err, AT_ESYS, "cannot write '%s'", lock);
	if (rc == 0 && rename(lock, path) < 0)
		rc = at_error_sys(err, AT_ESYS, "cannot rename '%s'", lock);
	if (rc != 0)
		unlink(lock);
	return rc;
}

int at_index_update(const char *path, const struct at_index_change *changes, size_t n,
		    struct at_error *err)
{
	char lock[PATH_MAX];
	int fd = lock_index(path, lock, sizeof(lock), err);

	if (fd < 0)
		return fd;
	return unlock_index(fd, lock, path, at_index_update_to(path, fd, lock, changes, n, err), err);
}

/* The entry's file still what it describes: its kind, exec bit and size. */
static bool same_file(const git_index_entry *e, const struct stat *st)
{
	if (e->mode == 0160000)   /* a gitlink: the empty directory a checkout makes, size 0 */
		return S_ISDIR(st->st_mode) && e->file_size == 0;
	if ((uint32_t)st->st_size != e->file_size)
		return false;
	if (e->mode == 0120000)
		return S_ISLNK(st->st_mode);
	return (e->mode == 0100644 || e->mode == 0100755) && S_ISREG(st->st_mode) &&
	       ((st->st_mode & S_IXUSR) != 0) == (e->mode == 0100755);
}

/* The stat data of an entry (versions 2 and 3: its bytes at p), from st. */
static void put_stat(unsigned char *p, const struct stat *st)
{
	put32(p, (uint32_t)st->st_ctim.tv_sec);
	put32(p + 4, (uint32_t)st->st_ctim.tv_nsec);
	put32(p + 8, (uint32_t)st->st_mtim.tv_sec);
	put32(p + 12, (uint32_t)st->st_mtim.tv_nsec);
	put32(p + 16, (uint32_t)st->st_dev);
	put32(p + 20, (uint32_t)st->st_ino);
	put32(p + 28, st->st_uid);
	put32(p + 32, st->st_gid);
	put32(p + 36, S_ISDIR(st->st_mode) ? 0 : (uint32_t)st->st_size);
}

static int restat_and_write(int fd, const char *lock, const struct at_index *idx, int dir,
			    bool (*fresh)(const char *, void *), void *ctx, struct at_error *err)
{
	const unsigned char *map = idx->map;
	size_t i, fixed, size = idx->map_len - 1;   /* at_index_read maps a byte more */
	size_t len = size - GIT_OID_RAWSZ;
	unsigned char *buf;
	struct stat st;
	int rc = 0;

	if (!(buf = malloc(size)))
		return at_error_set(err, AT_ESYS, "out of memory writing the index");
	memcpy(buf, map, size);
	for (i = 0; i < idx->n; i++) {
		const git_index_entry *e = &idx->v[i];

		fixed = (e->flags & FLAG_EXTENDED) ? 64 : 62;
		if ((e->flags & STAGE_MASK) == 0 && fresh(e->path, ctx) &&
		    fstatat(dir, e->path, &st, AT_SYMLINK_NOFOLLOW) == 0 && same_file(e, &st))
			put_stat(buf + ((const unsigned char *)e->path - fixed - map), &st);
	}
	if (at_index_checksum(buf + len, buf, len) < 0)
		rc = at_error_set(err, AT_ESYS, "cannot hash the index");
	else if (at_write_all(fd, buf, size) < 0)
		rc = at_error_sys(err, AT_ESYS, "cannot write '%s'", lock);
	free(buf);
	return rc;
}

int at_index_restat(const char *path, int dir, bool (*fresh)(const char *path, void *ctx),
		    void *ctx, struct at_error *err)
{
	struct at_index idx = AT_INDEX_INIT;
	char lock[PATH_MAX];
	int fd = lock_index(path, lock, sizeof(lock), err), rc;

	if (fd < 0)
		return fd;
	rc = at_index_read(path, &idx, err);
	/* Version 4's paths are not in the file's bytes: where its entries lie is not known here. */
	if (rc == 0 && (!idx.map || idx.paths || idx.map_len < HEADER_SIZE + GIT_OID_RAWSZ + 1))
		rc = AT_INDEX_DECLINED;
	if (rc == 0)
		rc = restat_and_write(fd, lock, &idx, dir, fresh, ctx, err);
	rc = unlock_index(fd, lock, path, rc, err);
	at_index_free(&idx);
	return rc;
}
