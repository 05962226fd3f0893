/*
 * fuzz_ignore.c - git's ignore rules (core/ignore.c) on the task's
 * .gitignore files: bytes the task writes, read by the host's scan.
 *
 * The input is one byte of flags (bit 0: the path is a directory), the path
 * asked about, a NUL, then .gitignore files, each a directory and a NUL and
 * the file's bytes and a NUL: the directory "" is the root's, "a/b" (a '/'
 * is added) a subdirectory's, "\x01" a global file (info/exclude). A wrong
 * answer hides a file from the diff, the gate and the commit, or shows one
 * git ignores; a pattern whose matching takes exponential time stalls every
 * scan (libFuzzer's -timeout turns that into a crash).
 *
 * Checked, besides no crash, leak or undefined behaviour:
 *   - every directory added is known to at_ignore_has_dir;
 *   - a path that matches is excluded, and a path below an excluded
 *     directory is excluded (git's rule: no negation re-includes it);
 *   - the same question gets the same answer;
 *   - at_wildmatch, each line of each file against the path, against
 *     glibc's fnmatch(3) in the C locale, where the two dialects agree:
 *     no '[' or '\' (bracket and escape corner cases differ), and with
 *     FNM_PATHNAME no "**" either (git's alone);
 *   - a root .gitignore of one literal line (no special character), against
 *     the rule written out: a line without '/' names a base name at any
 *     depth, one with a '/' the whole path from the root, a trailing '/'
 *     directories only.
 */
#include "tests/fuzz/fuzz.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "core/ignore.h"

#define MAX_FILES 16
#define GLOBAL_DIR "\x01"
#define ORACLE_STARS 3
#define ORACLE_MAX 200

/* The path the scan could ask about: relative, no empty component, no trailing '/'. */
static bool well_formed(const char *path)
{
	size_t len = strlen(path);

	return len > 0 && path[0] != '/' && path[len - 1] != '/' && !strstr(path, "//");
}

/* A line with no character special to .gitignore or to wildmatch. */
static bool literal_line(const char *s)
{
	size_t len = strlen(s);

	if (len == 0 || s[0] == '#' || s[0] == '!' || strstr(s, "//"))
		return false;
	for (; *s; s++)
		if (strchr("*?[\\ \r\n\t", *s) || (unsigned char)*s >= 0x80)
			return false;
	return true;
}

/* Does the literal line (as literal_line accepts it) name path, one of the kind is_dir? */
static bool literal_names(const char *line, const char *path, bool is_dir)
{
	size_t len = strlen(line);
	bool dir_only = line[len - 1] == '/';
	const char *slash, *base;
	size_t n = dir_only ? len - 1 : len;

	if (dir_only && !is_dir)
		return false;
	if (n == 0)
		return false;
	if (!memchr(line, '/', n)) {
		base = (slash = strrchr(path, '/')) ? slash + 1 : path;
		return strlen(base) == n && memcmp(base, line, n) == 0;
	}
	if (line[0] == '/') {
		line++;
		n--;
	}
	return strlen(path) == n && memcmp(path, line, n) == 0;
}

static void check_literal(const char *line, const char *path, bool is_dir, bool match,
			  bool excluded)
{
	char *copy = strdup(path), *p;
	bool want = literal_names(line, path, is_dir);

	AT_FUZZ_CHECK(copy);
	AT_FUZZ_CHECK(match == want);
	for (p = strchr(copy, '/'); p && !want; p = strchr(p + 1, '/')) {
		*p = '\0';
		want = literal_names(line, copy, true);
		*p = '/';
	}
	AT_FUZZ_CHECK(excluded == want);
	free(copy);
}

/*
 * glibc's fnmatch backtracks over every '*' (polynomial of the stars'
 * degree): the comparison is made on short inputs with a few stars, where
 * it is quick; at_wildmatch alone meets the long ones.
 */
