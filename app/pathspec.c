/*
 * pathspec.c - a pathspec as the user typed it, from where they typed it,
 * made relative to the top of the tree (for `diff -- PATH...`).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/internal.h"

/* The part of dir below top ("" at top), or NULL when dir is not inside top. */
static const char *below(const char *dir, const char *top)
{
	size_t n = strlen(top);

	while (n > 1 && top[n - 1] == '/')
		n--;
	if (strncmp(dir, top, n) != 0 || (dir[n] != '/' && dir[n] != '\0'))
		return NULL;
	return dir[n] == '/' ? dir + n + 1 : dir + n;
}

/* prefix/path with "." and ".." resolved, into out; false when it climbs above the top. */
static bool normalize(const char *prefix, const char *path, char *out, size_t size)
{
	char buf[PATH_MAX * 2], *save = NULL, *c;
	size_t len = 0, n;

	if (snprintf(buf, sizeof(buf), "%s%s%s", prefix, prefix[0] ? "/" : "", path) >=
	    (int)sizeof(buf))
		return false;
	out[0] = '\0';
	for (c = strtok_r(buf, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		if (strcmp(c, ".") == 0)
			continue;
		if (strcmp(c, "..") == 0) {
			if (len == 0)
				return false;
			while (len > 0 && out[len - 1] != '/')
				len--;
			len = len > 0 ? len - 1 : 0;
			out[len] = '\0';
			continue;
		}
		n = strlen(c);
		if (len + n + 2 > size)
			return false;
		if (len)
			out[len++] = '/';
		memcpy(out + len, c, n + 1);
		len += n;
	}
	return true;
}

/* One path of the spec from the top into rel ("" for the top itself); false: outside. */
static bool from_top(const char *p, const char *prefix, const char *top, char *rel, size_t size)
{
	if (strncmp(p, ":/", 2) == 0 || strcmp(p, ":") == 0)
		return normalize("", p + (p[1] ? 2 : 1), rel, size);
	if (p[0] == '/')
		return top[0] && below(p, top) && normalize("", below(p, top), rel, size);
	return normalize(prefix ? prefix : "", p, rel, size);
}

int at_app_pathspec(const char *dir, const char *task_top, const char *repo_top,
		    char *const *paths, size_t npaths, struct at_strlist *out,
		    struct at_error *err)
{
	char cwd[PATH_MAX], top[PATH_MAX] = "", rel[PATH_MAX];
	const char *prefix = NULL;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (npaths == 0)
		return 0;
	if (!realpath(dir, cwd))
		cwd[0] = '\0';
	if (task_top && realpath(task_top, top) && (prefix = below(cwd, top)))
		;
	else if (repo_top && realpath(repo_top, top))
		prefix = below(cwd, top);
	for (i = 0; i < npaths; i++) {
		if (!from_top(paths[i], prefix, top, rel, sizeof(rel))) {
			at_strlist_release(out);
			return at_error_set(err, AT_EUSAGE, "pathspec '%s' is outside the repository",
					    paths[i]);
		}
		if (!rel[0]) {   /* the whole tree: no limit at all */
			at_strlist_release(out);
			return 0;
		}
		if (at_strlist_push(out, rel) < 0) {
			at_strlist_release(out);
			return at_error_set(err, AT_ESYS, "out of memory");
		}
	}
	return 0;
}
