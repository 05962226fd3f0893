/*
 * index_file.h - a worktree's index file, parsed the way git reads it.
 *
 * libgit2 takes ~9 ms to read a 20,000-entry index: it checks the SHA-1 of
 * the whole file, validates every path for NTFS and HFS, allocates each
 * entry and fills a hash map. A snapshot that only compares the index with
 * HEAD and the worktree needs the entries alone: at_index_read()
 * (git/index_read.h) reads the file once, at_index_parse() parses versions
 * 2, 3 and 4 (prefix-compressed paths) into one array, without the checksum
 * (git does not check it on read either).
 *
 * It declines (AT_INDEX_DECLINED, nothing kept) what it does not represent
 * exactly, for libgit2 to read (and to report, if it is damaged): no index
 * file, another version, a required extension (lowercase signature: the
 * split index's "link", the sparse index's "sdir"), entries out of order
 * (by path, then stage; a path of stage 0 twice, or with other stages),
 * anything truncated or malformed. The cache-tree extension is kept (a
 * malformed one is dropped, as git drops it); the other optional extensions
 * (resolve-undo, untracked cache, ...) are skipped.
 */
#ifndef AT_GITFMT_INDEX_FILE_H
#define AT_GITFMT_INDEX_FILE_H

#include <stddef.h>
#include <time.h>

#include <git2.h>

#include "core/error.h"
#include "gitfmt/cache_tree.h"

#define AT_INDEX_DECLINED 1

struct at_index {
	git_index_entry *v;       /* in the file's order (by path, then stage) */
	size_t n;
	struct timespec mtime;    /* of the file: entries no older are racily clean */
	char *paths;              /* version 4: where every v[i].path points */
	struct at_cache_tree *trees;   /* the cache-tree extension, sorted; NULL: none */
	size_t ntrees;
	void *map;                /* the file's bytes: versions 2 and 3 point into them */
	size_t map_len;
	size_t v_len;             /* bytes mapped for v */
};

#define AT_INDEX_INIT { NULL, 0, { 0, 0 }, NULL, NULL, 0, NULL, 0, 0 }

/*
 * Parse an index file's bytes (what at_index_read does once it has read
 * them; the fuzz harness calls it on the input). 0 or AT_INDEX_DECLINED.
 * Versions 2 and 3 point into buf: it must outlive *out, and stays the
 * caller's (out->map is NULL). out->mtime is left zero.
 */
int at_index_parse(const void *buf, size_t len, struct at_index *out);

/*
 * Anonymous memory for an index file's bytes (or its entries), its pages
 * populated at once; NULL on failure. munmap() it, or hand it to *out as
 * out->map (map_len bytes) for at_index_free().
 */
void *at_index_buf_new(size_t len);

void at_index_free(struct at_index *idx);

/* The index's trailing checksum of buf's len bytes (SHA-1, OpenSSL's): 0 or -1. */
int at_index_checksum(unsigned char out[GIT_OID_RAWSZ], const unsigned char *buf, size_t len);

#endif
