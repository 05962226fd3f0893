#include "git/merge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "git/apply_paths.h"
#include "git/merge_internal.h"
#include "git/snapshot.h"

/* Refuse unless the full state is the tree that was reviewed. */
static int check_tree(const struct at_task *t, const git_oid *tree, const struct at_oid *want,
		      const char *what, struct at_error *err)
{
	char hex[AT_OID_HEXSZ + 1], whex[AT_OID_HEXSZ + 1];
	git_oid w;

	if (!want)
		return 0;
	at_oid_to_git(&w, want);
	if (git_oid_equal(tree, &w))
		return 0;
	at_git_oid_hex(hex, tree);
	at_oid_fmt(whex, want);
	return at_error_set(err, AT_ESTALE, "task '%s' changed since %s: tree is %s, reviewed %s",
			    t->name, what, hex, whex);
}

/* Accept, step by step */

struct accept {
	struct at_repo *r;
	const struct at_task *t;
	const struct at_merge_opts *o;
	const struct at_task_state *st;  /* the task's full state, taken under the lock */
	struct at_worktree *staged;      /* where it was staged, to commit it; NULL: nothing to */
	git_commit *base;            /* the base tip before */
	git_commit *tip;             /* task tip: pending changes as an object, then committed */
	git_tree *base_tree;
	git_tree *new_tree;
	git_oid state_tree;          /* the task's full state */
	struct at_merge_plan plan;
	struct at_strlist changed;   /* paths that differ between base_tree and new_tree */
	struct at_merge_checkouts cos;
	git_oid new_tip;
};

static void accept_release(struct accept *a)
{
	git_commit_free(a->base);
	git_commit_free(a->tip);
	git_tree_free(a->base_tree);
	git_tree_free(a->new_tree);
	at_strlist_release(&a->changed);
	at_merge_checkouts_release(&a->cos);
}

/* The branch still at the tip the state was taken on: nothing committed since. */
static int check_tip(const struct accept *a, git_commit *task_tip, struct at_error *err)
{
	git_oid want;

	at_oid_to_git(&want, &a->st->tip);
	if (git_oid_equal(&want, git_commit_id(task_tip)))
		return 0;
	return at_error_set(err, AT_ESTALE, "the branch of task '%s' moved while it was being "
			    "accepted; review and accept again", a->t->name);
}

/* Everything that can refuse, before anything is written but loose objects. */
static int accept_preflight(struct accept *a, struct at_merge_result *res, struct at_error *err)
{
	git_repository *repo = a->r->repo;
	git_commit *task_tip = NULL;
	uint64_t max_size;
	int rc;

	if (!a->t->base_branch[0])
		return at_error_set(err, AT_ECONFLICT, "task '%s' has no base branch (it began on "
				    "a detached HEAD): merge '%s' yourself", a->t->name,
				    at_branch_short(a->t->branch));
	at_oid_to_git(&a->state_tree, &a->st->tree);
	if ((rc = at_merge_ref_commit(repo, a->t->base_branch, "base branch", &a->base, err)) < 0 ||
	    (rc = at_merge_ref_commit(repo, a->t->branch, "task branch", &task_tip, err)) < 0 ||
	    (rc = check_tip(a, task_tip, err)) < 0 ||
	    (rc = check_tree(a->t, &a->state_tree, a->o->expect_tree, "review", err)) < 0 ||
	    (rc = check_tree(a->t, &a->state_tree, a->o->gated_tree, "the gate ran", err)) < 0 ||
	    (rc = at_merge_pending_commit(repo, task_tip, &a->state_tree, &a->tip, err)) < 0 ||
	    (rc = at_merge_plan_merge(repo, a->t, a->o->mode, a->base, a->tip, &a->plan, &res->paths,
			     err)) < 0)
		goto out;
	if (a->plan.kind == AT_MERGED_UP_TO_DATE)
		goto out;
	if (git_commit_tree(&a->base_tree, a->base) < 0 ||
	    git_tree_lookup(&a->new_tree, repo, &a->plan.tree) < 0) {
		rc = at_git_error(err, AT_EGIT, "cannot read the trees to merge");
		goto out;
	}
	if ((rc = at_repo_max_file_size(a->r, &max_size, err)) == 0 &&
	    (rc = at_merge_changed_paths(repo, a->base_tree, a->new_tree, max_size, &a->changed,
					 err)) == 0 &&
	    (rc = at_merge_find_checkouts(repo, a->t->base_branch, &a->cos, err)) == 0)
		rc = at_merge_check_checkouts(&a->cos, &a->changed, a->new_tree, &res->paths, err);
out:
	git_commit_free(task_tip);
	return rc;
}

/*
 * Record the pending changes on the task branch: exactly the staged state,
 * so the commit has the tree the merge was planned with (on the same
 * parent), and the plan stands.
 */
static int accept_commit_pending(struct accept *a, struct at_merge_result *res,
				 struct at_error *err)
{
	struct at_oid made;
	git_oid id;
	int rc;

