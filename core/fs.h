/*
 * fs.h - paths in trees that someone else may have planted links in.
 *
 * at_rmtree() walks with openat()/unlinkat() and O_NOFOLLOW, so a symbolic
 * link planted inside a worktree (to $HOME, say) is removed as a link and
 * never followed. Directories left without write permission (chmod 500 by a
 * build) are made writable for their owner first, as the owner may.
 */
#ifndef AT_CORE_FS_H
#define AT_CORE_FS_H

#include <stdbool.h>

#include "core/error.h"

/* Remove path and all below it; a missing path is success. */
int at_rmtree(const char *path, struct at_error *err);

/* mkdir -p with mode for each created component. */
int at_mkdirs(const char *path, unsigned int mode, struct at_error *err);

/*
 * openat2() of path below dirfd with flags (O_CLOEXEC added), refusing a
 * symbolic link met anywhere (ELOOP; with O_PATH | O_NOFOLLOW the last
 * component may be one, and the link itself is opened) and any escape from
 * dirfd (EXDEV). Returns the descriptor, or -1 with errno set.
 */
int at_open_beneath(int dirfd, const char *path, int flags);

/* Does anything (a dangling link too) exist at path? */
bool at_path_exists(const char *path);

#endif
