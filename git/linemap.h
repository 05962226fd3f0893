/*
 * linemap.h - a line of one version of a file found in another version.
 *
 * A review comment is made on lines of a file as the task's state had it
 * then; shown later, against the current state, its lines are carried
 * through the diff of the two versions (git's, with no context): a hunk
 * wholly above them moves them by what it adds or removes; a hunk that
 * changes, removes or splits them leaves them "outdated". Bytes in, no
 * worktree and no repository: libgit2's diff of two buffers.
 */
#ifndef AT_GIT_LINEMAP_H
#define AT_GIT_LINEMAP_H

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"

/* The number of lines of text (a last line without a newline counts). */
size_t at_line_count(const char *text, size_t len);

/*
 * Lines first..last (1-based, first <= last) of old, in new: *out_first the
 * first's line in new (the range keeps its length) and *outdated false; or
 * *outdated true (and *out_first 0) when one of them changed or went, or
 * when lines were inserted between them. A range beyond old's end is
 * AT_EUSAGE.
 */
int at_linemap(const char *old, size_t old_len, const char *new, size_t new_len, size_t first,
	       size_t last, size_t *out_first, bool *outdated, struct at_error *err);

#endif
