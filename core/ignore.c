#include "core/ignore.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"

/* ---- wildmatch ------------------------------------------------------------ */

enum { WM_MATCH, WM_NOMATCH, WM_ABORT_ALL, WM_ABORT_TO_STARSTAR };

static bool is_in(const char *set, unsigned char c)
{
	return c && strchr(set, c) != NULL;
}

/* "[:name:]" of length len holds c: 1 or 0; -1 for an unknown name. ASCII only, as git's. */
static int char_class(const unsigned char *name, size_t len, unsigned char c)
{
	static const struct {
		const char *name;
		const char *extra; /* characters beyond the ranges */
		unsigned char lo1, hi1, lo2, hi2, lo3, hi3;
	} classes[] = {
	    {"alnum", "", '0', '9', 'a', 'z', 'A', 'Z'},
	    {"alpha", "", 'a', 'z', 'A', 'Z', 1, 0},
	    {"blank", " \t", 1, 0, 1, 0, 1, 0},
	    {"cntrl", "\x7f", 1, 0x1f, 1, 0, 1, 0},
	    {"digit", "", '0', '9', 1, 0, 1, 0},
	    {"graph", "", 0x21, 0x7e, 1, 0, 1, 0},
	    {"lower", "", 'a', 'z', 1, 0, 1, 0},
	    {"print", "", 0x20, 0x7e, 1, 0, 1, 0},
	    {"punct", "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", 1, 0, 1, 0, 1, 0},
	    {"space", " \t\n\v\f\r", 1, 0, 1, 0, 1, 0},
	    {"upper", "", 'A', 'Z', 1, 0, 1, 0},
	    {"xdigit", "", '0', '9', 'a', 'f', 'A', 'F'},
	};
	size_t i;

	for (i = 0; i < sizeof(classes) / sizeof(classes[0]); i++) {
		if (strlen(classes[i].name) != len || memcmp(classes[i].name, name, len) != 0)
			continue;
		return (c >= classes[i].lo1 && c <= classes[i].hi1) ||
		       (c >= classes[i].lo2 && c <= classes[i].hi2) ||
		       (c >= classes[i].lo3 && c <= classes[i].hi3) || is_in(classes[i].extra, c);
	}
	return -1;
}

/*
 * A bracket expression, *pp just past its '[': does it hold c? *pp is moved
 * past the closing ']'. -1: malformed (no ']', a bad class), which fails the
 * whole match. A ']' first in the set is a member; "a-z" is a range.
 */
static int bracket(const unsigned char **pp, unsigned char c)
{
	const unsigned char *p = *pp;
	unsigned char pc, prev = 0;
	bool negated = false, matched = false;

	if (*p == '!' || *p == '^') {
		negated = true;
		p++;
	}
	pc = *p;
	do {
		if (!pc)
			return -1;
		if (pc == '\\') {
			if (!(pc = *++p))
				return -1;
			matched |= c == pc;
		} else if (pc == '-' && prev && p[1] && p[1] != ']') {
			unsigned char hi = *++p;

			if (hi == '\\' && !(hi = *++p))
				return -1;
			matched |= c >= prev && c <= hi;
			pc = 0; /* a range never starts where one ended */
		} else if (pc == '[' && p[1] == ':') {
			const unsigned char *s = p + 2, *e = s;
			int in;

			while (*e && *e != ']')
				e++;
			if (!*e)
				return -1;
			if (e == s || e[-1] != ':') {
				matched |= c == '['; /* not a class: a plain '[' */
			} else {
				if ((in = char_class(s, (size_t)(e - s - 1), c)) < 0)
					return -1;
				matched |= in != 0;
				p = e;
				pc = 0;
			}
		} else {
			matched |= c == pc;
		}
		prev = pc;
		pc = *++p;
	} while (pc != ']');
	*pp = p + 1;
	return matched != negated;
}

static int dowild(const unsigned char *pat, const unsigned char *p, const unsigned char *t,
		  bool pathname);

/*
 * p at a run of '*'. A single star (or any run not a whole component, in a
 * path) stops at '/'; "**" as a component crosses it. The abort codes keep
 * the backtracking polynomial: a rest that ran out of text cannot match at a
 * later start either, and a single star cannot reach past a slash.
 */
