/*
 * gc.h - removing what interrupted commands left behind.
 *
 * The report is a plain list of lines (core/strlist.h), one per thing
 * removed or left alone, so that trash.c and scratch.c, which gc calls, add
 * to it without knowing gc: no file here includes this one but gc.c's users.
 * The caller holds the repository lock (core/lock.h).
 */
#ifndef AT_GIT_GC_H
#define AT_GIT_GC_H

#include "core/strlist.h"
#include "git/repo.h"

struct at_gc_opts {
	int trash_days;          /* prune trash older than this many days */
};
#define AT_GC_OPTS_INIT { AT_TRASH_DAYS_DEFAULT }

/* Remove what crashes left; one line in *report for each thing done. */
int at_task_gc(struct at_repo *r, const struct at_gc_opts *opts, struct at_strlist *report,
	       struct at_error *err);

#endif
