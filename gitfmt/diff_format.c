#include "gitfmt/diff_format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"

/* The escape git writes for byte c, 0 when c stands for itself, 'o' for octal. */
static char quote_escape(unsigned char c, bool quote_high)
{
	static const char ctl[] = "abtnvfr";

	if (c >= '\a' && c <= '\r')
		return ctl[c - '\a'];
	if (c == '"' || c == '\\')
		return (char)c;
	if (c < 0x20 || c == 0x7f || (c >= 0x80 && quote_high))
		return 'o';
	return 0;
}

bool at_diff_needs_quote(const char *path, bool quote_high)
{
	const unsigned char *p;

	for (p = (const unsigned char *)path; *p; p++)
		if (quote_escape(*p, quote_high))
			return true;
	return false;
}

/* Append s to out, escaped; returns the new end. */
static char *put_quoted(char *out, const char *s, bool quote_high)
{
	const unsigned char *p;

	for (p = (const unsigned char *)s; *p; p++) {
		char e = quote_escape(*p, quote_high);

		if (!e) {
			*out++ = (char)*p;
		} else if (e == 'o') {
			*out++ = '\\';
			*out++ = (char)('0' + (*p >> 6));
			*out++ = (char)('0' + ((*p >> 3) & 7));
			*out++ = (char)('0' + (*p & 7));
		} else {
			*out++ = '\\';
			*out++ = e;
		}
	}
	return out;
}

char *at_diff_quote(const char *prefix, const char *path, bool quote_high)
{
	size_t len = strlen(prefix) + strlen(path);
	char *buf, *end;

	if (!at_diff_needs_quote(prefix, quote_high) && !at_diff_needs_quote(path, quote_high)) {
		buf = malloc(len + 1);
		if (buf)
			snprintf(buf, len + 1, "%s%s", prefix, path);
		return buf;
	}
	/* At most four characters a byte (\ooo), the quotes and the NUL. */
	buf = malloc(4 * len + 3);
	if (!buf)
		return NULL;
	end = buf;
	*end++ = '"';
	end = put_quoted(end, prefix, quote_high);
	end = put_quoted(end, path, quote_high);
	*end++ = '"';
	*end = '\0';
	return buf;
}

/*
 * Split a rename into the part both names share in front (whole leading
 * directories), the differing middles, and the shared tail (from a '/').
 * The tail may reuse the prefix's final '/', never more of it.
 */
static void rename_split(const char *a, const char *b, size_t *pfx, size_t *sfx)
{
	size_t la = strlen(a), lb = strlen(b), lim, k, i;

	*pfx = *sfx = 0;
	for (i = 0; a[i] && a[i] == b[i]; i++)
		if (a[i] == '/')
			*pfx = i + 1;
	lim = *pfx ? *pfx - 1 : 0;
	for (k = 1; k <= la - lim && k <= lb - lim; k++) {
		if (a[la - k] != b[lb - k])
			break;
		if (a[la - k] == '/')
			*sfx = k;
	}
}

static size_t middle(size_t len, size_t pfx, size_t sfx)
{
	return len > pfx + sfx ? len - pfx - sfx : 0;
}

static char *rename_quoted(const char *from, const char *to, bool quote_high)
{
	char *qa = at_diff_quote("", from, quote_high);
	char *qb = at_diff_quote("", to, quote_high);
	char *out = NULL;

	if (qa && qb && asprintf(&out, "%s => %s", qa, qb) < 0)
		out = NULL;
	free(qa);
	free(qb);
	return out;
}

char *at_diff_rename_name(const char *from, const char *to, bool quote_high)
{
	size_t pfx, sfx, la = strlen(from), lb = strlen(to);
	char *out = NULL;
	int rc;

	if (at_diff_needs_quote(from, quote_high) || at_diff_needs_quote(to, quote_high))
		return rename_quoted(from, to, quote_high);
	rename_split(from, to, &pfx, &sfx);
	if (pfx + sfx == 0)
		rc = asprintf(&out, "%s => %s", from, to);
	else
		rc = asprintf(&out, "%.*s{%.*s => %.*s}%s", (int)pfx, from,
			      (int)middle(la, pfx, sfx), from + pfx, (int)middle(lb, pfx, sfx),
			      to + pfx, from + la - sfx);
	return rc < 0 ? NULL : out;
}

size_t at_diff_width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}

/* Skip one UTF-8 code point. */
static const char *next_char(const char *s)
{
	if (*s)
		s++;
	while (((unsigned char)*s & 0xc0) == 0x80)
		s++;
	return s;
}

