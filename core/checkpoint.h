/*
 * checkpoint.h - a task's checkpoints as plain data (git/checkpoint.h makes
 * and reads them): the state before each run, and before each rewind.
 */
#ifndef AT_CORE_CHECKPOINT_H
#define AT_CORE_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "core/oid.h"

#define AT_CHECKPOINT_MAX 1000000u   /* N beyond this is refused as a number */

enum at_checkpoint_kind {
	AT_CHECKPOINT_RUN,       /* before a run (run N) */
	AT_CHECKPOINT_REWIND,    /* the state a rewind replaced */
};

struct at_checkpoint {
	unsigned n;
	enum at_checkpoint_kind kind;
	struct at_oid commit;    /* the checkpoint's own commit */
	struct at_oid tip;       /* HEAD's commit then (its parent) */
	struct at_oid tree;      /* the full state then */
	int64_t time;            /* when it was taken (its committer time) */
};

struct at_checkpoint_list {
	struct at_checkpoint *v;   /* by n */
	size_t n;
};

/* "run" or "rewind". */
const char *at_checkpoint_kind_name(enum at_checkpoint_kind kind);

/* Checkpoint n of l, or NULL. */
const struct at_checkpoint *at_checkpoint_find(const struct at_checkpoint_list *l, unsigned n);

/* The checkpoint after c in l (the state its run left, when there is one), or NULL. */
const struct at_checkpoint *at_checkpoint_next(const struct at_checkpoint_list *l,
					       const struct at_checkpoint *c);

void at_checkpoint_list_release(struct at_checkpoint_list *l);

#endif
