/*
 * diff_format.h - the pure text rules of git's diff output: how paths are
 * quoted, how a rename is named in --stat, and the --stat layout itself.
 *
 * No libgit2 here: these are plain functions of their arguments, shared by
 * the diff's texts (git/diff_patch.c, git/diff_stat.c) and rename detection
 * (gitfmt/renames.c), and unit-tested on their own. Every char * returned is malloc'd and the caller's to free();
 * NULL means out of memory.
 */
#ifndef AT_GITFMT_DIFF_FORMAT_H
#define AT_GITFMT_DIFF_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * prefix + path, C-quoted as git quotes it when needed: a control byte, '"'
 * or '\\' always, a byte >= 0x80 when quote_high (core.quotepath, on by
 * default). Quoted: "\"a/na\\303\\257ve\"", else returned as is.
 */
char *at_diff_quote(const char *prefix, const char *path, bool quote_high);

/* True when at_diff_quote() would add quotes. */
bool at_diff_needs_quote(const char *path, bool quote_high);

/*
 * The --stat name of a rename, as git writes it: the common leading
 * directories and trailing path outside braces ("src/{old => new}/f.c"),
 * or "old => new" (each quoted) when either needs quoting.
 */
char *at_diff_rename_name(const char *from, const char *to, bool quote_high);

/* Columns a UTF-8 string takes (one per code point: wide glyphs count one). */
size_t at_diff_width(const char *s);

struct at_diff_stat_item {
	const char *name;          /* as displayed: quoted, or a rename name */
	size_t additions;          /* lines; unused when binary */
	size_t deletions;
	bool binary;
	uint64_t old_size;         /* binary: "Bin OLD -> NEW bytes"; both 0: "Bin" */
	uint64_t new_size;
};

struct at_diff_stat_style {
	size_t width;              /* total columns; 0: 80 */
	const char *add;           /* colour of the '+' run and the new size, "" for none */
	const char *del;           /* colour of the '-' run and the old size */
	const char *reset;
};

/*
 * Write `git diff --stat` for these items, in the order given: one line per
 * file, its graph scaled to fit the width the way git scales it, then
 * " N files changed, N insertions(+), N deletions(-)". Nothing for n == 0.
 * 0, or -1 when writing to f failed.
 */
int at_diff_stat_write(FILE *f, const struct at_diff_stat_item *items, size_t n,
		       const struct at_diff_stat_style *style);

/*
 * git's measure of how alike two files are, for rename detection: content
 * cut into spans (a line, or 64 bytes), spans hashed and counted in bytes;
 * the bytes of the old file found again in the new one, over the larger
 * size. A text file's CR before LF does not count.
 */
struct at_diff_sig;

/* NULL when out of memory. */
struct at_diff_sig *at_diff_sig_new(const char *buf, size_t len);
void at_diff_sig_free(struct at_diff_sig *sig);

/* git's scores are in 60000ths; the similarity index it prints is score * 100 / this. */
#define AT_DIFF_MAX_SCORE 60000

/*
 * git's estimate_similarity() of a (old) and b (new), 0..AT_DIFF_MAX_SCORE
 * (the same lines in any order: the maximum); 0 without comparing when
 * their sizes are too far apart for min_score.
 */
int at_diff_sig_estimate(const struct at_diff_sig *a, const struct at_diff_sig *b, int min_score);

#endif
