/*
 * flatten.h - an overlay's layers made into one plain directory on the host:
 * a layered task's full checkout (`agenttask path`, app/fullform.c).
 *
 * The lower is agenttask's own (a base's checkout); the upper is the task's
 * and hostile: every entry of it is looked at with fstatat(AT_SYMLINK_NOFOLLOW)
 * relative to its directory's descriptor and opened with O_NOFOLLOW (a
 * regular file also O_NONBLOCK, then checked by fstat to be the regular file
 * it was: a FIFO is never opened); a symbolic link is copied as a link (its
 * text, never followed), a FIFO made anew (never opened), a socket or a
 * device other than a whiteout left out. The destination is written through
 * descriptors too, so a link the upper planted there is replaced, never
 * followed. overlayfs's markers are honoured (core/gitlayer.h): a whiteout
 * removes the entry, an opaque directory replaces the lower's whole
 * directory. The upper is walked holding no descriptor per level (each
 * directory reopened from the top, openat2 without links, after a
 * subdirectory), so its depth is bounded by PATH_MAX alone, as the state's
 * reader and a full task's worktree bound it: an agent cannot make `path`
 * (and so rewind, drop, fork) refuse a tree they hold. The lower (the
 * base's checkout, agenttask's) and what removal meets of it are bounded
 * by AT_FLATTEN_DEPTH (AT_EUNSAFE past it).
 */
#ifndef AT_CORE_FLATTEN_H
#define AT_CORE_FLATTEN_H

#include "core/error.h"

#define AT_FLATTEN_DEPTH 256

/*
 * Into dest (an empty directory, the caller's own), lower's tree copied
 * (file contents shared by reflink where the file system can), then upper
 * applied over it. Descriptors are the caller's, left open.
 */
int at_flatten(int lower, int upper, int dest, struct at_error *err);

#endif
