/*
 * diff_print.c - a patch as `git diff` prints it, colours included (of
 * git's whitespace-error marks: blanks at the end of an added line and
 * spaces before a tab in its indent, not blank lines at the end of a file),
 * the task's controls shown as \xNN when a person reads it (core/esc.h),
 * and the --stat width git would use.
 */
#include "cmd/diff_print.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cmd/print.h"
#include "core/esc.h"

static void put(const char *s, size_t len)
{
	fwrite(s, 1, len, stdout);
}

/* A header line: bold, and a '\t' git puts after a name with a space stays outside. */
static void print_meta(const char *s, size_t len)
{
	bool tab = len > 0 && s[len - 1] == '\t';

	fputs(COLOR_META, stdout);
	put(s, len - tab);
	fputs(COLOR_RESET, stdout);
	if (tab)
		putchar('\t');
}

/* "@@ -1,2 +1,3 @@" in cyan, then the blanks and the function context plain. */
static void print_frag(const char *s, size_t len)
{
	const char *end = len > 2 ? memmem(s + 2, len - 2, "@@", 2) : NULL;
	size_t frag = end ? (size_t)(end - s) + 2 : len, blank = frag;

	fputs(COLOR_FRAG, stdout);
	put(s, frag);
	fputs(COLOR_RESET, stdout);
	while (blank < len && (s[blank] == ' ' || s[blank] == '\t'))
		blank++;
	if (blank > frag) {
		put(s + frag, blank - frag);
		fputs(COLOR_RESET, stdout);
	}
	if (blank < len) {
		put(s + blank, len - blank);
		fputs(COLOR_RESET, stdout);
	}
}

