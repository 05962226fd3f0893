#include "git/ls_tree.h"

#include <stdio.h>
#include <string.h>

#include "core/esc.h"
#include "git/internal.h"

struct walk {
	const char *dir;          /* the prefix added back to each path */
	size_t max;
	struct at_strlist *out;
	bool truncated, failed;
};

static int visit(const char *root, const git_tree_entry *e, void *payload)
{
	struct walk *w = payload;

	if (git_tree_entry_type(e) == GIT_OBJECT_TREE)
		return 0;
	if (w->out->n >= w->max) {
		w->truncated = true;
		return -1;
	}
	if (at_strlist_pushf(w->out, "%s%s%s%s", w->dir, w->dir[0] ? "/" : "", root,
			     git_tree_entry_name(e)) < 0) {
		w->failed = true;
		return -1;
	}
	return 0;
}

/* The tree at dir below top (top itself for ""); *sub is the caller's to free. */
static int subtree(git_repository *repo, git_tree *top, const char *dir, git_tree **sub,
		   struct at_error *err)
{
	git_tree_entry *e = NULL;
	char esc[200];
	int rc;

	if (!dir[0])
		return git_tree_dup(sub, top) < 0 ? at_git_error(err, AT_EGIT, "cannot read a tree")
						  : 0;
	if (git_tree_entry_bypath(&e, top, dir) < 0 || git_tree_entry_type(e) != GIT_OBJECT_TREE) {
		git_tree_entry_free(e);
		return at_error_set(err, AT_ENOTFOUND, "no directory '%s' in the task's files",
				    at_esc(esc, sizeof(esc), dir));
	}
	rc = git_tree_lookup(sub, repo, git_tree_entry_id(e)) < 0
		     ? at_git_error(err, AT_EGIT, "cannot read the tree of '%s'",
				    at_esc(esc, sizeof(esc), dir))
		     : 0;
	git_tree_entry_free(e);
	return rc;
}

int at_git_ls_tree(struct at_repo *r, const struct at_oid *tree, const char *dir, size_t max,
		   struct at_strlist *out, bool *truncated, struct at_error *err)
{
	struct walk w = { dir, max, out, false, false };
	git_tree *top = NULL, *sub = NULL;
	int rc;

	if (git_tree_lookup(&top, r->repo, (const git_oid *)tree) < 0)
		return at_git_error(err, AT_EGIT, "cannot read the task's tree");
	rc = subtree(r->repo, top, dir, &sub, err);
	if (rc == 0 && git_tree_walk(sub, GIT_TREEWALK_PRE, visit, &w) < 0 && !w.truncated)
		rc = w.failed ? at_error_set(err, AT_ESYS, "out of memory")
			      : at_git_error(err, AT_EGIT, "cannot walk the task's tree");
	git_tree_free(sub);
	git_tree_free(top);
	if (rc == 0)
		*truncated = w.truncated;
	return rc;
}
