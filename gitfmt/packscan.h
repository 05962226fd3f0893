/*
 * packscan.h - what a pack declares, checked before libgit2's indexer reads
 * it (the import's guard against a delta bomb, issue 23).
 *
 * libgit2's indexer allocates what a pack's objects declare: a delta's
 * result size is allocated before the delta is applied, and a chain of
 * deltas is applied again for each object in it (bases over 1 MiB are not
 * cached). A 64 KiB pack of the task's could so make the host allocate and
 * copy hundreds of megabytes per object, outside the run's limits. This
 * walks the pack itself, bytes in, verdict out: each object's header, each
 * delta's base and result sizes (the first bytes of its inflated data),
 * each zlib stream inflated into a small buffer to find where the next
 * object starts, and refuses, before the indexer sees the pack:
 *
 *   - any object, delta base or delta result declared over object_max
 *     (a delta's own data over twice that);
 *   - a pack whose work is over total_max: the sum over its objects of what
 *     resolving each one writes, its size plus its base's (for an offset
 *     delta, its base's own work; for a delta naming its base by id, which
 *     cannot be found without hashing, object_max);
 *   - anything malformed: a bad header, an object count the file cannot
 *     hold, a type git does not have, an offset outside the pack, a stream
 *     whose length is not the one declared, bytes left over.
 *
 * Memory: two 64 KiB buffers and one record per object. Time: one inflate
 * of the pack, which the indexer does again.
 */
#ifndef AT_GITFMT_PACKSCAN_H
#define AT_GITFMT_PACKSCAN_H

#include <stdint.h>

#include "core/error.h"

struct at_packscan_limits {
	uint64_t object_max;   /* one object, as agenttask.maxFileSize */
	uint64_t total_max;    /* the pack's work (see above) */
};

/*
 * Check the pack in fd (a regular file of size bytes, read with pread from
 * offset 0); name is how messages call it. 0, or AT_EUNSAFE with one line
 * naming the pack and what is wrong, or AT_ESYS.
 */
int at_packscan_check(int fd, uint64_t size, const char *name,
		      const struct at_packscan_limits *lim, struct at_error *err);

#endif
