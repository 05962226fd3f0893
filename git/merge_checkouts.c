#include "git/merge_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/array.h"
#include "core/util.h"
#include "git/apply_paths.h"

/* Worktrees where the base branch is checked out */

static git_strarray path_list_strarray(const struct at_strlist *l)
{
	git_strarray sa = { l->v, l->n };

	return sa;
}

void at_merge_checkouts_release(struct at_merge_checkouts *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (c->v[i].owned)
			git_repository_free(c->v[i].repo);
	free(c->v);
	c->v = NULL;
	c->n = c->cap = 0;
}

/* Is branch being rebased in this worktree (HEAD detached meanwhile)? */
static bool rebasing(git_repository *repo, const char *branch)
{
	static const char *const dirs[] = { "rebase-merge", "rebase-apply" };
	char path[PATH_MAX];
	bool hit = false;
	size_t i, len;

	for (i = 0; !hit && i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		AT_AUTOFREE char *text = NULL;

		if (at_fmt(path, sizeof(path), "%s%s/head-name", git_repository_path(repo),
			   dirs[i]) < 0)
			continue;
		text = at_read_file(path, 4096, &len);
		while (text && len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r'))
			text[--len] = '\0';
		hit = text && strcmp(text, branch) == 0;
	}
	return hit;
}

static bool head_is(git_repository *repo, const char *branch)
{
	git_reference *head = NULL;
	bool on = false;

	if (git_reference_lookup(&head, repo, "HEAD") == 0)
		on = git_reference_type(head) == GIT_REFERENCE_SYMBOLIC &&
		     strcmp(git_reference_symbolic_target(head), branch) == 0;
	git_error_clear();
	git_reference_free(head);
	return on;
}

/* Keep repo in the list when branch is checked out there; takes ownership when owned. */
static int consider(struct at_merge_checkouts *c, git_repository *repo, bool owned,
		    const char *branch, struct at_error *err)
{
	struct at_merge_checkout co = { repo, owned, "" };
	size_t len;
	int rc = 0;

	snprintf(co.path, sizeof(co.path), "%s",
		 git_repository_workdir(repo) ? git_repository_workdir(repo) : "?");
	len = strlen(co.path);
	if (len > 1 && co.path[len - 1] == '/')
		co.path[len - 1] = '\0';
	if (rebasing(repo, branch))
		rc = at_error_set(err, AT_EDIRTY,
				  "branch '%s' is being rebased in '%s': "
				  "finish or abort the rebase first",
				  at_branch_short(branch), co.path);
	else if (!head_is(repo, branch))
		goto drop;
	else if (git_repository_state(repo) != GIT_REPOSITORY_STATE_NONE)
		rc = at_error_set(err, AT_EDIRTY, "'%s' is in the middle of a merge, cherry-pick "
				  "or revert: finish or abort it first", co.path);
	if (rc < 0)
		goto drop;
	if (AT_ARRAY_GROW(c->v, c->cap, c->n + 1) < 0) {
		rc = at_error_set(err, AT_ESYS, "out of memory");
		goto drop;
	}
	c->v[c->n++] = co;
	return 0;
drop:
	if (owned)
		git_repository_free(repo);
	return rc;
}

int at_merge_find_checkouts(git_repository *main_repo, const char *branch,
			    struct at_merge_checkouts *out, struct at_error *err)
{
	git_strarray names = { NULL, 0 };
	size_t i;
	int rc = 0;

	/* A bare repository (reached through a linked worktree) checks nothing out. */
	if (!git_repository_is_bare(main_repo) &&
	    (rc = consider(out, main_repo, false, branch, err)) < 0)
		return rc;
	if (git_worktree_list(&names, main_repo) < 0)
		return at_git_error(err, AT_EGIT, "cannot list the worktrees");
	for (i = 0; rc == 0 && i < names.count; i++) {
		git_worktree *wt = NULL;
		git_repository *wr = NULL;

		/* A worktree whose directory is gone has nothing checked out to update. */
		if (git_worktree_lookup(&wt, main_repo, names.strings[i]) < 0 ||
		    git_worktree_validate(wt) < 0 ||
		    git_repository_open_from_worktree(&wr, wt) < 0) {
			git_error_clear();
			git_worktree_free(wt);
			continue;
		}
		git_worktree_free(wt);
		rc = consider(out, wr, true, branch, err);
	}
	git_strarray_dispose(&names);
	return rc;
}

/*
 * A path staged exactly at its new state with nothing else changed is not in
 * the way: that is what an accept interrupted after the checkout leaves.
 */
static bool already_new(const git_status_entry *s, git_tree *new_tree)
{
	git_tree_entry *e = NULL;
	const git_diff_delta *d = s->head_to_index;
	bool same;

	if (!d || (s->status & ~(unsigned)(GIT_STATUS_INDEX_NEW | GIT_STATUS_INDEX_MODIFIED |
					   GIT_STATUS_INDEX_DELETED | GIT_STATUS_INDEX_TYPECHANGE)))
		return false;
	if (git_tree_entry_bypath(&e, new_tree, d->old_file.path) < 0) {
		git_error_clear();
		return (s->status & GIT_STATUS_INDEX_DELETED) != 0;
	}
	same = !(s->status & GIT_STATUS_INDEX_DELETED) &&
	       git_oid_equal(git_tree_entry_id(e), &d->new_file.id) &&
	       (uint32_t)git_tree_entry_filemode(e) == d->new_file.mode;
	git_tree_entry_free(e);
	return same;
}

/*
 * Nothing staged, and the file already what the new tree has: that is what
 * an accept killed after writing files but before writing the index leaves
 * (git/apply_paths.h). Also a change of the user's that is exactly the
 * task's: checking it out again writes the same bytes.
 */
static bool written_not_staged(struct at_merge_checkout *co, const git_status_entry *s,
			       git_tree *new_tree)
{
	const git_diff_delta *d = s->index_to_workdir;

	return !s->head_to_index && d && at_apply_path_is_new(co->repo, new_tree, d->old_file.path);
}

/* The user's uncommitted changes (staged, unstaged, untracked, ignored) among paths. */
static int dirty_paths(struct at_merge_checkout *co, const struct at_strlist *paths,
		       git_tree *new_tree, struct at_strlist *out, struct at_error *err)
{
	git_status_options so = GIT_STATUS_OPTIONS_INIT;
	git_status_list *list = NULL;
	size_t i, n;
	int rc = 0;

	so.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
	so.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS |
		   GIT_STATUS_OPT_INCLUDE_IGNORED | GIT_STATUS_OPT_RECURSE_IGNORED_DIRS |
		   GIT_STATUS_OPT_DISABLE_PATHSPEC_MATCH | GIT_STATUS_OPT_EXCLUDE_SUBMODULES;
	so.pathspec = path_list_strarray(paths);
	if (git_status_list_new(&list, co->repo, &so) < 0)
		return at_git_error(err, AT_EGIT, "cannot read the status of '%s'", co->path);
	n = git_status_list_entrycount(list);
	for (i = 0; rc == 0 && i < n; i++) {
		const git_status_entry *s = git_status_byindex(list, i);
		const git_diff_delta *d =
		    s->index_to_workdir ? s->index_to_workdir : s->head_to_index;

		if (s->status != GIT_STATUS_CURRENT && d && !already_new(s, new_tree) &&
		    !written_not_staged(co, s, new_tree))
			rc = at_merge_path_add(out, d->old_file.path, err);
	}
	git_status_list_free(list);
	at_strlist_sort_unique(out);
	return rc;
}

int at_merge_check_checkouts(struct at_merge_checkouts *cos, const struct at_strlist *paths,
			     git_tree *new_tree, struct at_strlist *dirty, struct at_error *err)
{
	char lock[PATH_MAX];
	struct stat st;
	size_t i;
	int rc;

	for (i = 0; i < cos->n; i++) {
		struct at_merge_checkout *co = &cos->v[i];

		/* A lock an accept killed while writing the index left is not in the way. */
		if (at_fmt(lock, sizeof(lock), "%sindex.lock", git_repository_path(co->repo)) ==
			0 &&
		    lstat(lock, &st) == 0 && !at_apply_clear_stale_lock(co->repo))
			return at_error_set(err, AT_EDIRTY,
					    "another git command is running in '%s' "
					    "('%s' exists)",
					    co->path, lock);
		if ((rc = dirty_paths(co, paths, new_tree, dirty, err)) < 0)
			return rc;
		if (dirty->n > 0)
			return at_error_set(err, AT_EDIRTY,
					    "uncommitted changes in '%s' would be overwritten; "
					    "commit or stash them first (%zu file%s)", co->path,
					    dirty->n, dirty->n == 1 ? "" : "s");
	}
	return 0;
}

/*
 * Bring the changed paths of a worktree to tree `to`, each path whole at
 * every moment (git/apply_paths.h). The tree is looked up in the worktree's
 * own repository object, whose object database it is read from.
 */
int at_merge_checkout_paths(struct at_merge_checkout *co, git_tree *to,
			    const struct at_strlist *paths, struct at_error *err)
{
	git_tree *target = NULL;
	int rc;

	if (git_tree_lookup(&target, co->repo, git_tree_id(to)) < 0)
		return at_git_error(err, AT_EGIT, "cannot read the tree to check out in '%s'",
				    co->path);
	rc = at_apply_paths(co->repo, target, paths->v, paths->n, err);
	git_tree_free(target);
	return rc;
}
