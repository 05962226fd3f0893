#include "git/merge_internal.h"

#include <string.h>

#include "core/esc.h"
#include "core/util.h"
#include "git/wtread.h"

/* Path lists */

int at_merge_path_add(struct at_strlist *l, const char *path, struct at_error *err)
{
	if (at_strlist_push(l, path) < 0)
		return at_error_set(err, AT_ESYS, "out of memory");
	return 0;
}

/* Small lookups */

/* The commit a branch points at; `what` names the branch in messages ("base branch"). */
int at_merge_ref_commit(git_repository *repo, const char *ref, const char *what,
			git_commit **out, struct at_error *err)
{
	git_reference *r = NULL;
	int rc = 0;

	if (git_reference_lookup(&r, repo, ref) < 0) {
		git_error_clear();
		return at_error_set(err, AT_ENOTFOUND, "%s '%s' does not exist", what,
				    at_branch_short(ref));
	}
	if (git_reference_type(r) != GIT_REFERENCE_DIRECT)
		rc = at_error_set(err, AT_EGIT, "branch '%s' is a symbolic reference",
				  at_branch_short(ref));
	else if (git_commit_lookup(out, repo, git_reference_target(r)) < 0)
		rc = at_git_error(err, AT_EGIT, "cannot read the tip of branch '%s'",
				  at_branch_short(ref));
	git_reference_free(r);
	return rc;
}

/* In-memory merges */

int at_merge_collect_conflicts(git_index *idx, struct at_strlist *out, struct at_error *err)
{
	const git_index_entry *anc, *ours, *theirs;
	git_index_conflict_iterator *it = NULL;
	int rc, grc;

	if (git_index_conflict_iterator_new(&it, idx) < 0)
		return at_git_error(err, AT_EGIT, "cannot list merge conflicts");
	rc = 0;
	while (rc == 0 && (grc = git_index_conflict_next(&anc, &ours, &theirs, it)) == 0) {
		const char *p = ours ? ours->path : theirs ? theirs->path : anc->path;

		rc = at_merge_path_add(out, p, err);
	}
	if (rc == 0 && grc != GIT_ITEROVER)
		rc = at_git_error(err, AT_EGIT, "cannot list merge conflicts");
	git_index_conflict_iterator_free(it);
	at_strlist_sort_unique(out);
	return rc;
}

/*
 * The tree of a merged index, or AT_ECONFLICT with the conflicting paths.
 * Takes ownership of idx.
 */
static int merged_tree(git_repository *repo, git_index *idx, const struct at_task *t,
		       git_oid *tree_out, struct at_strlist *conflicts, struct at_error *err)
{
	int rc = 0;

	if (git_index_has_conflicts(idx)) {
		rc = at_merge_collect_conflicts(idx, conflicts, err);
		if (rc == 0)
			rc = at_error_set(err, AT_ECONFLICT,
					  "task '%s' conflicts with '%s' in %zu file%s", t->name,
					  at_branch_short(t->base_branch), conflicts->n,
					  conflicts->n == 1 ? "" : "s");
	} else if (git_index_write_tree_to(tree_out, idx, repo) < 0) {
		rc = at_git_error(err, AT_EGIT, "cannot write the merged tree of task '%s'",
				  t->name);
	}
	git_index_free(idx);
	return rc;
}

/* Decide how theirs goes into base, and the resulting tree; nothing is written to refs. */
int at_merge_plan_merge(git_repository *repo, const struct at_task *t, enum at_merge_mode mode,
			git_commit *base, git_commit *theirs, struct at_merge_plan *out,
			struct at_strlist *conflicts, struct at_error *err)
{
	git_merge_options mo = GIT_MERGE_OPTIONS_INIT;
	const git_oid *b = git_commit_id(base), *h = git_commit_id(theirs);
	const char *bname = at_branch_short(t->base_branch);
	git_index *idx = NULL;
	int ff, rc;

