/*
 * fuzz_hunks.c - the hunk applier of `accept -p` (gitfmt/hunks.c) on hunks
 * the task's bytes make and the person edits.
 *
 * The input is a byte of options (bit 0: read the body as an edited hunk),
 * then a hunk body up to the first NUL, then the old side's bytes. Checked,
 * for every body at_hunk_parse takes:
 *   - the hunk applied to its own preimage (its ' ' and '-' lines, worked
 *     out here) gives exactly its postimage (its ' ' and '+' lines), and so
 *     do all of its split parts applied together (git's `s`: nothing lost,
 *     nothing doubled by the context the parts share);
 *   - each part's body is a piece of the hunk's;
 *   - applied to the input's old bytes it succeeds or says which hunk does
 *     not apply, and what it writes is at most the old bytes and the body.
 */
#include "tests/fuzz/fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "gitfmt/hunks.h"

/* The preimage (side '-') or postimage (side '+') of a parsed body. */
static char *image(const struct at_hunk *h, char side, size_t *len)
{
	const char *p = h->body, *end = h->body + h->len, *nl;
	char *out = malloc(h->len + 1), *o = out;
	bool last = false;   /* the last line written was of this side */

	AT_FUZZ_CHECK(out != NULL);
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		nl = nl ? nl + 1 : end;
		if (*p == '\\') {
			if (last)
				o--;   /* the line before had no newline */
		} else if (*p == ' ' || *p == side) {
			memcpy(o, p + 1, (size_t)(nl - p - 1));
			o += nl - p - 1;
			last = true;
		} else {
			last = false;
		}
		p = nl;
	}
	*len = (size_t)(o - out);
	return out;
}

static void check_apply(const char *old, size_t old_len, const struct at_hunk *h, size_t n,
			const char *want, size_t want_len)
{
	char *got = NULL;
	size_t len = 0, which = 0;

	AT_FUZZ_CHECK(at_hunks_apply(old, old_len, h, n, &got, &len, &which) == 0);
	AT_FUZZ_CHECK(len == want_len && memcmp(got, want, len) == 0);
	free(got);
}

static void check(struct at_hunk *h, const uint8_t *old, size_t old_len)
{
	size_t pre_len, post_len, n = 0, i, len = 0, which = 0;
	char *pre = image(h, '-', &pre_len), *post = image(h, '+', &post_len), *got = NULL;
	struct at_hunk *parts = NULL;
	int rc;

	h->old_start = h->old_count ? 1 : 0;
	h->new_start = 1;
	check_apply(pre, pre_len, h, 1, post, post_len);
	AT_FUZZ_CHECK(at_hunk_split(h, &parts, &n) == 0 && n >= 1);
	for (i = 0; i < n; i++)
		AT_FUZZ_CHECK(parts[i].len <= h->len &&
			      memmem(h->body, h->len, parts[i].body, parts[i].len) != NULL);
	check_apply(pre, pre_len, parts, n, post, post_len);
	rc = at_hunks_apply((const char *)old, old_len, h, 1, &got, &len, &which);
	AT_FUZZ_CHECK(rc == 0 || (rc == AT_HUNK_NOMATCH && which == 0 && got == NULL));
	AT_FUZZ_CHECK(rc != 0 || len <= old_len + h->len);
	free(got);
	for (i = 0; i < n; i++)
		at_hunk_release(&parts[i]);
	free(parts);
	free(pre);
	free(post);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct at_fuzz_input in = { data, size };
	uint8_t opts = at_fuzz_take_byte(&in);
	struct at_fuzz_input body = at_fuzz_take_until(&in, '\0');
	struct at_hunk h;
	int rc;

	rc = at_hunk_parse(&h, (const char *)body.p, body.n, 1, 1, opts & 1);
	AT_FUZZ_CHECK(rc == 0 || rc == AT_HUNK_MALFORMED);
	if (rc == 0) {
		check(&h, in.p, in.n);
		at_hunk_release(&h);
	}
	return 0;
}