	if (!a->staged)
		return 0;
	if ((rc = at_worktree_commit(a->staged, NULL, &made, &res->committed_pending, err)) < 0)
		return rc;
	git_commit_free(a->tip);
	a->tip = NULL;
	at_oid_to_git(&id, &made);
	if (git_commit_lookup(&a->tip, a->r->repo, &id) < 0)
		return at_git_error(err, AT_EGIT, "cannot read the tip of task '%s'", a->t->name);
	if (!git_oid_equal(git_commit_tree_id(a->tip), &a->state_tree))
		return at_error_set(err, AT_ESTALE, "task '%s' changed during accept: its changes "
				    "are committed on '%s'; review and accept again", a->t->name,
				    at_branch_short(a->t->branch));
	return 0;
}

static int accept_make_commit(struct accept *a, struct at_error *err)
{
	const git_commit *parents[2] = { a->base, a->tip };
	git_signature *sig = NULL;
	char *msg = NULL;
	int rc;

	if (a->plan.kind == AT_MERGED_FAST_FORWARD) {
		git_oid_cpy(&a->new_tip, git_commit_id(a->tip));
		return 0;
	}
	if ((rc = at_git_signature(&sig, a->r->repo, err)) < 0)
		return rc;
	msg = at_merge_build_message(a->r->repo, a->t, a->o, a->plan.kind, a->base, a->tip);
	if (!msg)
		rc = at_error_set(err, AT_ESYS, "out of memory");
	else if (git_commit_create(&a->new_tip, a->r->repo, NULL, sig, sig, NULL, msg, a->new_tree,
				   a->plan.kind == AT_MERGED_SQUASH ? 1 : 2, parents) < 0)
		rc = at_git_error(err, AT_EGIT, "cannot create the commit for task '%s'",
				  a->t->name);
	free(msg);
	git_signature_free(sig);
	return rc;
}

static int move_ref(struct accept *a, struct at_error *err)
{
	static const char *const how[] = {
		[AT_MERGED_FAST_FORWARD] = "fast-forward to", [AT_MERGED_COMMIT] = "merge",
		[AT_MERGED_SQUASH] = "squash",
	};
	git_reference *ref = NULL;
	char msg[160];
	int rc;

	snprintf(msg, sizeof(msg), "agenttask accept: %s task '%s'", how[a->plan.kind], a->t->name);
	rc = git_reference_create_matching(&ref, a->r->repo, a->t->base_branch, &a->new_tip, 1,
					   git_commit_id(a->base), msg);
	git_reference_free(ref);
	if (rc == GIT_EMODIFIED)
		return at_error_set(err, AT_ESTALE,
				    "branch '%s' moved during accept; run accept again",
				    at_branch_short(a->t->base_branch));
	if (rc == GIT_ELOCKED)
		return at_error_set(err, AT_EBUSY,
				    "branch '%s' is locked by another git command "
				    "('%s.lock' exists); try again",
				    at_branch_short(a->t->base_branch), a->t->base_branch);
	if (rc < 0)
		return at_git_error(err, AT_EGIT, "cannot update branch '%s'",
				    at_branch_short(a->t->base_branch));
	return 0;
}

/*
 * Files and index first, then the ref by compare-and-swap. The paths put
 * back on failure had no user changes (checked), so forcing them is safe.
 */
static int accept_land(struct accept *a, struct at_error *err)
{
	struct at_error ignored = AT_ERROR_INIT;
	size_t i, done;
	int rc = 0;

	if ((rc = accept_make_commit(a, err)) < 0)
		return rc;
	for (done = 0; rc == 0 && done < a->cos.n; done++) {
		rc = at_merge_checkout_paths(&a->cos.v[done], a->new_tree, &a->changed, err);
		if (rc == AT_EDIRTY)
			break;   /* refused before writing: nothing to put back there */
	}
	if (rc == 0)
		rc = move_ref(a, err);
	if (rc < 0)
		for (i = 0; i < done; i++)
			at_merge_checkout_paths(&a->cos.v[i], a->base_tree, &a->changed, &ignored);
	return rc;
}

int at_merge_accept(struct at_repo *r, const struct at_task *t, const struct at_task_state *st,
		    struct at_worktree *staged, const struct at_merge_opts *opts,
		    struct at_merge_result *out, struct at_error *err)
{
	static const struct at_merge_opts dflt = AT_MERGE_OPTS_INIT;
	struct accept a;
	int rc;

	memset(out, 0, sizeof(*out));
	memset(&a, 0, sizeof(a));
	a.r = r;
	a.t = t;
	a.o = opts ? opts : &dflt;
	a.st = st;
	a.staged = staged;
	memcpy(out->base_branch, t->base_branch, sizeof(out->base_branch));
	rc = accept_preflight(&a, out, err);
	if (rc == 0)
		rc = accept_commit_pending(&a, out, err);
	if (rc == 0 && a.plan.kind != AT_MERGED_UP_TO_DATE)
		rc = accept_land(&a, err);
	if (rc == 0) {
		out->kind = a.plan.kind;
		at_oid_from_git(&out->old_tip, git_commit_id(a.base));
		if (a.plan.kind == AT_MERGED_UP_TO_DATE)
			git_oid_cpy(&a.new_tip, git_commit_id(a.base));
		at_oid_from_git(&out->new_tip, &a.new_tip);
		if (a.cos.n > 0)
			snprintf(out->updated_worktree, sizeof(out->updated_worktree), "%s",
				 a.cos.v[0].path);
	}
	accept_release(&a);
	return rc;
}
