/*
 * fuzz_diff_format.c - the text rules of the diff (gitfmt/diff_format.c) on
 * the task's paths and file contents.
 *
 * The input is a byte of options, then two parts split at the first NUL:
 * two paths (or an old and a new file's content). Checked:
 *   - a quoted path holds no control byte (nor, with core.quotepath, any
 *     byte >= 0x80), so that it cannot drive the reviewer's terminal, and
 *     unquotes to exactly the path; a path needing no quotes is left as is;
 *   - the --stat name of a rename holds both names;
 *   - --stat lays out any names and counts;
 *   - the similarity of two contents is within 0..AT_DIFF_MAX_SCORE, and
 *     the same either way round.
 */
#include "tests/fuzz/fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gitfmt/diff_format.h"

/* C-unquote what at_diff_quote() wrote; NULL when it is not well formed. */
static char *unquote(const char *q)
{
	static const char ctl[] = "abtnvfr";
	size_t len = strlen(q);
	char *out, *o;
	const char *p;

	if (len < 2 || q[0] != '"' || q[len - 1] != '"' || !(out = malloc(len)))
		return NULL;
	for (p = q + 1, o = out; p < q + len - 1; p++) {
		const char *e;

		if (*p != '\\') {
			*o++ = *p;
		} else if (p[1] >= '0' && p[1] <= '3' && p[2] >= '0' && p[2] <= '7' &&
			   p[3] >= '0' && p[3] <= '7') {
			*o++ = (char)((p[1] - '0') << 6 | (p[2] - '0') << 3 | (p[3] - '0'));
			p += 3;
		} else if (p[1] == '"' || p[1] == '\\') {
			*o++ = *++p;
		} else if (p[1] && (e = strchr(ctl, p[1]))) {
			*o++ = (char)('\a' + (e - ctl));
			p++;
		} else {
			free(out);
			return NULL;
		}
	}
	*o = '\0';
	return out;
}

static void check_quote(const char *prefix, const char *path, bool high)
{
	char *q = at_diff_quote(prefix, path, high), *plain, *back;
	const unsigned char *c;

	AT_FUZZ_CHECK(q != NULL);
	AT_FUZZ_CHECK(asprintf(&plain, "%s%s", prefix, path) >= 0);
	for (c = (const unsigned char *)q; *c; c++)
		AT_FUZZ_CHECK(*c >= 0x20 && *c != 0x7f && (!high || *c < 0x80));
	if (!at_diff_needs_quote(prefix, high) && !at_diff_needs_quote(path, high)) {
		AT_FUZZ_CHECK(strcmp(q, plain) == 0);
	} else {
		AT_FUZZ_CHECK((back = unquote(q)) != NULL);
		AT_FUZZ_CHECK(strcmp(back, plain) == 0);
		free(back);
	}
	free(plain);
	free(q);
}

static void check_rename(const char *from, const char *to, bool high)
{
	char *name = at_diff_rename_name(from, to, high);

	AT_FUZZ_CHECK(name != NULL);
	AT_FUZZ_CHECK(strstr(name, " => ") != NULL);
	free(name);
}

static void check_stat(const char *a, const char *b, uint8_t opts, size_t size)
{
	struct at_diff_stat_item items[2] = {
		{ a, size, opts, false, 0, 0 },
		{ b, opts & 7, size >> 3, (opts & 0x10) != 0, size, opts },
	};
	struct at_diff_stat_style style = { (size_t)(opts >> 5) * 20, "+", "-", "" };
	FILE *f = fopen("/dev/null", "we");

	AT_FUZZ_CHECK(f != NULL);
	AT_FUZZ_CHECK(at_diff_stat_write(f, items, 2, &style) == 0);
	fclose(f);
}

static void check_similarity(const char *a, size_t alen, const char *b, size_t blen)
{
	struct at_diff_sig *x = at_diff_sig_new(a, alen), *y = at_diff_sig_new(b, blen);
	int s, t;

	AT_FUZZ_CHECK(x && y);
	s = at_diff_sig_estimate(x, y, 0);
	t = at_diff_sig_estimate(y, x, 0);
	AT_FUZZ_CHECK(s >= 0 && s <= AT_DIFF_MAX_SCORE && s == t);
	AT_FUZZ_CHECK(at_diff_sig_estimate(x, y, AT_DIFF_MAX_SCORE / 2) <= s);
	at_diff_sig_free(x);
	at_diff_sig_free(y);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct at_fuzz_input in = { data, size };
	uint8_t opts = at_fuzz_take_byte(&in);
	struct at_fuzz_input first = at_fuzz_take_until(&in, '\0');
	char *a = at_fuzz_strndup(first.p, first.n), *b = at_fuzz_strndup(in.p, in.n);
	bool high = opts & 1;

	if (a && b) {
		check_quote("", a, high);
		check_quote(opts & 2 ? "a/" : "", b, high);
		check_rename(a, b, high);
		AT_FUZZ_CHECK(at_diff_width(a) <= strlen(a));
		check_stat(a, b, opts, size);
		check_similarity((const char *)first.p, first.n, (const char *)in.p, in.n);
	}
	free(a);
	free(b);
	return 0;
}