static void check_wildmatch(const char *pattern, const char *text)
{
	size_t stars = 0;
	const char *s;

	for (s = pattern; *s; s++)
		stars += *s == '*';
	if (strchr(pattern, '[') || strchr(pattern, '\\') || stars > ORACLE_STARS ||
	    strlen(pattern) > ORACLE_MAX || strlen(text) > ORACLE_MAX)
		return;
	AT_FUZZ_CHECK(at_wildmatch(pattern, text, false) == (fnmatch(pattern, text, 0) == 0));
	if (!strstr(pattern, "**"))
		AT_FUZZ_CHECK(at_wildmatch(pattern, text, true) ==
			      (fnmatch(pattern, text, FNM_PATHNAME) == 0));
}

/* Each line of a file's text (len bytes) as a wildmatch pattern against path. */
static void check_lines(const uint8_t *text, size_t len, const char *path)
{
	struct at_fuzz_input in = { text, len };

	while (in.n > 0) {
		struct at_fuzz_input l = at_fuzz_take_until(&in, '\n');
		char *line = at_fuzz_strndup(l.p, l.n);

		if (line)
			check_wildmatch(line, path);
		free(line);
	}
}

/*
 * The answers for path, and for each directory above it: below an excluded
 * one, excluded. (That is a question per directory: for short paths only, so
 * that the harness stays linear where at_ignore_excluded is.)
 */
static void check_paths(const struct at_ignore *ig, const char *path, bool is_dir)
{
	char *copy = strdup(path), *p;
	bool match = at_ignore_match(ig, path, is_dir), excluded = at_ignore_excluded(ig, path, is_dir);

	AT_FUZZ_CHECK(copy);
	AT_FUZZ_CHECK(!match || excluded);
	AT_FUZZ_CHECK(match == at_ignore_match(ig, path, is_dir));
	AT_FUZZ_CHECK(excluded == at_ignore_excluded(ig, path, is_dir));
	for (p = strlen(copy) <= ORACLE_MAX ? strchr(copy, '/') : NULL; p; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (at_ignore_excluded(ig, copy, true))
			AT_FUZZ_CHECK(excluded);
		*p = '/';
	}
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct at_fuzz_input in = { data, size }, p;
	bool is_dir = at_fuzz_take_byte(&in) & 1;
	struct at_ignore *ig = at_ignore_new();
	char *path = NULL, *dirs[MAX_FILES] = { NULL }, *first = NULL;
	size_t n = 0, i, globals = 0;

	p = at_fuzz_take_until(&in, '\0');
	if (!ig || !(path = at_fuzz_strndup(p.p, p.n)))
		goto out;
	while (in.n > 0 && n < MAX_FILES) {
		struct at_fuzz_input d = at_fuzz_take_until(&in, '\0'), t = at_fuzz_take_until(&in, '\0');
		char *dir = malloc(d.n + 2);

		if (!dir)
			goto out;
		memcpy(dir, d.p, d.n);
		dir[d.n] = '\0';
		if (d.n && strcmp(dir, GLOBAL_DIR) != 0 && dir[d.n - 1] != '/')
			strcat(dir, "/");
		dirs[n++] = dir;
		check_lines(t.p, t.n, path);
		if (n == 1 && !(first = at_fuzz_strndup(t.p, t.n)))
			goto out;
		if (strcmp(dir, GLOBAL_DIR) == 0) {
			globals++;
			AT_FUZZ_CHECK(at_ignore_add_global(ig, (const char *)t.p, t.n) == 0);
		} else {
			AT_FUZZ_CHECK(at_ignore_add_dir(ig, dir, (const char *)t.p, t.n) == 0);
		}
	}
	for (i = 0; i < n; i++)
		if (strcmp(dirs[i], GLOBAL_DIR) != 0)
			AT_FUZZ_CHECK(at_ignore_has_dir(ig, dirs[i]));
	check_paths(ig, path, is_dir);
	if (first) {
		char *nl = strchr(first, '\n');
		bool one_line = !nl || !nl[1];

		if (nl)
			*nl = '\0';
		if (n == 1 && globals == 0 && dirs[0][0] == '\0' && one_line && literal_line(first) &&
		    well_formed(path))
			check_literal(first, path, is_dir, at_ignore_match(ig, path, is_dir),
				      at_ignore_excluded(ig, path, is_dir));
	}
out:
	for (i = 0; i < n; i++)
		free(dirs[i]);
	free(first);
	free(path);
	at_ignore_free(ig);
	return 0;
}