/* A context or deleted line: one colour over the sign and the text; a '\r' after it. */
static void print_plain_line(const char *color, char sign, const char *s, size_t len)
{
	bool cr = len > 0 && s[len - 1] == '\r';

	fputs(color, stdout);
	putchar(sign);
	put(s, len - cr);
	fputs(COLOR_RESET, stdout);
	if (cr)
		putchar('\r');
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/*
 * An added line, marked as git marks whitespace errors by default: spaces
 * before a tab in the indent and blanks at the end of the line get a red
 * background; the rest of the indent is left uncoloured.
 */
static void print_new_line(const char *s, size_t len)
{
	size_t trail = len, written = 0, i;

	fputs(COLOR_NEW "+" COLOR_RESET, stdout);
	while (trail > 0 && is_blank(s[trail - 1]))
		trail--;
	for (i = 0; i < trail && (s[i] == ' ' || s[i] == '\t'); i++) {
		if (s[i] != '\t')
			continue;
		if (written < i) {
			fputs(COLOR_WS, stdout);
			put(s + written, i - written);
			fputs(COLOR_RESET, stdout);
			written = i;
		}
		put(s + written, i - written + 1);
		written = i + 1;
	}
	if (trail > written) {
		fputs(COLOR_NEW, stdout);
		put(s + written, trail - written);
		fputs(COLOR_RESET, stdout);
	}
	if (trail < len) {
		fputs(COLOR_WS, stdout);
		put(s + trail, len - trail);
		fputs(COLOR_RESET, stdout);
	}
}

static void print_color(char origin, const char *s, size_t len)
{
	switch (origin) {
	case AT_DIFF_FILE_HDR:
		print_meta(s, len);
		break;
	case AT_DIFF_HUNK_HDR:
		print_frag(s, len);
		break;
	case AT_DIFF_ADDITION:
		print_new_line(s, len);
		break;
	case AT_DIFF_DELETION:
		print_plain_line(COLOR_OLD, '-', s, len);
		break;
	case AT_DIFF_CONTEXT:
		print_plain_line("", ' ', s, len);
		break;
	case AT_DIFF_CONTEXT_EOFNL:
	case AT_DIFF_ADD_EOFNL:
	case AT_DIFF_DEL_EOFNL:
		put(s, len);
		fputs(COLOR_RESET, stdout);
		break;
	default:
		put(s, len);
		break;
	}
}

/*
 * s[0..len) with its controls shown, into *safe (freed by the caller): a
 * CRLF line's CR is kept, it returns over nothing (and git's colours place it).
 */
static int escape_line(const char *s, size_t len, char **safe, size_t *safe_len)
{
	size_t cr = len > 0 && s[len - 1] == '\r';
	FILE *m;

	if (!(m = open_memstream(safe, safe_len)))
		return -1;
	at_esc_write(m, s, len - cr, AT_ESC_TEXT);
	fwrite(s + len - cr, 1, cr, m);
	if (fclose(m) != 0) {
		free(*safe);
		*safe = NULL;
		return -1;
	}
	return 0;
}

int at_cli_diff_line(char origin, const char *s, size_t len, void *payload)
{
	const struct at_cli_patch_out *o = payload;
	size_t cr = len > 0 && s[len - 1] == '\r';
	char *safe = NULL;
	size_t safe_len = 0;

	if (o->escape && at_esc_needed(s, len - cr, AT_ESC_TEXT)) {
		if (escape_line(s, len, &safe, &safe_len) < 0)
			return -1;
		s = safe;
		len = safe_len;
	}
	if (o->color) {
		print_color(origin, s, len);
	} else {
		if (origin == AT_DIFF_CONTEXT || origin == AT_DIFF_ADDITION ||
		    origin == AT_DIFF_DELETION)
			putchar(origin);
		put(s, len);
	}
	putchar('\n');
	free(safe);
	return ferror(stdout) ? -1 : 0;
}

/* The length of the colour (ESC [ digits m) at s, 0 if none. */
static size_t colour_len(const char *s)
{
	size_t n;

	if (s[0] != '\033' || s[1] != '[')
		return 0;
	n = 2 + strspn(s + 2, "0123456789;");
	return s[n] == 'm' ? n + 1 : 0;
}

/*
 * Every name in the text is quoted as git quotes it, so a raw ESC can only
 * begin one of our own colours, written as it is.
 */
void at_cli_put_names_text(const char *s)
{
	const char *esc;
	size_t n;

	while ((esc = strchr(s, '\033'))) {
		n = colour_len(esc);
		at_esc_write(stdout, s, (size_t)(esc - s) + (n ? 0 : 1), AT_ESC_TEXT);
		fwrite(esc, 1, n, stdout);
		s = esc + (n ? n : 1);
	}
	at_esc_fputs(stdout, s, AT_ESC_TEXT);
}

/* git's width for --stat: $COLUMNS, else the terminal's, else 80. */
size_t at_cli_stat_width(void)
{
	const char *env = getenv("COLUMNS");
	struct winsize ws;

	if (env && atoi(env) > 0)
		return (size_t)atoi(env);
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col)
		return ws.ws_col;
	return 80;
}

/* ---- the texts of a diff ---- */

/*
 * With the patch, when the base has moved on since the task began, say so
 * and whether the task still merges cleanly. On stderr: stdout stays a patch
 * that `git apply` takes.
 */
void at_cli_diff_note(struct at_app_diff *d)
{
	struct at_app_preview p;

	at_app_diff_preview(d, &p);
	if (!p.ok || p.pv.base_moved) {
		fputs("agenttask: note: ", stderr);
		at_cli_print_preview(stderr, at_app_diff_task(d), &p, false);
	}
	at_app_preview_release(&p);
}

int at_cli_diff_text(struct at_app_diff *d, bool stat, const struct at_cli_patch_out *o,
		     struct at_error *err)
{
	bool color = stat && o->color;   /* --name-only has none */
	struct at_diff_stat_opts so = AT_DIFF_STAT_OPTS_INIT;
	char *text = NULL;
	int rc;

	so.width = at_cli_stat_width();
	if (color) {
		so.add_color = COLOR_NEW;
		so.del_color = COLOR_OLD;
		so.reset = COLOR_RESET;
	}
	rc = stat ? at_app_diff_stat(d, &so, &text, err)
			       : at_app_diff_names(d, &text, err);
	if (rc == 0 && o->escape)
		at_cli_put_names_text(text);
	else if (rc == 0)
		fputs(text, stdout);
	free(text);
	return rc;
}
