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
 * differently: dynamic programming over components, each compared with
 * fnmatch(3) in a UTF-8 locale ('?' is one character). A trailing '**'
 * holds one or more components (everything below, as in .gitignore), any
 * other '**' zero or more.
 */
#include "tests/fuzz/fuzz.h"

#include <fnmatch.h>
#include <locale.h>
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

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (!setlocale(LC_CTYPE, "C.UTF-8"))
		abort();
	return 0;
}

/* Well-formed UTF-8, shortest forms only, no surrogates: what fnmatch reads as characters. */
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

static bool comp(const char *pat, const char *name)
{
	return fnmatch(pat, name, 0) == 0;
}

/* match[i][j]: pattern components i.. match path components j.. exactly. */
static void reference(const struct comps *p, const struct comps *s, bool *match, bool *below)
{
	static bool m[MAX_COMPONENTS + 1][MAX_COMPONENTS + 1], b[MAX_COMPONENTS + 1][MAX_COMPONENTS + 1];
	size_t i, j;

	for (i = p->n + 1; i-- > 0;) {
		for (j = s->n + 1; j-- > 0;) {
			if (i == p->n) {
				m[i][j] = j == s->n;
				b[i][j] = false;
			} else if (globstar(p->v[i])) {
				m[i][j] = i + 1 == p->n ? j < s->n : m[i + 1][j] || (j < s->n && m[i][j + 1]);
				b[i][j] = true;
			} else {
				m[i][j] = j < s->n && comp(p->v[i], s->v[j]) && m[i + 1][j + 1];
				b[i][j] = j == s->n || (comp(p->v[i], s->v[j]) && b[i + 1][j + 1]);
			}
		}
	}
	*match = m[0][0];
	*below = b[0][0];
}

/* The pattern matches path or one of its leading directories. */
static bool reference_under(const struct comps *p, const struct comps *s)
{
	struct comps prefix = *s;
	bool match, below;

	for (prefix.n = 1; prefix.n <= s->n; prefix.n++) {
		reference(p, &prefix, &match, &below);
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

	AT_FUZZ_CHECK(pc && sc);
	if (utf8(pattern) && utf8(path) && split(pc, &p) && split(sc, &s) && git_path(&s)) {
		reference(&p, &s, &want_match, &want_below);
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
