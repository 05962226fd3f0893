/*
 * index_update.h - a worktree's index brought to a new tree path by path,
 * the fast way, for the import of a task's commits (git/import.c) and a
 * rewind (git/checkpoint.c, through git/apply_paths.h).
 *
 * libgit2 reads the whole index into its structures, checks and computes
 * its collision-detecting SHA-1 over it, and writes it all again: 20 to 40
 * ms for 20,000 entries, for a commit that changed one file. Here the
 * index is read once (gitfmt/index_file.h), the entries of the paths that did
 * not change are copied byte for byte (their stat data kept; a racily clean
 * one smudged, as git does when it writes: its size zeroed, so that git
 * looks at the file again), a changed path's entry is written from the new
 * tree without stat data (git hashes that file again at its next look), and
 * the file is hashed once (OpenSSL) into index.lock, renamed over the
 * index. The extensions are dropped: all are optional, and git rebuilds its
 * cache tree at its next write-tree. index.lock is taken before the index
 * is read, so that nothing written on the host meanwhile is lost.
 *
 * It declines (AT_INDEX_DECLINED, nothing written), for libgit2 to do it:
 * an index this reader declines (gitfmt/index_file.h), version 4 (its paths
 * are compressed against the entry before), conflicts (stages), and a
 * change list out of order.
 */
#ifndef AT_GIT_INDEX_UPDATE_H
#define AT_GIT_INDEX_UPDATE_H

#include <stdbool.h>
#include <stddef.h>

#include <git2.h>

#include "core/error.h"

/* One path as the new tree has it; remove: it is gone. */
struct at_index_change {
	const char *path;
	unsigned int mode;
	git_oid id;
	bool remove;
};

/*
 * Apply changes (sorted by path, byte order, each path once) to the index
 * file at path. 0, AT_INDEX_DECLINED, or a negative code with err set
 * (AT_EBUSY when index.lock is someone else's).
 */
int at_index_update(const char *path, const struct at_index_change *changes, size_t n,
		    struct at_error *err);

/*
 * The same, but the new index written to fd (named name in messages), not
 * taken through path.lock: for a caller that puts it in place itself
 * (git/apply_paths.c, whose kill-safe protocol takes the lock). The index
 * is read without the lock held: the caller keeps other writers out.
 */
int at_index_update_to(const char *path, int fd, const char *name,
		       const struct at_index_change *changes, size_t n, struct at_error *err);

/*
 * A checkout copied from another (a layered task made full: app/fullform.c)
 * keeps the index of the source, whose stat data no longer matches a file:
 * git would read every file again. For each entry fresh(path, ctx) vouches
 * for (its file the one the entry describes, copied), the stat data taken
 * anew from lstat of path beneath dir, where it is still the entry's kind,
 * exec bit and size; every other byte kept as it is (the cache tree
 * included), the checksum made again, written through index.lock and
 * renamed over the index (a hard link to another index is left alone).
 * 0, AT_INDEX_DECLINED (version 4, or an index the reader declines:
 * nothing written), or a negative code with err set.
 */
int at_index_restat(const char *path, int dir, bool (*fresh)(const char *path, void *ctx),
		    void *ctx, struct at_error *err);

#endif