	if (git_oid_equal(b, h) || git_graph_descendant_of(repo, b, h) == 1) {
		out->kind = AT_MERGED_UP_TO_DATE;
		git_oid_cpy(&out->tree, git_commit_tree_id(base));
		return 0;
	}
	if ((ff = git_graph_descendant_of(repo, h, b)) < 0)
		return at_git_error(err, AT_EGIT, "cannot compare task '%s' with '%s'", t->name,
				    bname);
	if (!ff && mode == AT_MERGE_FF_ONLY)
		return at_error_set(err, AT_ECONFLICT,
				    "cannot fast-forward '%s' to task '%s': '%s' has moved on "
				    "(accept without --ff-only to merge)", bname, t->name, bname);
	if (ff) {
		git_oid_cpy(&out->tree, git_commit_tree_id(theirs));
	} else {
		if (git_merge_commits(&idx, repo, base, theirs, &mo) < 0)
			return at_git_error(err, AT_EGIT, "cannot merge task '%s' into '%s'",
					    t->name, bname);
		if ((rc = merged_tree(repo, idx, t, &out->tree, conflicts, err)) < 0)
			return rc;
	}
	if (mode == AT_MERGE_SQUASH)
		out->kind = git_oid_equal(&out->tree, git_commit_tree_id(base)) ?
				    AT_MERGED_UP_TO_DATE : AT_MERGED_SQUASH;
	else if (ff && mode != AT_MERGE_NO_FF)
		out->kind = AT_MERGED_FAST_FORWARD;
	else
		out->kind = AT_MERGED_COMMIT;
	return 0;
}

/*
 * The pending changes as a commit object on top of the task tip, referenced
 * by nothing: the merge is planned with it before anything is committed.
 */
int at_merge_pending_commit(git_repository *repo, git_commit *tip, const git_oid *tree_id,
			    git_commit **out, struct at_error *err)
{
	const git_commit *parents[1] = { tip };
	git_signature *sig = NULL;
	git_tree *tree = NULL;
	git_oid id;
	int rc = 0;

	if (git_oid_equal(tree_id, git_commit_tree_id(tip)))
		return git_commit_dup(out, tip) < 0 ? at_git_error(err, AT_EGIT, "out of memory")
						    : 0;
	if ((rc = at_git_signature(&sig, repo, err)) < 0)
		return rc;
	if (git_tree_lookup(&tree, repo, tree_id) < 0 ||
	    git_commit_create(&id, repo, NULL, sig, sig, NULL, "agenttask: pending changes\n", tree,
			      1, parents) < 0 ||
	    git_commit_lookup(out, repo, &id) < 0)
		rc = at_git_error(err, AT_EGIT, "cannot prepare the pending changes");
	git_tree_free(tree);
	git_signature_free(sig);
	return rc;
}

/*
 * What the checkout would write, as the review checks it (git/wtread.h): no
 * symlinked .gitattributes, .gitignore or .gitmodules, no path in a ".git",
 * no blob over the limit. The task's own worktree was checked by the
 * snapshot; this also holds for what its commits brought.
 */
static int check_written(git_odb *odb, const git_diff_file *f, uint64_t max,
			 struct at_error *err)
{
	git_object_t type;
	size_t size = 0;
	char e[200];

	if (f->mode != 0 && f->mode != GIT_FILEMODE_COMMIT &&
	    git_odb_read_header(&size, &type, odb, &f->id) < 0)
		return at_git_error(err, AT_EGIT, "cannot read the object of '%s'",
				    at_esc(e, sizeof(e), f->path));
	return at_git_check_entry(f->path, f->mode, size, max, err);
}

/* Paths that differ between two trees (both sides of each change). */
int at_merge_changed_paths(git_repository *repo, git_tree *from, git_tree *to, uint64_t max,
			   struct at_strlist *out, struct at_error *err)
{
	git_diff_options dopts = GIT_DIFF_OPTIONS_INIT;
	git_diff *diff = NULL;
	git_odb *odb = NULL;
	size_t i, n;
	int rc = 0;

	dopts.ignore_submodules = GIT_SUBMODULE_IGNORE_ALL;
	if (git_repository_odb(&odb, repo) < 0 ||
	    git_diff_tree_to_tree(&diff, repo, from, to, &dopts) < 0) {
		git_odb_free(odb);
		return at_git_error(err, AT_EGIT, "cannot compare the old and new base trees");
	}
	n = git_diff_num_deltas(diff);
	for (i = 0; rc == 0 && i < n; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);

		if ((rc = check_written(odb, &d->new_file, max, err)) < 0)
			break;
		rc = at_merge_path_add(out, d->old_file.path, err);
		if (rc == 0 && strcmp(d->old_file.path, d->new_file.path) != 0)
			rc = at_merge_path_add(out, d->new_file.path, err);
	}
	git_odb_free(odb);
	git_diff_free(diff);
	at_strlist_sort_unique(out);
	return rc;
}
