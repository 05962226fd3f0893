#include "core/glob.h"

#include <stdint.h>
#include <string.h>

static bool is_cont(unsigned char c)
{
	return (c & 0xC0) == 0x80;
}

/* Length of the UTF-8 sequence at s (at most n bytes); a stray byte counts as one. */
static size_t char_len(const char *s, size_t n)
{
	size_t len = 1;

	while (len < n && is_cont((unsigned char)s[len]))
		len++;
	return len;
}

/*
 * One component against one pattern component: '*' and '?' with the usual
 * single backtracking point (the last '*'), which is enough because '*'
 * cannot cross a component boundary here.
 */
static bool comp_match(const char *p, size_t plen, const char *s, size_t slen)
{
	size_t pi = 0, si = 0, star_p = SIZE_MAX, star_s = 0;

	while (si < slen) {
		if (pi < plen && p[pi] == '*') {
			star_p = pi++;
			star_s = si;
		} else if (pi < plen && p[pi] == '?') {
			pi++;
			si += char_len(s + si, slen - si);
		} else if (pi < plen && p[pi] == s[si]) {
			pi++;
			si++;
		} else if (star_p != SIZE_MAX) {
			pi = star_p + 1;
			star_s += char_len(s + star_s, slen - star_s);
			si = star_s;
		} else {
			return false;
		}
	}
	while (pi < plen && p[pi] == '*')
		pi++;
	return pi == plen;
}

static const char *comp_end(const char *s)
{
	return strchrnul(s, '/');
}

/* The end of the path component at s, the path ending at send. */
static const char *path_comp_end(const char *s, const char *send)
{
	const char *slash = memchr(s, '/', (size_t)(send - s));

	return slash ? slash : send;
}

static bool is_globstar(const char *p, const char *end)
{
	return end - p == 2 && p[0] == '*' && p[1] == '*';
}

/* The start of the component after the one ending at e (send when e is the end). */
static const char *next_comp(const char *e, const char *send)
{
	return e == send ? send : e + 1;
}

/*
 * p (NUL-terminated) against the path s..send, each at the start of a
 * component, component by component. '**' holds any run of components:
 * zero or more, but at the end of the pattern one or more (everything
 * below). under: the pattern may also stop at a directory of the path.
 *
 * As '*' in comp_match, only the last '**' met is ever backtracked to: a
 * later '**' can take whatever an earlier one could have. So a match costs
 * at most one comparison per pair of components, where trying every split
 * for every '**' took exponential time: "**" and "a" twelve times over
 * against a path 40 deep did not finish in ten minutes (fuzz_glob).
 */
static bool match_from(const char *p, const char *s, const char *send, bool under)
{
	const char *star_p = NULL, *star_s = NULL, *pe, *se;

	for (;;) {
		if (*p && is_globstar(p, pe = comp_end(p))) {
			if (!*pe)
				return s != send;
			p = star_p = pe + 1;
			star_s = s;
			continue;
		}
		if (s == send)
			return !*p;
		if (!*p && under)
			return true;
		if (*p) {
			pe = comp_end(p);
			se = path_comp_end(s, send);
			if (comp_match(p, (size_t)(pe - p), s, (size_t)(se - s))) {
				p = *pe ? pe + 1 : pe;
				s = next_comp(se, send);
				continue;
			}
		}
		/* No match here: the last '**' takes one more component, if any. */
		if (!star_p || star_s == send)
			return false;
		star_s = next_comp(path_comp_end(star_s, send), send);
		p = star_p;
		s = star_s;
	}
}

bool at_glob_match(const char *pattern, const char *path)
{
	if (!*pattern || !*path)
		return false;
	return match_from(pattern, path, path + strlen(path), false);
}

bool at_glob_match_under(const char *pattern, const char *path)
{
	if (!*pattern || !*path)
		return false;
	return match_from(pattern, path, path + strlen(path), true);
}

bool at_glob_match_below(const char *pattern, const char *path)
{
	const char *p = pattern, *s = path, *send = path + strlen(path);

	if (!*pattern || !*path)
		return false;
	for (;;) {
		const char *pe = comp_end(p), *se;

		/* '**' takes the rest of path, and whatever follows goes below it. */
		if (is_globstar(p, pe))
			return true;
		se = path_comp_end(s, send);
		if (!comp_match(p, (size_t)(pe - p), s, (size_t)(se - s)))
			return false;
		if (!*pe)
			return false;
		if (se == send)
			return true;
		p = pe + 1;
		s = se + 1;
	}
}

static const char *check_component(const char *c, const char *end)
{
	const char *q;

	if (c == end)
		return "empty path component ('//')";
	if ((end - c == 1 && c[0] == '.') || (end - c == 2 && c[0] == '.' && c[1] == '.'))
		return "'.' and '..' components are not allowed";
	for (q = c; q < end; q++) {
		if (*q == '[' || *q == '{' || *q == '\\')
			return "only '*', '?' and '**' are special: '[', '{' and '\\' are not supported";
		if (*q == '*' && q + 1 < end && q[1] == '*' && !is_globstar(c, end))
			return "'**' must be a whole path component";
	}
	return NULL;
}

int at_glob_normalize(const char *pattern, char *buf, size_t size, const char **why)
{
	const char *c, *end;
	size_t len;

	if (*pattern == '/')
		pattern++;
	len = strlen(pattern);
	if (len > 0 && pattern[len - 1] == '/')
		len--;
	*why = NULL;
	if (len == 0)
		*why = "empty pattern";
	else if (len > AT_GLOB_MAX || len >= size)
		*why = "pattern too long";
	else if (pattern[0] == '!')
		*why = "negation ('!') is not supported";
	if (*why)
		return -1;
	memcpy(buf, pattern, len);
	buf[len] = '\0';
	for (c = buf; *why == NULL; c = end + 1) {
		end = comp_end(c);
		*why = check_component(c, end);
		if (!*end)
			break;
	}
	return *why ? -1 : 0;
}