static int star(const unsigned char *pat, const unsigned char *p, const unsigned char *t,
		bool pathname)
{
	const unsigned char *first = p;
	bool slash = !pathname;
	int r;

	while (p[1] == '*')
		p++;
	if (pathname && p > first && (first == pat || first[-1] == '/') &&
	    (!p[1] || p[1] == '/' || (p[1] == '\\' && p[2] == '/'))) {
		if (p[1] == '/' && dowild(pat, p + 2, t, pathname) == WM_MATCH)
			return WM_MATCH; /* "**" + "/" standing for no directory at all */
		slash = true;
	}
	p++;
	if (!*p)
		return !slash && strchr((const char *)t, '/') ? WM_ABORT_TO_STARSTAR : WM_MATCH;
	if (!slash && *p == '/') {
		const char *s = strchr((const char *)t, '/');

		return s ? dowild(pat, p + 1, (const unsigned char *)s + 1, pathname)
			 : WM_ABORT_ALL;
	}
	for (; *t; t++) {
		r = dowild(pat, p, t, pathname);
		if (r != WM_NOMATCH) {
			if (!slash || r != WM_ABORT_TO_STARSTAR)
				return r;
		} else if (!slash && *t == '/') {
			return WM_ABORT_TO_STARSTAR;
		}
	}
	return WM_ABORT_ALL;
}

static int dowild(const unsigned char *pat, const unsigned char *p, const unsigned char *t,
		  bool pathname)
{
	int r;

	for (; *p; p++, t++) {
		if (!*t && *p != '*')
			return WM_ABORT_ALL;
		switch (*p) {
		case '\\':
			if (!*++p || *t != *p)
				return WM_NOMATCH;
			break;
		case '?':
			if (pathname && *t == '/')
				return WM_NOMATCH;
			break;
		case '*':
			return star(pat, p, t, pathname);
		case '[':
			p++;
			if ((r = bracket(&p, *t)) < 0)
				return WM_ABORT_ALL;
			if (!r || (pathname && *t == '/'))
				return WM_NOMATCH;
			p--; /* the loop steps past the ']' */
			break;
		default:
			if (*t != *p)
				return WM_NOMATCH;
		}
	}
	return *t ? WM_NOMATCH : WM_MATCH;
}

bool at_wildmatch(const char *pattern, const char *text, bool pathname)
{
	const unsigned char *p = (const unsigned char *)pattern;

	return dowild(p, p, (const unsigned char *)text, pathname) == WM_MATCH;
}

/* ---- pattern lists -------------------------------------------------------- */

#define PAT_NEGATIVE 1u
#define PAT_MUSTBEDIR 2u
#define PAT_NODIR 4u /* no slash: matches a base name */

/*
 * A longer line cannot usefully match a path, and a pattern's stars bound the
 * depth of the matcher's recursion: such lines are skipped.
 */
#define MAX_PATTERN 4096

struct pattern {
	char *text;
	unsigned flags;
};

struct list {
	char *base; /* "" or "a/b/" */
	struct pattern *v;
	size_t n, cap;
};

struct at_ignore {
	struct list *dirs; /* one per .gitignore, in the order added */
	size_t ndirs, capdirs;
	size_t *slots; /* open addressing on base: index into dirs + 1, 0 empty */
	size_t nslots;
	struct list *globals; /* the last added is the strongest */
	size_t nglobals, capglobals;
};

struct at_ignore *at_ignore_new(void)
{
	return calloc(1, sizeof(struct at_ignore));
}

static void list_release(struct list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i].text);
	free(l->v);
	free(l->base);
}

void at_ignore_free(struct at_ignore *ig)
{
	size_t i;

	if (!ig)
		return;
	for (i = 0; i < ig->ndirs; i++)
		list_release(&ig->dirs[i]);
	for (i = 0; i < ig->nglobals; i++)
		list_release(&ig->globals[i]);
	free(ig->dirs);
	free(ig->globals);
	free(ig->slots);
	free(ig);
}

/* git's: drop trailing spaces unless the last one is escaped. */
static size_t trim_trailing_spaces(const char *s, size_t len)
{
	size_t i, end = len;
	bool in_spaces = false;

	for (i = 0; i < len; i++) {
		if (s[i] == ' ') {
			if (!in_spaces)
				end = i;
			in_spaces = true;
			continue;
		}
		if (s[i] == '\\' && ++i >= len)
			return len;
		in_spaces = false;
		end = len;
	}
	return in_spaces ? end : len;
}

