/*
 * layer.h - a layered task's own layer (core/task.h): <layers_dir>/NAME
 * (core/paths.h) with upper/ (the task's files over the base: overlayfs's
 * upper, whiteouts and opaque directories and all), work/ and work.1/ (its
 * work dirs, one mounted while the other holds the last run's scratch),
 * run.PID/ (the work dir of a run that found the layer in use by another),
 * lock (flock'd by the run that mounts work/ or work.1/). Internal to app/.
 */
#ifndef AT_APP_LAYER_H
#define AT_APP_LAYER_H

#include <limits.h>

#include "core/error.h"
#include "core/paths.h"
#include "core/task.h"

struct at_app_layer {
	char dir[PATH_MAX];
	char upper[PATH_MAX];
	char work[PATH_MAX];      /* the work dir this run mounts */
	char spare[PATH_MAX];     /* the other: an earlier run's scratch, removed meanwhile */
	char lower[PATH_MAX];     /* the base's files/ */
	int lock;                 /* held: work/ and work.1/ are this run's; -1 */
	int own;                  /* 1: work is run.PID/, this run's alone, removed after */
};

/* The paths of t's layer and of its base's files; nothing made. */
int at_app_layer_paths(const struct at_paths *p, const struct at_task *t, struct at_app_layer *l,
		       struct at_error *err);

/* Make the layer's directories (the caller holds the repository lock, t is being made). */
int at_app_layer_make(const struct at_paths *p, const struct at_task *t, struct at_app_layer *l,
		      struct at_error *err);

/*
 * Remove the task's layer; a missing one is success. It is renamed out of
 * its place first (core/paths.h), so a kill midway leaves the task's upper
 * whole or gone, never half-deleted; what is left aside is gc's.
 */
int at_app_layer_remove(const struct at_paths *p, const char *name, struct at_error *err);

/*
 * Before a run of a layered task: the layer's paths, its lock taken and a
 * work dir picked; when another run holds the lock, a work dir of this
 * run's own (both runs then write the one upper: overlayfs does not share
 * its caches between the mounts, so each sees the other's changes made
 * before it began, and perhaps not those made since). at_app_layer_close
 * after the run.
 */
int at_app_layer_open(const struct at_paths *p, const struct at_task *t, struct at_app_layer *l,
		      struct at_error *err);
/* While the init sets up: the scratch an earlier run left in the spare work dir removed. */
void at_app_layer_aside(const struct at_app_layer *l);
void at_app_layer_close(struct at_app_layer *l);

#endif
