/*
 * fuzz_glob.c - the policy's path patterns (core/glob.c) and the symlink
 * escape rule (at_policy_link_escapes), on the task's paths and targets.
 *
 * The input is a pattern, a NUL, a path, a NUL, a link target. The pattern
 * is the repository's (protected_paths), the path and target the task's:
 * a match that is wrong lets a change to a protected path through, and a
 * match that takes exponential time stalls the gate (libFuzzer's -timeout
 * turns that into a crash).
 *
 * For valid UTF-8 the three matchers are compared with a reference built
 * differently: dynamic programming over components, and over the characters
 * of each ('?' is one character, '*' any run of them). (Not fnmatch(3): in
 * glibc 2.36's C.UTF-8 both "?" and "??" match "\xc3\xa9".) A trailing '**'
 * holds one or more components (everything below, as in .gitignore), any
 * other '**' zero or more.
 */
#include "tests/fuzz/fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "core/glob.h"
#include "core/policy.h"

#define MAX_COMPONENTS 64

struct comps {
	const char *v[MAX_COMPONENTS];
	size_t n;
};

/* Split s (modified) at '/'; false when it has too many components. */
static bool split(char *s, struct comps *c)
{
	char *slash;

	c->n = 0;
	for (;;) {
		if (c->n == MAX_COMPONENTS)
			return false;
		c->v[c->n++] = s;
		if (!(slash = strchr(s, '/')))
			return true;
		*slash = '\0';
		s = slash + 1;
	}
}

/* Well-formed UTF-8: shortest forms only, no surrogates, nothing above U+10FFFF. */
static bool utf8(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	while (*s) {
		unsigned c = *s, n = c < 0x80 ? 0 : c >= 0xc2 && c < 0xe0 ? 1 : c >= 0xe0 && c < 0xf0 ? 2
			 : c >= 0xf0 && c < 0xf5 ? 3 : 4;
		unsigned i, cp = n ? c & (0x3f >> n) : c;

		if (n == 4)
			return false;
		for (i = 1; i <= n; i++) {
			if ((s[i] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i] & 0x3f);
		}
		if ((n == 2 && (cp < 0x800 || (cp >= 0xd800 && cp < 0xe000))) ||
		    (n == 3 && (cp < 0x10000 || cp > 0x10ffff)))
			return false;
		s += n + 1;
	}
	return true;
}

/* A path as git records it: no empty component, no leading or trailing '/'. */
static bool git_path(const struct comps *s)
{
	size_t j;

	for (j = 0; j < s->n; j++)
		if (!s->v[j][0])
			return false;
	return true;
}

static bool globstar(const char *c)
{
	return strcmp(c, "**") == 0;
}

/* Where each character of a valid UTF-8 string begins, and its end: n + 1 pointers. */
static const char **chars(const char *s, size_t *n)
{
	const char **v = malloc((strlen(s) + 1) * sizeof(*v));

	*n = 0;
	while (v && *s) {
		v[(*n)++] = s++;
		while ((*s & 0xc0) == 0x80)
			s++;
	}
	if (v)
		v[*n] = s;
	return v;
}

static bool same_char(const char *const *a, const char *const *b)
{
	return a[1] - a[0] == b[1] - b[0] && memcmp(a[0], b[0], (size_t)(a[1] - a[0])) == 0;
}

/*
 * One pattern component against one name, character by character, from the
 * end: row[j] says whether pattern characters i.. match name characters j..
 */
static bool comp(const char *pat, const char *name)
{
	size_t np, nn, i, j;
	const char **pv = chars(pat, &np), **nv = chars(name, &nn);
	bool *next = calloc(nn + 1, 1), *row = calloc(nn + 1, 1), *t, match;

	AT_FUZZ_CHECK(pv && nv && next && row);
	next[nn] = true;   /* the empty pattern matches the empty rest only */
	for (i = np; i-- > 0;) {
		for (j = nn + 1; j-- > 0;) {
			if (*pv[i] == '*')
				row[j] = next[j] || (j < nn && row[j + 1]);
			else
				row[j] = j < nn && (*pv[i] == '?' || same_char(pv + i, nv + j)) &&
					 next[j + 1];
		}
		t = next;
		next = row;
		row = t;
	}
	match = next[0];
	free(pv);
	free(nv);
	free(next);
	free(row);
	return match;
}