static int add_pattern(struct list *l, const char *s, size_t len)
{
	struct pattern p = {NULL, 0};
	size_t i;

	if (len && s[0] == '!') {
		p.flags |= PAT_NEGATIVE;
		s++;
		len--;
	}
	if (len && s[len - 1] == '/') {
		p.flags |= PAT_MUSTBEDIR;
		len--;
	}
	for (i = 0; i < len && s[i] != '/'; i++)
		;
	if (i == len)
		p.flags |= PAT_NODIR;
	else if (s[0] == '/') { /* anchored: the base is implied */
		s++;
		len--;
	}
	if (!(p.text = strndup(s, len)))
		return -1;
	if (AT_ARRAY_GROW(l->v, l->cap, l->n + 1) < 0) {
		free(p.text);
		return -1;
	}
	l->v[l->n++] = p;
	return 0;
}

/* Every line of text as git's add_patterns_from_buffer() reads it. */
static int parse(struct list *l, const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		p += 3;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);

		if (n > 0 && p[n - 1] == '\r')
			n--;
		if (n > 0 && p[0] != '#' && n <= MAX_PATTERN &&
		    add_pattern(l, p, trim_trailing_spaces(p, n)) < 0)
			return -1;
		p += (size_t)((nl ? nl : end) - p) + 1;
	}
	return 0;
}

#define HASH_START 14695981039346656037ull

