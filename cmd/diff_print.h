/*
 * diff_print.h - printing a diff (app/diff.h) for a person or a pipe: the
 * patch line by line, --stat and --name-only, and the note on the base.
 */
#ifndef AT_CMD_DIFF_PRINT_H
#define AT_CMD_DIFF_PRINT_H

#include <stdbool.h>
#include <stddef.h>

#include "app/diff.h"
#include "core/change.h"

/* git's default colours (color.diff.*). */
#define COLOR_META "\033[1m"
#define COLOR_FRAG "\033[36m"
#define COLOR_OLD "\033[31m"
#define COLOR_NEW "\033[32m"
#define COLOR_WS "\033[41m"     /* whitespace errors on added lines */
#define COLOR_RESET "\033[m"

/* How the patch reaches stdout. */
struct at_cli_patch_out {
	bool color;
	bool escape;   /* a person reads it: the task's controls shown as \xNN (core/esc.h) */
};

/* An at_diff_line_cb printing to stdout; payload: a struct at_cli_patch_out. */
int at_cli_diff_line(char origin, const char *s, size_t len, void *payload);

/*
 * --stat or --name-only text for a person, to stdout: the names' controls
 * shown, our own colours (ESC [ digits m) kept.
 */
void at_cli_put_names_text(const char *s);

/* git's width for --stat: $COLUMNS, else the terminal's, else 80. */
size_t at_cli_stat_width(void);

/* The text of --stat (stat) or --name-only, to stdout as o says (escaped, coloured). */
int at_cli_diff_text(struct at_app_diff *d, bool stat, const struct at_cli_patch_out *o,
		     struct at_error *err);

/*
 * With the patch, when the base has moved on since the task began, say so
 * and whether the task still merges cleanly, on stderr.
 */
void at_cli_diff_note(struct at_app_diff *d);

#endif
