#include "git/merge.h"

#include <string.h>

#include "git/merge_internal.h"
#include "git/snapshot.h"

/* Preview, and a merge already landed */

/* The tree of the merge base of two commits; NULL (and 0) when they share no history. */
static int ancestor_tree(git_repository *repo, const git_oid *a, const git_oid *b,
			 git_tree **out, struct at_error *err)
{
	git_commit *c = NULL;
	git_oid mb;
	int rc = git_merge_base(&mb, repo, a, b);

	*out = NULL;
	if (rc == GIT_ENOTFOUND) {
		git_error_clear();
		return 0;
	}
	if (rc < 0 || git_commit_lookup(&c, repo, &mb) < 0 || git_commit_tree(out, c) < 0)
		rc = at_git_error(err, AT_EGIT, "cannot find the merge base");
	git_commit_free(c);
	return rc < 0 ? rc : 0;
}

/* The task's full state, for a preview that was given none: one scan. */
static int preview_state(struct at_repo *r, const struct at_task *t, git_oid *out,
			 struct at_error *err)
{
	struct at_worktree *w = NULL;
	struct at_task_state st;
	int rc = 0;

	if (at_worktree_present(t))
		rc = at_worktree_open(&w, r, t, err);
	if (rc == 0)
		rc = at_task_state(r, t, w, &st, err);
	if (rc == 0)
		at_oid_to_git(out, &st.tree);
	at_worktree_free(w);
	return rc;
}

static int preview_merge(struct at_repo *r, const struct at_task *t, const struct at_oid *given,
			 git_commit *base, struct at_merge_preview *pv, struct at_error *err)
{
	git_tree *anc = NULL, *ours = NULL, *theirs = NULL;
	git_commit *tip = NULL;
	git_index *idx = NULL;
	git_oid state;
	int rc;

	if ((rc = at_merge_ref_commit(r->repo, t->branch, "task branch", &tip, err)) < 0)
		goto out;
	/*
	 * A base that is an ancestor of the task branch (it has not moved, or the
	 * task already holds it) merges cleanly whatever the worktree holds.
	 */
	if (git_oid_equal(git_commit_id(base), git_commit_id(tip)) ||
	    git_graph_descendant_of(r->repo, git_commit_id(tip), git_commit_id(base)) == 1) {
		pv->clean = true;
		goto out;
	}
	if (given)
		at_oid_to_git(&state, given);
	if ((!given && (rc = preview_state(r, t, &state, err)) < 0) ||
	    (rc = ancestor_tree(r->repo, git_commit_id(base), git_commit_id(tip), &anc, err)) < 0)
		goto out;
	if (git_commit_tree(&ours, base) < 0 || git_tree_lookup(&theirs, r->repo, &state) < 0 ||
	    git_merge_trees(&idx, r->repo, anc, ours, theirs, NULL) < 0) {
		rc = at_git_error(err, AT_EGIT, "cannot merge task '%s' in memory", t->name);
		goto out;
	}
	/* Only the conflicts matter here: the merged tree is not written. */
	if (git_index_has_conflicts(idx))
		rc = at_merge_collect_conflicts(idx, &pv->conflicts, err);
	git_index_free(idx);
	pv->clean = pv->conflicts.n == 0;
out:
	git_tree_free(anc);
	git_tree_free(ours);
	git_tree_free(theirs);
	git_commit_free(tip);
	return rc;
}

int at_merge_preview(struct at_repo *r, const struct at_task *t,
			  const struct at_oid *state_tree, struct at_merge_preview *out,
			  struct at_error *err)
{
	struct at_merge_preview pv;
	git_commit *base = NULL;
	git_oid began;
	int rc;

	memset(&pv, 0, sizeof(pv));
	pv.has_base_branch = t->base_branch[0] != '\0';
	if (git_oid_fromstr(&began, t->base_commit) < 0)
		return at_error_set(err, AT_ECORRUPT, "task '%s' has a bad base commit '%s'",
				    t->name, t->base_commit);
	if (pv.has_base_branch)
		rc = at_merge_ref_commit(r->repo, t->base_branch, "base branch", &base, err);
	else if ((rc = git_commit_lookup(&base, r->repo, &began)) < 0)
		rc =
		    at_git_error(err, AT_EGIT, "cannot read the base commit of task '%s'", t->name);
	if (rc < 0)
		return rc;
	pv.base_moved = !git_oid_equal(git_commit_id(base), &began);
	pv.base_ahead = pv.base_moved ? at_git_count_between(r->repo, git_commit_id(base), &began) : 0;
	rc = preview_merge(r, t, state_tree, base, &pv, err);
	git_commit_free(base);
	if (rc < 0)
		at_strlist_release(&pv.conflicts);
	else
		*out = pv;
	return rc;
}

bool at_merge_landed(struct at_repo *r, const struct at_task *t)
{
	struct at_error ignored = AT_ERROR_INIT;
	git_commit *tip = NULL, *base = NULL;
	bool landed = false;

	if (t->base_branch[0] && at_merge_ref_commit(r->repo, t->branch, "branch", &tip, &ignored) == 0 &&
	    at_merge_ref_commit(r->repo, t->base_branch, "base branch", &base, &ignored) == 0)
		landed = git_oid_equal(git_commit_id(tip), git_commit_id(base)) ||
			 git_graph_descendant_of(r->repo, git_commit_id(base), git_commit_id(tip)) == 1;
	git_commit_free(tip);
	git_commit_free(base);
	git_error_clear();
	return landed;
}