/* FNV-1a over n more bytes of a string, from the state h: a prefix's state goes on. */
static uint64_t hash_more(uint64_t h, const char *s, size_t n)
{
	while (n--)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

/* The slot of dir, whose hash_more state is h: its entry, or the empty one where it would go. */
static size_t *slot_hashed(const struct at_ignore *ig, const char *dir, uint64_t h)
{
	size_t i = (size_t)(h ^ (h >> 29)) & (ig->nslots - 1);

	while (ig->slots[i] && strcmp(ig->dirs[ig->slots[i] - 1].base, dir) != 0)
		i = (i + 1) & (ig->nslots - 1);
	return &ig->slots[i];
}

static size_t *slot_of(const struct at_ignore *ig, const char *dir)
{
	return slot_hashed(ig, dir, hash_more(HASH_START, dir, strlen(dir)));
}

static int grow_slots(struct at_ignore *ig)
{
	size_t n = ig->nslots ? ig->nslots * 2 : 64, i;
	size_t *old = ig->slots, oldn = ig->nslots;

	if (!(ig->slots = calloc(n, sizeof(*ig->slots)))) {
		ig->slots = old;
		return -1;
	}
	ig->nslots = n;
	for (i = 0; i < oldn; i++)
		if (old[i])
			*slot_of(ig, ig->dirs[old[i] - 1].base) = old[i];
	free(old);
	return 0;
}

bool at_ignore_has_dir(const struct at_ignore *ig, const char *dir)
{
	return ig->nslots && *slot_of(ig, dir) != 0;
}

int at_ignore_add_dir(struct at_ignore *ig, const char *dir, const char *text, size_t len)
{
	struct list l = {NULL, NULL, 0, 0};

	if (at_ignore_has_dir(ig, dir))
		return 0;
	if ((ig->ndirs + 1) * 2 > ig->nslots && grow_slots(ig) < 0)
		return -1;
	if (AT_ARRAY_GROW(ig->dirs, ig->capdirs, ig->ndirs + 1) < 0)
		return -1;
	if (!(l.base = strdup(dir)) || parse(&l, text, len) < 0) {
		list_release(&l);
		return -1;
	}
	ig->dirs[ig->ndirs++] = l;
	*slot_of(ig, dir) = ig->ndirs;
	return 0;
}

int at_ignore_add_global(struct at_ignore *ig, const char *text, size_t len)
{
	struct list l = {NULL, NULL, 0, 0};

	if (AT_ARRAY_GROW(ig->globals, ig->capglobals, ig->nglobals + 1) < 0)
		return -1;
	if (!(l.base = strdup("")) || parse(&l, text, len) < 0) {
		list_release(&l);
		return -1;
	}
	ig->globals[ig->nglobals++] = l;
	return 0;
}

/*
 * The last pattern of l matching path (base name at base): 1 ignored,
 * 0 re-included, -1 no pattern matches.
 */
static int list_match(const struct list *l, const char *path, const char *base, bool is_dir)
{
	size_t i, blen = strlen(l->base);

	for (i = l->n; i-- > 0;) {
		const struct pattern *p = &l->v[i];
		bool hit;

		if ((p->flags & PAT_MUSTBEDIR) && !is_dir)
			continue;
		if (p->flags & PAT_NODIR)
			hit = at_wildmatch(p->text, base, false);
		else
			hit = strncmp(path, l->base, blen) == 0 &&
			      at_wildmatch(p->text, path + blen, true);
		if (hit)
			return (p->flags & PAT_NEGATIVE) ? 0 : 1;
	}
	return -1;
}

/* The list of the directory path[0..cut) ("" or "a/b/"), whose hash_more state is h, or NULL. */
static const struct list *dir_list(const struct at_ignore *ig, char *path, char *cut, uint64_t h)
{
	char saved = *cut;
	size_t idx;

	if (!ig->nslots)
		return NULL;
	*cut = '\0';
	idx = *slot_hashed(ig, path, h);
	*cut = saved;
	return idx ? &ig->dirs[idx - 1] : NULL;
}

/*
 * The lists of the directories above path (at most one per '/' of it, and
 * the root's), the root's first: looked up once per question, each
 * prefix's hash carried on from the one before, so that a question costs
 * time linear in the path. (Looked up again for each directory above, and
 * each prefix hashed from its start, a path 2000 directories deep took
 * three seconds: fuzz_ignore.)
 */
static size_t ancestor_lists(const struct at_ignore *ig, char *path,
			     const struct list *out[MAX_PATTERN + 1])
{
	const struct list *l;
	uint64_t h = HASH_START;
	size_t n = 0;
	char *p, *done = path;

	if ((l = dir_list(ig, path, path, h)))
		out[n++] = l;
	for (p = strchr(path, '/'); p; p = strchr(p + 1, '/')) {
		h = hash_more(h, done, (size_t)(p + 1 - done));
		done = p + 1;
		if ((l = dir_list(ig, path, p + 1, h)))
			out[n++] = l;
	}
	return n;
}

/*
 * Does path itself match: lists[0..n), the lists of the directories above
 * it (the root's first), deepest first, then the global ones?
 */
static bool path_matches(const struct at_ignore *ig, const struct list *const *lists, size_t n,
			 const char *path, bool is_dir)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	size_t i;
	int r;

	for (i = n; i-- > 0;)
		if ((r = list_match(lists[i], path, base, is_dir)) >= 0)
			return r == 1;
	for (i = ig->nglobals; i-- > 0;)
		if ((r = list_match(&ig->globals[i], path, base, is_dir)) >= 0)
			return r == 1;
	return false;
}

bool at_ignore_match(const struct at_ignore *ig, const char *path, bool is_dir)
{
	const struct list *lists[MAX_PATTERN + 1];
	char buf[MAX_PATTERN + 1];
	size_t len = strlen(path);

	if (len >= sizeof(buf))
		return false;
	memcpy(buf, path, len + 1);
	return path_matches(ig, lists, ancestor_lists(ig, buf, lists), buf, is_dir);
}

bool at_ignore_excluded(const struct at_ignore *ig, const char *path, bool is_dir)
{
	const struct list *lists[MAX_PATTERN + 1];
	char buf[MAX_PATTERN + 1], *p;
	size_t len = strlen(path), n, m = 0;

	if (len >= sizeof(buf))
		return false;
	memcpy(buf, path, len + 1);
	n = ancestor_lists(ig, buf, lists);
	/*
	 * A directory above it first, shallowest first: an excluded one
	 * excludes all below. Those above buf[0..p) are the lists whose base
	 * (with its '/') fits in it.
	 */
	for (p = strchr(buf, '/'); p; p = strchr(p + 1, '/')) {
		while (m < n && strlen(lists[m]->base) <= (size_t)(p - buf))
			m++;
		*p = '\0';
		if (path_matches(ig, lists, m, buf, true)) {
			*p = '/';
			return true;
		}
		*p = '/';
	}
	return path_matches(ig, lists, n, buf, is_dir);
}
