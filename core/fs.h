/*
 * fs.h - paths in trees that someone else may have planted links in.
 *
 * at_rmtree() removes a tree whose owner may still be changing it (a task's
 * worktree, while a command of the task that escaped being stopped runs):
 *  - it never acts through a name that could be swapped between a look and
 *    the act: each directory is opened with openat(O_DIRECTORY | O_NOFOLLOW)
 *    relative to its parent's descriptor, entries are removed with
 *    unlinkat() relative to it, and a symbolic link is removed as a link,
 *    never followed (nor is a FIFO or device ever opened);
 *  - a directory its owner lacks rwx on (chmod 500 by a build) is made 0700
 *    through its own descriptor (fchmod), never by name and never with a
 *    setuid, setgid or sticky bit;
 *  - it does not enter another mount;
 *  - it holds at most a few dozen descriptors whatever the depth: it goes
 *    back up through "..", checked by device and inode to be the directory
 *    it left (if it is not, the walk begins again from the top);
 *  - a directory refilled while it is emptied is listed again, a bounded
 *    number of times.
 * The parent of the path given is trusted (it is agenttask's own).
 */
#ifndef AT_CORE_FS_H
#define AT_CORE_FS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/error.h"

/* Remove path and all below it; a missing path is success. AT_ESYS naming what failed. */
int at_rmtree(const char *path, struct at_error *err);

/*
 * The disk space the tree at path takes, in bytes: st_blocks of every entry,
 * a file with several links counted by its share (a hard link cannot leave
 * the file system, nor, through a bind mount, the tree a task was given).
 * Walked as at_rmtree walks (no link followed, no FIFO or device opened, no
 * other mount entered), holding one descriptor a level: a tree deeper than
 * AT_USAGE_DEPTH, or with a directory that cannot be listed, cannot be
 * measured (AT_EUNSAFE naming it), so that nothing can be hidden from the
 * count. A missing path takes 0.
 */
#define AT_USAGE_DEPTH 256
int at_tree_usage(const char *path, uint64_t *bytes, struct at_error *err);

/*
 * Disk usage as du(1) counts it, for several trees in turn: st_blocks of
 * every entry, a file with several links counted once, where it is first
 * met (in any tree measured through the same struct at_du, as `du -s A B`
 * does), no link followed, no FIFO or device opened, no other mount entered
 * (du -x). Walked as at_tree_usage walks, with its limits and refusals, but
 * for a directory it cannot list: counted by its own blocks, not entered,
 * as du(1) counts it (overlayfs's work dirs, 000 in a user namespace).
 * at_du_release frees the inodes remembered.
 */
struct at_du_inode;
struct at_du {
	struct at_du_inode *seen;     /* an open-addressing set of (dev, ino) */
	size_t nseen, cap;
};
#define AT_DU_INIT { NULL, 0, 0 }
int at_du_tree(struct at_du *du, const char *path, uint64_t *bytes, struct at_error *err);
void at_du_release(struct at_du *du);

/* mkdir -p with mode for each created component. */
int at_mkdirs(const char *path, unsigned int mode, struct at_error *err);

/*
 * openat2() of path below dirfd with flags (O_CLOEXEC added), refusing a
 * symbolic link met anywhere (ELOOP; with O_PATH | O_NOFOLLOW the last
 * component may be one, and the link itself is opened) and any escape from
 * dirfd (EXDEV). Returns the descriptor, or -1 with errno set.
 */
int at_open_beneath(int dirfd, const char *path, int flags);

/*
 * Copy size bytes from in to out (regular files, out empty): a reflink
 * (FICLONE) where the file system shares extents, else the data found by
 * SEEK_DATA/SEEK_HOLE only (copy_file_range, else pread and pwrite), out then
 * cut or extended to size, so that a sparse file's holes stay holes (a
 * task's 1 TB sparse file costs no disk, nor does its copy). 0, or -1 with
 * errno set.
 */
int at_copy_bytes(int in, int out, off_t size);

/* Does anything (a dangling link too) exist at path? */
bool at_path_exists(const char *path);

#endif
