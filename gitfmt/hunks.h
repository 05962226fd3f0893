/*
 * hunks.h - the hunks of a unified diff as `git add -p` walks them: split at
 * the context lines between their changes (its `s`), read back from a text
 * the person edited (its `e`), and applied to the old side's bytes. Bytes in,
 * bytes out: no I/O, no libgit2 (the caller reads and writes the blobs).
 *
 * A hunk's body is its lines after the "@@" header, each ending in '\n' and
 * starting with ' ' (context), '-' (old side only), '+' (new side only) or
 * '\' ("\ No newline at end of file": the line before it has no '\n').
 * Applied, its preimage (the ' ' and '-' lines) must be found in the old
 * bytes where its header says, or, as `git apply` does, at the nearest
 * place it matches whole (no fuzz: every context line must match); hunks
 * are applied in order and never overlap but in the context lines that a
 * split hunk's parts share.
 */
#ifndef AT_GITFMT_HUNKS_H
#define AT_GITFMT_HUNKS_H

#include <stddef.h>

struct at_hunk {
	size_t old_start, old_count;   /* as the header says: 1-based (0 with no old line) */
	size_t new_start, new_count;
	char *body;                    /* the lines, owned, NUL-terminated */
	size_t len;
};

#define AT_HUNK_MALFORMED (-2)   /* a body that is no hunk (a line of another kind) */
#define AT_HUNK_NOMATCH (-3)     /* its preimage is not in the old bytes */

/*
 * A hunk of body (len bytes) whose old side starts at old_start and new side
 * at new_start; the counts are worked out from the body. With edited (the
 * text of `e`), lines starting with '#' are dropped, an empty line is an
 * empty context line, and a missing final '\n' is added. 0, -1 out of
 * memory, AT_HUNK_MALFORMED. (An "@@" line of the edited text is dropped
 * too: the counts come from the body, as `git apply --recount` takes them.)
 */
int at_hunk_parse(struct at_hunk *out, const char *body, size_t len, size_t old_start,
		  size_t new_start, int edited);

/*
 * h in parts, at each run of context lines between two of its changes, each
 * part with the context around it (shared by neighbours, as git's `s`
 * splits): *out (n_out of them, to release each and free the array). A hunk
 * with one run of changes gives one part, a copy. 0 or -1 (out of memory).
 */
int at_hunk_split(const struct at_hunk *h, struct at_hunk **out, size_t *n_out);

/*
 * old with hunks h[0..n) applied (sorted by old_start) into *out (malloc'd,
 * *out_len bytes). 0, -1 (out of memory), AT_HUNK_MALFORMED,
 * AT_HUNK_NOMATCH (*which: the index of the hunk that does not apply).
 */
int at_hunks_apply(const char *old, size_t old_len, const struct at_hunk *h, size_t n,
		   char **out, size_t *out_len, size_t *which);

/* A hunk's "@@ -a,b +c,d @@" into buf (as git writes it: ",1" left out). */
void at_hunk_header(const struct at_hunk *h, char *buf, size_t size);

void at_hunk_release(struct at_hunk *h);

#endif