static int digits(uint64_t v)
{
	int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

struct stat_layout {
	long name_width;
	long graph_width;
	long number_width;
	long max_change;
};

static void stat_measure(const struct at_diff_stat_item *items, size_t n, long *max_len,
			 long *max_change, long *bin_width, long *number_width)
{
	size_t i;

	*max_len = *max_change = *bin_width = *number_width = 0;
	for (i = 0; i < n; i++) {
		long len = (long)at_diff_width(items[i].name);
		long change = (long)(items[i].additions + items[i].deletions);

		if (len > *max_len)
			*max_len = len;
		if (items[i].binary) {
			/* "Bin OLD -> NEW bytes"; counts then align with "Bin" */
			long w = 14 + digits(items[i].old_size) + digits(items[i].new_size);
			if (w > *bin_width)
				*bin_width = w;
			*number_width = 3;
		} else if (change > *max_change) {
			*max_change = change;
		}
	}
}

/*
 * git's sizing: the name and the graph get what they want when it fits;
 * otherwise the graph keeps at most 3/8 of the width (at least 6 columns)
 * and the name gets the rest. " | " and the count take number_width + 6.
 */
static void stat_layout(const struct at_diff_stat_item *items, size_t n, long width,
			struct stat_layout *l)
{
	long max_len, bin_width, fixed;

	stat_measure(items, n, &max_len, &l->max_change, &bin_width, &l->number_width);
	if (digits((uint64_t)l->max_change) > l->number_width)
		l->number_width = digits((uint64_t)l->max_change);
	fixed = l->number_width + 6;
	if (width < 16 + fixed)
		width = 16 + fixed;
	l->graph_width = l->max_change + 4 > bin_width ? l->max_change : bin_width - 4;
	l->name_width = max_len;
	if (l->name_width + fixed + l->graph_width <= width)
		return;
	if (l->graph_width > width * 3 / 8 - fixed) {
		l->graph_width = width * 3 / 8 - fixed;
		if (l->graph_width < 6)
			l->graph_width = 6;
	}
	if (l->name_width > width - fixed - l->graph_width)
		l->name_width = width - fixed - l->graph_width;
	else
		l->graph_width = width - fixed - l->name_width;
}

/* Scale a count into the graph; anything non-zero keeps at least one column. */
static long scale(long it, const struct stat_layout *l)
{
	if (!it)
		return 0;
	return 1 + it * (l->graph_width - 1) / l->max_change;
}

static void put_run(FILE *f, char ch, long count, const char *color, const char *reset)
{
	if (count <= 0)
		return;
	fputs(color, f);
	while (count-- > 0)
		fputc(ch, f);
	fputs(reset, f);
}

/* Print the name cut to the name column: "..." and the tail from a '/'. */
static void stat_name(FILE *f, const char *name, const struct stat_layout *l)
{
	long len = l->name_width, name_len = (long)at_diff_width(name), pad;
	const char *prefix = "";

	if (l->name_width < name_len) {
		const char *slash;

		prefix = "...";
		len = len > 3 ? len - 3 : 0;
		for (; name_len > len; name_len--)
			name = next_char(name);
		slash = strchr(name, '/');
		if (slash)
			name = slash;
	}
	pad = len - (long)at_diff_width(name);
	fprintf(f, " %s%s%*s | ", prefix, name, (int)(pad > 0 ? pad : 0), "");
}

static void stat_line(FILE *f, const struct at_diff_stat_item *it, const struct stat_layout *l,
		      const struct at_diff_stat_style *s)
{
	long add = (long)it->additions, del = (long)it->deletions;

	stat_name(f, it->name, l);
	if (it->binary) {
		fprintf(f, "%*s", (int)l->number_width, "Bin");
		if (it->old_size || it->new_size)
			fprintf(f, " %s%llu%s -> %s%llu%s bytes", s->del,
				(unsigned long long)it->old_size, s->reset, s->add,
				(unsigned long long)it->new_size, s->reset);
		fputc('\n', f);
		return;
	}
	fprintf(f, "%*ld%s", (int)l->number_width, add + del, add + del ? " " : "");
	if (l->graph_width <= l->max_change) {
		long total = scale(add + del, l);

		if (total < 2 && add && del)
			total = 2;
		if (add < del) {
			add = scale(add, l);
			del = total - add;
		} else {
			del = scale(del, l);
			add = total - del;
		}
	}
	put_run(f, '+', add, s->add, s->reset);
	put_run(f, '-', del, s->del, s->reset);
	fputc('\n', f);
}

static void stat_summary(FILE *f, const struct at_diff_stat_item *items, size_t n)
{
	size_t i, adds = 0, dels = 0;

	for (i = 0; i < n; i++) {
		if (items[i].binary)
			continue;
		adds += items[i].additions;
		dels += items[i].deletions;
	}
	fprintf(f, " %zu file%s changed", n, n == 1 ? "" : "s");
	if (adds || dels == 0)
		fprintf(f, ", %zu insertion%s(+)", adds, adds == 1 ? "" : "s");
	if (dels || adds == 0)
		fprintf(f, ", %zu deletion%s(-)", dels, dels == 1 ? "" : "s");
	fputc('\n', f);
}

int at_diff_stat_write(FILE *f, const struct at_diff_stat_item *items, size_t n,
		       const struct at_diff_stat_style *style)
{
	struct at_diff_stat_style plain = { 0, "", "", "" };
	const struct at_diff_stat_style *s = style ? style : &plain;
	struct stat_layout l;
	size_t i;

	if (n == 0)
		return 0;
	stat_layout(items, n, s->width ? (long)s->width : 80, &l);
	for (i = 0; i < n; i++)
		stat_line(f, &items[i], &l, s);
	stat_summary(f, items, n);
	return ferror(f) ? -1 : 0;
}

/* ---- similarity ------------------------------------------------------- */

#define SPAN_HASHBASE 107927u   /* the modulus git's span hashes use */
#define SPAN_MAX 64             /* a span ends at a newline or after this many bytes */
#define BINARY_CHECK_BYTES 8000

struct span {
	uint32_t hash;
	uint32_t bytes;
};

struct at_diff_sig {
	size_t size;
	size_t n;
	struct span *spans;     /* sorted by hash, one entry a hash */
};

static int span_cmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return (x->hash > y->hash) - (x->hash < y->hash);
}

