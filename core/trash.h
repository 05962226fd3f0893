/*
 * trash.h - what the trash holds, as plain data: the entries git/trash.h
 * lists, for every front end to show (`agenttask trash`).
 */
#ifndef AT_CORE_TRASH_H
#define AT_CORE_TRASH_H

#include <stddef.h>

#include "core/oid.h"
#include "core/task.h"

/* One entry of the trash. */
struct at_trash_entry {
	char name[AT_NAME_MAX + 1];
	char ref[AT_REF_MAX];       /* refs/agenttask/trash/NAME/SECONDS.NANOS */
	long long sec;              /* when it was discarded */
	long nsec;
	unsigned index;             /* 1: the newest entry of its task, 2: the one before... */
	char tip[AT_OID_HEXSZ + 1]; /* the task branch's tip when discarded; "" if unreadable */
	char base_branch[256];      /* as recorded; "" when based on a detached HEAD */
	unsigned checkpoints;       /* how many of the task's checkpoints it keeps (git/trash_keep.h) */
};

struct at_trash_list {
	struct at_trash_entry *v;
	size_t n;
};

void at_trash_list_release(struct at_trash_list *l);

#endif
