/*
 * pick.h - walking a task's hunks for `accept -p` (git/pick.h does the
 * work): the change read once, outside the lock (the person may take
 * minutes), each file's header and hunks for the front end to show, the
 * person's picks, splits (git's `s`) and edits (git's `e`), and the tree
 * they make with its --stat. at_app_accept then accepts exactly that tree
 * (its pick_tree), refused (AT_ESTALE) if the task changed meanwhile.
 */
#ifndef AT_APP_PICK_H
#define AT_APP_PICK_H

#include <stdbool.h>
#include <stddef.h>

#include "app/app.h"

struct at_app_pick;

/* Open the task's change (name NULL: the task holding app->dir). AT_EUSAGE when it changes nothing. */
int at_app_pick_open(const struct at_app *app, const char *name, struct at_app_pick **out,
		     struct at_error *err);
void at_app_pick_free(struct at_app_pick *p);

const char *at_app_pick_task(const struct at_app_pick *p);
size_t at_app_pick_nfiles(const struct at_app_pick *p);

struct at_app_pick_file {
	const char *path;                /* the task's bytes: escape them to print */
	const char *header;              /* the patch's lines before its first hunk */
	bool whole;                      /* one unit (added, deleted, binary, a link...) */
	size_t nhunks;
};
void at_app_pick_file(const struct at_app_pick *p, size_t i, struct at_app_pick_file *out);

/* Hunk j of file i: its "@@ ... @@" line into hdr, its body returned (lines ending '\n'). */
const char *at_app_pick_hunk(const struct at_app_pick *p, size_t i, size_t j, char *hdr,
			     size_t size);

/* Pick (or not) hunk j of file i; a whole file: j is 0. */
void at_app_pick_set(struct at_app_pick *p, size_t i, size_t j, bool take);
bool at_app_pick_get(const struct at_app_pick *p, size_t i, size_t j);

/* Split hunk j of file i in place: *parts of them now (1: it cannot be split). */
int at_app_pick_split(struct at_app_pick *p, size_t i, size_t j, size_t *parts,
		      struct at_error *err);

/* Hunk j of file i replaced by text; AT_EUSAGE naming the file when it no longer applies. */
int at_app_pick_edit(struct at_app_pick *p, size_t i, size_t j, const char *text, size_t len,
		     struct at_error *err);

/*
 * The tree the picks make, the full state they were picked from, and the
 * tree's --stat (malloc'd; "" when nothing is picked). With rest (`drop -p`),
 * *tree is what is left when the picked changes go instead; the --stat is
 * still of the picks (what goes).
 */
int at_app_pick_tree(struct at_app_pick *p, bool rest, struct at_oid *tree, struct at_oid *state,
		     char **stat, struct at_error *err);

#endif