/* Cut buf into spans and hash each (git's rolling hash); sig->spans unsorted. */
static int sig_cut(struct at_diff_sig *sig, const unsigned char *buf, size_t len, bool text)
{
	uint32_t a1 = 0, a2 = 0, n = 0;
	size_t i, cap = 0;

	/*
	 * As git's hash_chars(): a last span without its newline is never
	 * hashed, so it counts as changed even where both sides end in it.
	 */
	sig->spans = NULL;
	if (AT_ARRAY_GROW(sig->spans, cap, len / 16 + 16) < 0)
		return -1;
	for (i = 0; i < len; i++) {
		uint32_t c = buf[i], old = a1;

		if (text && c == '\r' && i + 1 < len && buf[i + 1] == '\n')
			continue;
		a1 = (a1 << 7) ^ (a2 >> 25);
		a2 = (a2 << 7) ^ (old >> 25);
		a1 += c;
		if (++n < SPAN_MAX && c != '\n')
			continue;
		if (AT_ARRAY_GROW(sig->spans, cap, sig->n + 1) < 0)
			return -1;
		sig->spans[sig->n].hash = (a1 + a2 * 0x61) % SPAN_HASHBASE;
		sig->spans[sig->n++].bytes = n;
		n = a1 = a2 = 0;
	}
	return sig->spans ? 0 : -1;
}

/* Sort the spans and fold those of one hash together. */
static void sig_fold(struct at_diff_sig *sig)
{
	size_t i, out = 0;

	qsort(sig->spans, sig->n, sizeof(*sig->spans), span_cmp);
	for (i = 0; i < sig->n; i++) {
		if (out > 0 && sig->spans[out - 1].hash == sig->spans[i].hash)
			sig->spans[out - 1].bytes += sig->spans[i].bytes;
		else
			sig->spans[out++] = sig->spans[i];
	}
	sig->n = out;
}

struct at_diff_sig *at_diff_sig_new(const char *buf, size_t len)
{
	struct at_diff_sig *sig = calloc(1, sizeof(*sig));
	bool text = !memchr(buf, 0, len < BINARY_CHECK_BYTES ? len : BINARY_CHECK_BYTES);

	if (!sig)
		return NULL;
	sig->size = len;
	if (sig_cut(sig, (const unsigned char *)buf, len, text) < 0) {
		at_diff_sig_free(sig);
		return NULL;
	}
	sig_fold(sig);
	return sig;
}

void at_diff_sig_free(struct at_diff_sig *sig)
{
	if (!sig)
		return;
	free(sig->spans);
	free(sig);
}

int at_diff_sig_estimate(const struct at_diff_sig *a, const struct at_diff_sig *b, int min_score)
{
	size_t i = 0, j = 0, max = a->size > b->size ? a->size : b->size;
	size_t base = a->size < b->size ? a->size : b->size;
	double copied = 0;

	/* Sizes too far apart to reach min_score: not compared at all. */
	if ((double)max * (AT_DIFF_MAX_SCORE - min_score) < (double)(max - base) * AT_DIFF_MAX_SCORE)
		return 0;
	if (b->size == 0)
		return 0;
	while (i < a->n && j < b->n) {
		if (a->spans[i].hash < b->spans[j].hash) {
			i++;
		} else if (a->spans[i].hash > b->spans[j].hash) {
			j++;
		} else {
			uint32_t x = a->spans[i++].bytes, y = b->spans[j++].bytes;
			copied += x < y ? x : y;
		}
	}
	return (int)(copied * AT_DIFF_MAX_SCORE / (double)max);
}
