/*
 * fs.h - removing directory trees without following links.
 *
 * at_rmtree() walks with openat()/unlinkat() and O_NOFOLLOW, so a symbolic
 * link planted inside a worktree (to $HOME, say) is removed as a link and
 * never followed. Directories left without write permission (chmod 500 by a
 * build) are made writable for their owner first, as the owner may.
 */
#ifndef AT_CORE_FS_H
#define AT_CORE_FS_H

#include "core/error.h"

/* Remove path and all below it; a missing path is success. */
int at_rmtree(const char *path, struct at_error *err);

/* mkdir -p with mode for each created component. */
int at_mkdirs(const char *path, unsigned int mode, struct at_error *err);

#endif