/* Which pattern component matches which path component, computed once. */
static bool cm[MAX_COMPONENTS][MAX_COMPONENTS];

/*
 * Over the first n components of s: m[i][j], pattern components i.. match
 * path components j..n exactly; b[i][j], they could match a path below.
 */
static void reference(const struct comps *p, size_t n, bool *match, bool *below)
{
	static bool m[MAX_COMPONENTS + 1][MAX_COMPONENTS + 1], b[MAX_COMPONENTS + 1][MAX_COMPONENTS + 1];
	size_t i, j;

	for (i = p->n + 1; i-- > 0;) {
		for (j = n + 1; j-- > 0;) {
			if (i == p->n) {
				m[i][j] = j == n;
				b[i][j] = false;
			} else if (globstar(p->v[i])) {
				m[i][j] = i + 1 == p->n ? j < n : m[i + 1][j] || (j < n && m[i][j + 1]);
				b[i][j] = true;
			} else {
				m[i][j] = j < n && cm[i][j] && m[i + 1][j + 1];
				b[i][j] = j == n || (cm[i][j] && b[i + 1][j + 1]);
			}
		}
	}
	*match = m[0][0];
	*below = b[0][0];
}

/* The pattern matches path or one of its leading directories. */
static bool reference_under(const struct comps *p, const struct comps *s)
{
	bool match, below;
	size_t n;

	for (n = 1; n <= s->n; n++) {
		reference(p, n, &match, &below);
		if (match)
			return true;
	}
	return false;
}

static void check_against_reference(const char *pattern, const char *path, bool match,
				    bool under, bool below)
{
	char *pc = strdup(pattern), *sc = strdup(path);
	struct comps p, s;
	bool want_match, want_below;
	size_t i, j;

	AT_FUZZ_CHECK(pc && sc);
	if (utf8(pattern) && utf8(path) && split(pc, &p) && split(sc, &s) && git_path(&s)) {
		for (i = 0; i < p.n; i++)
			for (j = 0; j < s.n; j++)
				cm[i][j] = !globstar(p.v[i]) && comp(p.v[i], s.v[j]);
		reference(&p, s.n, &want_match, &want_below);
		AT_FUZZ_CHECK(match == want_match);
		AT_FUZZ_CHECK(below == want_below);
		AT_FUZZ_CHECK(under == reference_under(&p, &s));
	}
	free(pc);
	free(sc);
}

static void check_link(const char *path, const char *target)
{
	bool escapes = at_policy_link_escapes(path, target);
	bool dotdot = strcmp(target, "..") == 0 || strncmp(target, "../", 3) == 0 ||
		      strstr(target, "/../") ||
		      (strlen(target) >= 3 && strcmp(target + strlen(target) - 3, "/..") == 0);

	if (target[0] == '/')
		AT_FUZZ_CHECK(escapes);
	else if (!dotdot)
		AT_FUZZ_CHECK(!escapes);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct at_fuzz_input in = { data, size };
	struct at_fuzz_input a = at_fuzz_take_until(&in, '\0'), b = at_fuzz_take_until(&in, '\0');
	char *pattern = at_fuzz_strndup(a.p, a.n), *path = at_fuzz_strndup(b.p, b.n);
	char *target = at_fuzz_strndup(in.p, in.n);
	char norm[AT_GLOB_MAX + 1], again[AT_GLOB_MAX + 1];
	const char *why;

	if (!pattern || !path || !target)
		goto out;
	check_link(path, target);
	if (at_glob_normalize(pattern, norm, sizeof(norm), &why) < 0) {
		AT_FUZZ_CHECK(why && *why);
		goto out;
	}
	AT_FUZZ_CHECK(at_glob_normalize(norm, again, sizeof(again), &why) == 0);
	AT_FUZZ_CHECK(strcmp(norm, again) == 0);
	{
		bool match = at_glob_match(norm, path), under = at_glob_match_under(norm, path);
		bool below = at_glob_match_below(norm, path);

		AT_FUZZ_CHECK(!match || under);
		if (*path)
			check_against_reference(norm, path, match, under, below);
	}
out:
	free(pattern);
	free(path);
	free(target);
	return 0;
}
