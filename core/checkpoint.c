/*
 * checkpoint.c - the plain data of checkpoints (checkpoint.h).
 */
#include "core/checkpoint.h"

#include <stdlib.h>

static const char *const kind_names[] = {
	[AT_CHECKPOINT_RUN] = "run",
	[AT_CHECKPOINT_REWIND] = "rewind",
};

const char *at_checkpoint_kind_name(enum at_checkpoint_kind kind)
{
	return kind_names[kind];
}

void at_checkpoint_list_release(struct at_checkpoint_list *l)
{
	if (!l)
		return;
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

const struct at_checkpoint *at_checkpoint_find(const struct at_checkpoint_list *l, unsigned n)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->v[i].n == n)
			return &l->v[i];
	return NULL;
}

const struct at_checkpoint *at_checkpoint_next(const struct at_checkpoint_list *l,
					       const struct at_checkpoint *c)
{
	size_t i = (size_t)(c - l->v) + 1;

	return i < l->n ? &l->v[i] : NULL;
}
