/*
 * merge.h - integrating a task into its base branch, as plain data: how
 * (the mode asked for), what happened (the kind), and the answer of a
 * preview. git/merge.h does the work; front ends read these without libgit2.
 */
#ifndef AT_CORE_MERGE_H
#define AT_CORE_MERGE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/strlist.h"
#include "core/task.h"

enum at_merge_mode {
	AT_MERGE_AUTO = 0,  /* fast-forward when possible, else a merge commit */
	AT_MERGE_FF_ONLY,   /* fast-forward or refuse (AT_ECONFLICT) */
	AT_MERGE_NO_FF,     /* always a merge commit, even when a fast-forward would do */
	AT_MERGE_SQUASH,    /* one new commit on the base, parent the base tip */
};

enum at_merge_kind {
	AT_MERGED_UP_TO_DATE = 0, /* the base already held all of the task: nothing moved */
	AT_MERGED_FAST_FORWARD,
	AT_MERGED_COMMIT,         /* a merge commit with two parents */
	AT_MERGED_SQUASH,
};

/* "up-to-date", "fast-forward", "merge", "squash": the audit log's and JSON's names. */
const char *at_merge_kind_name(enum at_merge_kind kind);

struct at_merge_result {
	enum at_merge_kind kind;
	char base_branch[AT_REF_MAX];       /* full ref that moved */
	struct at_oid old_tip;
	struct at_oid new_tip;
	bool committed_pending;             /* pending changes became a commit on the task branch */
	char updated_worktree[PATH_MAX];    /* a worktree whose files followed, "" when none */
	/*
	 * On AT_ECONFLICT the conflicting paths, on AT_EDIRTY the user's files
	 * in the way. Filled on those failures too; release it in every case.
	 */
	struct at_strlist paths;
};

void at_merge_result_release(struct at_merge_result *res);

struct at_merge_preview {
	bool has_base_branch;   /* false: the task began on a detached HEAD */
	bool base_moved;        /* the base tip is no longer the commit the task began from */
	size_t base_ahead;      /* commits on the base since the task began */
	bool clean;             /* the full state merges without conflicts */
	struct at_strlist conflicts;
};

void at_merge_preview_release(struct at_merge_preview *p);

#endif
