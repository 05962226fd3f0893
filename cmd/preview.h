/*
 * preview.h - the conflict preview as status and diff show it: has the base
 * moved since the task began, and would the task still merge cleanly. An
 * in-memory merge (git/merge.h): nothing is written.
 *
 * A preview that cannot be made does not fail the command showing it: the
 * reason is shown in its place.
 */
#ifndef AT_CMD_PREVIEW_H
#define AT_CMD_PREVIEW_H

#include <stdbool.h>
#include <stdio.h>

#include "cmd/cli.h"
#include "git/merge.h"

struct at_cli_preview {
	struct at_merge_preview pv;
	struct at_error err;
	bool ok;
};

/* Make the preview; state_tree is the task's full-state tree when known, else NULL. */
void at_cli_preview_load(struct at_cli_preview *p, struct at_repo *r, const struct at_task *t,
			 const char *state_tree);
void at_cli_preview_release(struct at_cli_preview *p);

/* "main moved on by 2 commits since the task began; merges cleanly", and a newline. */
void at_cli_preview_print(FILE *f, const struct at_task *t, const struct at_cli_preview *p,
			  bool color);

/* Add base_moved, base_ahead, merges_cleanly (null when unknown), conflicts (and preview_error). */
int at_cli_preview_json(at_json *o, const struct at_cli_preview *p);

#endif
