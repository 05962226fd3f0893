#include "git/tree_changes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"

struct paths {
	git_repository *repo;
	char **v;
	size_t n, cap, max;
	int rc;                 /* 0, 1: too many, -1: error */
};

static void add(struct paths *p, const char *prefix, const char *name)
{
	size_t len = strlen(prefix) + strlen(name) + 1;
	char *path;

	if (p->rc)
		return;
	if (p->n == p->max) {
		p->rc = 1;
		return;
	}
	if (AT_ARRAY_GROW(p->v, p->cap, p->n + 1) < 0) {
		p->rc = -1;
		return;
	}
	if (!(path = malloc(len))) {
		p->rc = -1;
		return;
	}
	snprintf(path, len, "%s%s", prefix, name);
	p->v[p->n++] = path;
}

static void compare(struct paths *p, const git_tree *a, const git_tree *b, const char *prefix);

/* Every file under the entry (the entry itself when it is not a tree). */
static void add_all(struct paths *p, const git_tree_entry *e, const char *prefix)
{
	const char *name = git_tree_entry_name(e);
	size_t len = strlen(prefix) + strlen(name) + 2;
	git_tree *tree = NULL;
	char *sub;

	if (git_tree_entry_type(e) != GIT_OBJECT_TREE) {
		add(p, prefix, name);
		return;
	}
	if (!(sub = malloc(len))) {
		p->rc = -1;
		return;
	}
	snprintf(sub, len, "%s%s/", prefix, name);
	if (git_tree_lookup(&tree, p->repo, git_tree_entry_id(e)) < 0)
		p->rc = -1;
	else
		compare(p, NULL, tree, sub);
	git_tree_free(tree);
	free(sub);
}

static void both(struct paths *p, const git_tree_entry *x, const git_tree_entry *y,
		 const char *prefix)
{
	const char *name = git_tree_entry_name(x);
	size_t len = strlen(prefix) + strlen(name) + 2;
	git_tree *tx = NULL, *ty = NULL;
	char *sub;

	if (git_oid_equal(git_tree_entry_id(x), git_tree_entry_id(y)) &&
	    git_tree_entry_filemode(x) == git_tree_entry_filemode(y))
		return;
	if (git_tree_entry_type(x) != GIT_OBJECT_TREE || git_tree_entry_type(y) != GIT_OBJECT_TREE) {
		/*
		 * A file changed, or a type change: every path on either side.
		 * A directory that became a file (or the other way) is both the
		 * files under the directory and the file itself; two files at
		 * the same name are one path.
		 */
		add_all(p, x, prefix);
		if (git_tree_entry_type(x) == GIT_OBJECT_TREE || git_tree_entry_type(y) == GIT_OBJECT_TREE)
			add_all(p, y, prefix);
		return;
	}
	if (!(sub = malloc(len))) {
		p->rc = -1;
		return;
	}
	snprintf(sub, len, "%s%s/", prefix, name);
	if (git_tree_lookup(&tx, p->repo, git_tree_entry_id(x)) < 0 ||
	    git_tree_lookup(&ty, p->repo, git_tree_entry_id(y)) < 0)
		p->rc = -1;
	else
		compare(p, tx, ty, sub);
	git_tree_free(tx);
	git_tree_free(ty);
	free(sub);
}

/* Both trees' entries in their (git's) order, side by side; a or b may be NULL. */
static void compare(struct paths *p, const git_tree *a, const git_tree *b, const char *prefix)
{
	size_t i = 0, j = 0, na = a ? git_tree_entrycount(a) : 0, nb = b ? git_tree_entrycount(b) : 0;

	while (!p->rc && (i < na || j < nb)) {
		const git_tree_entry *x = i < na ? git_tree_entry_byindex(a, i) : NULL;
		const git_tree_entry *y = j < nb ? git_tree_entry_byindex(b, j) : NULL;
		int c = !x ? 1 : !y ? -1 : strcmp(git_tree_entry_name(x), git_tree_entry_name(y));

		if (c == 0) {
			both(p, x, y, prefix);
			i++;
			j++;
		} else if (c < 0) {
			add_all(p, x, prefix);
			i++;
		} else {
			add_all(p, y, prefix);
			j++;
		}
	}
}

int at_tree_changed_paths(git_repository *repo, const git_tree *a, const git_tree *b, size_t max,
			  git_strarray *out)
{
	struct paths p = { repo, NULL, 0, 0, max, 0 };
	size_t i;

	compare(&p, a, b, "");
	if (p.rc) {
		for (i = 0; i < p.n; i++)
			free(p.v[i]);
		free(p.v);
		out->strings = NULL;
		out->count = 0;
		return p.rc;
	}
	out->strings = p.v;
	out->count = p.n;
	return 0;
}

void at_tree_paths_free(git_strarray *paths)
{
	size_t i;

	for (i = 0; i < paths->count; i++)
		free(paths->strings[i]);
	free(paths->strings);
	paths->strings = NULL;
	paths->count = 0;
}
