/*
 * lock.h - the repository-wide lock every mutating command holds.
 *
 * An exclusive flock(2) on <state>/lock. The kernel drops it when the holder
 * dies, so a crash never leaves a stale lock, and finding a record still in
 * phase AT_TASK_CREATING while holding the lock proves its creator is gone.
 */
#ifndef AT_CORE_LOCK_H
#define AT_CORE_LOCK_H

#include "core/task.h"

/* Block until the lock is held; *fd_out is the descriptor to release. */
int at_lock_acquire(const struct at_paths *p, int *fd_out, struct at_error *err);

/* Take the lock only if free: 0 when taken, AT_EBUSY when someone holds it. */
int at_lock_try(const struct at_paths *p, int *fd_out, struct at_error *err);

/*
 * Another lock of the same kind, on the file path (made when missing, no
 * link followed): 0 and *fd_out when taken; 1 and *fd_out -1 when another
 * holds it; negative on error.
 */
int at_lock_try_file(const char *path, int *fd_out, struct at_error *err);

/* Release (close) the lock; -1 is left alone (nothing is closed, errno kept). */
void at_lock_release(int fd);

#endif
