#include "git/linemap.h"

#include <git2.h>

#include "git/internal.h"

size_t at_line_count(const char *text, size_t len)
{
	size_t i, n = 0;

	for (i = 0; i < len; i++)
		if (text[i] == '\n')
			n++;
	return n + (len && text[len - 1] != '\n');
}

struct linemap {
	size_t first, last;   /* the old range */
	long shift;           /* what the hunks wholly above it add (or remove) */
	bool outdated;
};

/*
 * With no context, a hunk is exactly the changed lines: old_lines from
 * old_start (or, with old_lines 0, an insertion after line old_start).
 */
static int on_hunk(const git_diff_delta *delta, const git_diff_hunk *h, void *payload)
{
	struct linemap *m = payload;
	size_t start = (size_t)h->old_start, n = (size_t)h->old_lines;
	long delta_lines = (long)h->new_lines - (long)h->old_lines;

	(void)delta;
	if (n == 0) {
		if (start < m->first)           /* inserted above */
			m->shift += delta_lines;
		else if (start < m->last)       /* inserted between its lines */
			m->outdated = true;
		return 0;
	}
	if (start + n - 1 < m->first)
		m->shift += delta_lines;
	else if (start <= m->last)
		m->outdated = true;
	return 0;
}

int at_linemap(const char *old, size_t old_len, const char *new, size_t new_len, size_t first,
	       size_t last, size_t *out_first, bool *outdated, struct at_error *err)
{
	git_diff_options opts;
	struct linemap m = { first, last, 0, false };

	if (first < 1 || last < first || last > at_line_count(old, old_len))
		return at_error_set(err, AT_EUSAGE, "lines %zu-%zu are not in the file", first,
				    last);
	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	opts.context_lines = 0;
	opts.flags = GIT_DIFF_FORCE_TEXT;
	if (git_diff_buffers(old, old_len, NULL, new, new_len, NULL, &opts, NULL, NULL, on_hunk,
			     NULL, &m) < 0)
		return at_git_error(err, AT_EGIT, "cannot compare the file's two versions");
	*outdated = m.outdated;
	*out_first = m.outdated ? 0 : (size_t)((long)first + m.shift);
	return 0;
}
