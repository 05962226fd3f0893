/*
 * copytree.h - a copy of a tree someone else wrote (a task's HOME, its git
 * layer), made without trusting a byte of it.
 *
 * at_copytree(src, dst) copies what is below src into dst, which must not
 * exist (it is made with mode 0700, then given src's mode):
 *  - every directory is opened with openat(O_DIRECTORY | O_NOFOLLOW) from
 *    its parent's descriptor; a regular file is opened O_NOFOLLOW |
 *    O_NONBLOCK only once fstatat says it is one, and checked again on the
 *    descriptor (same inode, still regular): a FIFO or a device is never
 *    opened, a link never followed;
 *  - a file's data is shared with FICLONE where the file system can
 *    (btrfs, XFS), else copied, its holes kept (at_copy_bytes); its mode
 *    (without setuid, setgid or sticky bits) and times are kept;
 *  - a symbolic link is copied as a link (its text), a FIFO made anew
 *    (mkfifo, never opened), an overlayfs whiteout (a 0/0 character
 *    device) made anew, and the user.overlay.* attributes of files and
 *    directories kept, so that a copied overlay upper hides what the
 *    original hid; sockets and other devices are left out;
 *  - a file with several links inside src is copied once and linked again
 *    (linkat) where it is met next;
 *  - another mount is not entered, and a tree deeper than AT_COPY_DEPTH is
 *    refused (AT_EUNSAFE naming where), so that nothing is silently cut.
 * On failure dst is left half-made: the caller removes it (at_rmtree).
 */
#ifndef AT_CORE_COPYTREE_H
#define AT_CORE_COPYTREE_H

#include "core/error.h"

#define AT_COPY_DEPTH 256

int at_copytree(const char *src, const char *dst, struct at_error *err);

#endif
