/*
 * layer.h - the base of layered tasks (core/task.h): a commit's tree checked
 * out once into agenttask's state (core/paths.h's base: files/ and index),
 * read-only from then on, shared by every layered task of that tree.
 */
#ifndef AT_GIT_LAYER_H
#define AT_GIT_LAYER_H

#include "core/oid.h"
#include "core/progress.h"
#include "git/repo.h"

/*
 * The base of commit_hex's tree, made when missing, under the repository
 * lock: written by git/checkout.c's writer threads into a temporary
 * directory (core/paths.h) renamed into place, so that a base that exists
 * is whole (a kill leaves the temporary one, which the next maker or gc
 * removes). tree_hex (AT_OID_HEXSZ + 1) gets the tree's id. 0, or
 * AT_LAYER_DECLINED, nothing made, when the tree's checkout needs what the
 * fast checkout does not do (a filter, an unusual name: git/checkout.h):
 * the task is then made full. progress is told "Updating files".
 */
#define AT_LAYER_DECLINED 1
int at_layer_base(struct at_repo *r, const char *commit_hex, char *tree_hex,
		  const struct at_progress_hook *progress, struct at_error *err);

/* The id of commit_hex's tree, in tree_hex (AT_OID_HEXSZ + 1): which base its tasks have. */
int at_layer_tree_of(struct at_repo *r, const char *commit_hex, char *tree_hex,
		     struct at_error *err);

/*
 * A layered task made full (app/fullform.c: the base's files copied into
 * dest, the task's upper applied over them) keeps the index that described
 * the base's files, whose stat data no longer matches the copies: git would
 * read every file again, and report each as modified to a plain diff-files.
 * The entries whose path the upper does not touch (no component of it
 * there, below directories that are not opaque) get their copy's stat data
 * (git/index_update.h's at_index_restat); the others keep theirs, so that
 * git reads the files the task changed. 0 or an error, the index unchanged.
 */
int at_layer_restat_index(const char *index, int upper, int dest, struct at_error *err);

#endif
