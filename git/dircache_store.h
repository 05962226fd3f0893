/*
 * dircache_store.h - the scan's directory cache (gitfmt/dircache.h) on disk:
 * whether a worktree's file system can have one, its file loaded and saved.
 */
#ifndef AT_GIT_DIRCACHE_STORE_H
#define AT_GIT_DIRCACHE_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "gitfmt/dircache.h"

/* Does the file system at fd keep directory times this cache relies on? */
bool at_dircache_usable(int fd);

/* Load path into *out; a missing, unreadable or damaged file gives an empty cache. */
void at_dircache_load(const char *path, struct at_dircache *out);

/* Write n directories (any order) and the scan's start, atomically; errors ignored. */
void at_dircache_save(const char *path, const struct timespec *scanned,
		      const struct at_dircache_dir *v, size_t n);

#endif
