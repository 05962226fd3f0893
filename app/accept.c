#include "app/accept.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "app/gitview.h"
#include "app/internal.h"
#include "app/lifecycle.h"
#include "core/audit.h"
#include "core/comments.h"
#include "core/lock.h"
#include "core/runs.h"
#include "git/checkpoint.h"
#include "git/merge.h"
#include "git/partial.h"
#include "git/trash.h"
#include "git/worktree.h"

/* What the steps before the lock decided, for the merge under it. */
struct accept {
	struct at_repo *r;
	const struct at_app_accept_opts *o;
	struct at_merge_opts merge;
	struct at_oid expect_tree;
	struct at_oid gated_tree;
	struct at_oid staged_tree;   /* the state merged: with --keep, the one last reviewed */
	char trailer[AT_OVERRIDE_MAX + 32];
	bool partial;                /* a pathspec or --exclude was given */
	struct at_strlist paths;     /* ... from the top of the tree */
	struct at_strlist exclude;
};

static bool is_blank(const char *s)
{
	for (; *s; s++)
		if (!isspace((unsigned char)*s))
			return false;
	return true;
}

/* A reason is one line of printable text: it becomes a commit trailer. */
static bool is_reason(const char *s)
{
	size_t i;

	for (i = 0; s[i]; i++)
		if (iscntrl((unsigned char)s[i]))
			return false;
	return i > 0 && i <= AT_OVERRIDE_MAX && !is_blank(s);
}

int at_app_accept_check(const struct at_app_accept_opts *o, struct at_error *err)
{
	struct at_oid id;

	if (o->message && is_blank(o->message))
		return at_error_set(err, AT_EUSAGE, "empty commit message");
	if (o->message && o->mode == AT_MERGE_FF_ONLY)
		return at_error_set(err, AT_EUSAGE, "-m needs a commit for its message, which "
				    "--ff-only forbids: drop one of them");
	if (o->expect_tree && at_oid_parse(&id, o->expect_tree) < 0)
		return at_error_set(err, AT_EUSAGE, "invalid tree id '%s' (expected %d hex digits)",
				    o->expect_tree, AT_OID_HEXSZ);
	if (o->override && !is_reason(o->override))
		return at_error_set(err, AT_EUSAGE, "--override needs a reason: one line of text, "
				    "at most %d characters", AT_OVERRIDE_MAX);
	if ((o->npaths || o->nexclude) && o->mode == AT_MERGE_SQUASH)
		return at_error_set(err, AT_EUSAGE, "--squash and a PATHSPEC or --exclude cannot "
				    "be combined: a part is accepted as one commit already");
	if (o->drop_rest && !o->npaths && !o->nexclude)
		return at_error_set(err, AT_EUSAGE, "--drop-rest needs a PATHSPEC or --exclude: "
				    "without one there is no rest");
	return 0;
}

/* A stale review is refused before the gate spends time on it. */
static int check_reviewed(struct accept *a, struct at_app_view *v, const struct at_task *t,
			  struct at_error *err)
{
	const struct at_task_state *st;
	char is[AT_OID_HEXSZ + 1];
	int rc;

	if (!a->o->expect_tree)
		return 0;
	at_oid_parse(&a->expect_tree, a->o->expect_tree);
	a->merge.expect_tree = &a->expect_tree;
	if (a->partial)
		return 0;   /* the part's tree, checked under the lock (merge_part) */
	if ((rc = at_app_view_state(v, &st, err)) < 0)
		return rc;
	if (at_oid_equal(&st->tree, &a->expect_tree))
		return 0;
	at_oid_fmt(is, &st->tree);
	return at_error_set(err, AT_ESTALE, "task '%s' changed since review: tree is %s, "
			    "reviewed %s", t->name, is, a->o->expect_tree);
}

/*
 * An agent (MCP) never accepts a change to a file the host runs: not with
 * a policy that allows them, not with an override. The person does, on
 * the command line, having seen each path.
 */
static int refuse_host_files(const struct at_gate_report *rep, const char *task,
			     struct at_error *err)
{
	const struct at_strlist *h = &rep->host_files;

	return at_error_set(err, AT_EUSAGE, "task '%s' changes %zu file%s that tools on the host "
			    "run ('%s'%s): an agent cannot accept it; the person reviews it and "
			    "accepts with `agenttask accept %s` on the command line", task, h->n,
			    h->n == 1 ? "" : "s", h->v[0], h->n > 1 ? ", ..." : "", task);
}

/*
 * The gate must pass, or be overridden with a reason. The override is
 * recorded as a trailer of a new commit, so it forces one: a fast-forward
 * becomes a merge commit (like git merge --no-ff).
 */
static int check_gate(const struct at_app *app, struct accept *a, struct at_app_view *v,
		      struct at_app_accept_result *out, struct at_error *err)
{
	struct at_gate_report *rep = NULL;
	size_t i;
	int rc;

	if ((rc = at_app_gate_task(a->r, v, a->o->policy_file, app ? app->environ : NULL,
				   &a->o->progress, &rep, err)) < 0)
		return rc;
	/* What was judged is what merges: a host file added after the gate makes it stale. */
	a->gated_tree = rep->tree;
	a->merge.gated_tree = &a->gated_tree;
	for (i = 0; i < rep->host_files.n; i++)
		if (at_strlist_push(&out->host_files, rep->host_files.v[i]) < 0)
			rc = at_error_set(err, AT_ESYS, "out of memory");
	if (rc == 0 && a->o->no_host_files && rep->host_files.n)
		rc = refuse_host_files(rep, out->task.name, err);
	if (rc < 0) {
		at_gate_report_free(rep);
		return rc;
	}
	if (at_gate_report_passed(rep)) {
		if (a->o->override)
			at_strlist_pushf(&out->notes, "nothing to override (the gate passed); "
					 "--override ignored");
		at_gate_report_free(rep);
		return 0;
	}
	if (!a->o->override) {
		out->failed_gate = rep;
		return at_error_set(err, AT_EGATE, "task '%s' failed the review gate (fix it, or "
				    "accept with --override REASON)", out->task.name);
	}
	at_gate_report_free(rep);
	if (a->merge.mode == AT_MERGE_FF_ONLY)
		return at_error_set(err, AT_EUSAGE, "--override is recorded in a new commit, which "
				    "--ff-only forbids: drop --ff-only");
	out->overriding = true;
	snprintf(a->trailer, sizeof(a->trailer), "Agenttask-Override: %s", a->o->override);
	a->merge.trailer = a->trailer;
	if (a->merge.mode == AT_MERGE_AUTO)
		a->merge.mode = AT_MERGE_NO_FF;
	return 0;
}

/* Before the lock: the review's tree and the gate, from one look at the state. */
static int unlocked(const struct at_app *app, struct accept *a, struct at_app_accept_result *out,
		    struct at_error *err)
{
	struct at_app_view v;
	int rc;

	at_app_view_init(&v, a->r, &out->task);
	rc = check_reviewed(a, &v, &out->task, err);
	/* No worktree: its branch has landed (gone_refused), nothing is left to judge or merge. */
	if (rc == 0 && at_worktree_present(&out->task))
		rc = check_gate(app, a, &v, out, err);
	at_app_view_release(&v);
	return rc;
}

/*
 * A worktree deleted by hand is refused, saying what to do (core/task.h);
 * unless the branch has already landed in its base: then the worktree went
 * with an accept killed before it removed the task, and accepting again
 * finishes that (nothing is merged, the task is removed).
 */
static bool gone_refused(struct at_repo *r, const struct at_task *t, struct at_error *err)
{
	if (at_worktree_present(t) || at_merge_landed(r, t))
		return false;
	at_task_worktree_gone(t, err);
	return true;
}

/* The part to merge is the tree that was reviewed (--tree), of a full state the gate judged. */
static int check_part(struct accept *a, const struct at_task_state *st,
		      struct at_app_accept_result *out, struct at_error *err)
{
	char is[AT_OID_HEXSZ + 1];

	if (a->merge.gated_tree && !at_oid_equal(&st->tree, a->merge.gated_tree))
		return at_error_set(err, AT_ESTALE, "task '%s' changed while the gate ran; review "
				    "and accept again", out->task.name);
	if (!a->merge.expect_tree || at_oid_equal(&out->part_tree, a->merge.expect_tree))
		return 0;
	at_oid_fmt(is, &out->part_tree);
	return at_error_set(err, AT_ESTALE, "the part of task '%s' to accept is tree %s, "
			    "reviewed %s", out->task.name, is, a->o->expect_tree);
}

/*
 * A part: committed on the merge base, the task's branch moved to it, then
 * merged like a task whose full state is that commit (git/partial.h). A
 * selection of every change is the whole accept (its history and all).
 */
static int merge_part(struct accept *a, struct at_worktree *w, struct at_task_state *st,
		      struct at_app_accept_result *out, struct at_error *err)
{
	struct at_partial_spec spec = { a->paths.v, a->paths.n, a->exclude.v, a->exclude.n };
	struct at_partial p;
	struct at_task_state part;
	int rc;

	if (a->o->pick_tree && !at_oid_equal(&st->tree, a->o->pick_state))
		return at_error_set(err, AT_ESTALE, "task '%s' changed while its hunks were picked; "
				    "pick again", out->task.name);
	rc = a->o->pick_tree ? at_partial_of_tree(a->r, w, st, a->o->pick_tree, &p, err)
			     : at_partial_split(a->r, w, st, &spec, &p, err);
	if (rc < 0)
		return rc;
	out->part_tree = p.part;
	if ((rc = check_part(a, st, out, err)) < 0)
		goto out;
	if (p.left.n == 0) {
		a->merge.expect_tree = NULL;   /* checked: the part is the full state */
		rc = at_merge_accept(a->r, &out->task, st, w, &a->merge, &out->merge, err);
		goto out;
	}
	out->partial = true;
	if (a->o->drop_rest &&
	    (rc = at_trash_save(a->r, &out->task, out->trash, sizeof(out->trash), err)) < 0)
		goto out;
	if ((rc = at_partial_commit(a->r, w, st, &p, a->o->message, &part.tip, err)) < 0)
		goto out;
	part.tree = p.part;
	a->merge.expect_tree = NULL;
	a->merge.gated_tree = NULL;
	if (a->merge.mode == AT_MERGE_NO_FF && !a->o->override)
		a->merge.mode = AT_MERGE_AUTO;   /* -m is the part's own commit's message */
	rc = at_merge_accept(a->r, &out->task, &part, NULL, &a->merge, &out->merge, err);
	/* Refused (the base unchanged): the branch and index as they were. */
	if (rc < 0)
		at_partial_undo(a->r, w, st, &p, &part.tip);
out:
	if (rc == 0) {
		out->taken = p.taken;
		out->left = p.left;
		memset(&p.taken, 0, sizeof(p.taken));
		memset(&p.left, 0, sizeof(p.left));
	}
	at_partial_release(&p);
	return rc;
}

/* The state again under the lock, staged so that the merge commits exactly it. */
static int merge_staged(struct accept *a, struct at_app_accept_result *out, struct at_error *err)
{
	struct at_worktree *w = NULL;
	struct at_task_state st;
	int rc = 0;

	/* No worktree: what is left of a killed accept (gone_refused), its branch alone. */
	if (!at_worktree_present(&out->task))
		rc = gone_refused(a->r, &out->task, err) ? err->code
							 : at_task_state(a->r, &out->task, NULL, &st, err);
	else if ((rc = at_worktree_open(&w, a->r, &out->task, err)) == 0)
		rc = at_worktree_stage(w, &st, err);
	if (rc == 0 && out->overriding)
		/* No overridden accept without a record: logged before anything merges. */
		rc = at_audit_override(at_repo_paths(a->r), &out->task, a->o->override,
				       &a->gated_tree, err);
	if (rc == 0 && a->partial)
		rc = w ? merge_part(a, w, &st, out, err) : at_task_worktree_gone(&out->task, err);
	else if (rc == 0)
		rc = at_merge_accept(a->r, &out->task, &st, w, &a->merge, &out->merge, err);
	if (rc == 0)
		a->staged_tree = st.tree;
	at_worktree_free(w);
	return rc;
}

/* A task kept: the state merged is what `diff --since-review` starts from (core/comments.h). */
static void kept_reviewed(struct accept *a, struct at_app_accept_result *out)
{
	struct at_error e = AT_ERROR_INIT;

	if (at_review_keep(a->r, out->task.name, &a->staged_tree, &e) < 0 ||
	    at_comments_set_reviewed(at_repo_paths(a->r), out->task.name, &a->staged_tree, &e) < 0)
		at_strlist_pushf(&out->warnings, "the reviewed state of task '%s' not recorded: %s",
				 out->task.name, e.msg);
}

/*
 * Under the lock: the task again (it may be gone by now), its running
 * commands stopped unless it is kept, merge, remove.
 */
static int locked(struct accept *a, struct at_app_accept_result *out, struct at_error *err)
{
	struct at_runs_guard guard = AT_RUNS_GUARD_INIT;
	struct at_error aerr = AT_ERROR_INIT;
	bool keep = a->o->keep;
	int lock = -1, rc;

	rc = at_lock_acquire(at_repo_paths(a->r), &lock, err);
	if (rc == 0)
		rc = at_task_resolve(a->r, out->task.name, ".", &out->task, err);
	/* A part moves the task's branch and index: no command of it runs meanwhile. */
	if (rc == 0 && (!a->o->keep || a->partial))
		rc = at_runs_stop(at_repo_paths(a->r), out->task.name, a->o->force, &guard, err);
	if (rc == 0)
		rc = merge_staged(a, out, err);
	/* What was not accepted stays in the task, unless it went to the trash. */
	if (rc == 0 && out->partial && !a->o->drop_rest)
		keep = true;
	if (rc == 0)
		at_app_audited(&out->warnings, out->task.name,
			       at_audit_accept(at_repo_paths(a->r), out->task.name,
					       out->merge.base_branch, &out->merge.new_tip,
					       at_merge_kind_name(out->merge.kind), &aerr), &aerr);
	/* The base has moved: a failure from here on is reported, not returned. */
	if (rc == 0 && keep)
		kept_reviewed(a, out);
	if (rc == 0 && !keep)
		out->remove_failed = at_app_task_remove(a->r, &out->task, &out->remove_err) < 0;
	at_runs_release(&guard, rc == 0 && !keep && !out->remove_failed);
	at_lock_release(lock);
	return rc;
}

/* The pathspec and --exclude from the top of the tree; "." alone is the whole change. */
static int pathspecs(const struct at_app *app, struct accept *a, const struct at_task *t,
		     struct at_error *err)
{
	const struct at_app_accept_opts *o = a->o;
	int rc;

	if ((rc = at_app_pathspec(app->dir, t->path, at_repo_workdir(a->r), o->paths, o->npaths,
				  &a->paths, err)) < 0 ||
	    (rc = at_app_pathspec(app->dir, t->path, at_repo_workdir(a->r), o->exclude,
				  o->nexclude, &a->exclude, err)) < 0)
		return rc;
	if (o->nexclude && !a->exclude.n)
		return at_error_set(err, AT_EUSAGE, "--exclude '%s' leaves nothing to accept",
				    o->exclude[0]);
	a->partial = a->paths.n || a->exclude.n || o->drop_rest || o->pick_tree;
	return 0;
}

int at_app_accept(const struct at_app *app, const struct at_app_accept_opts *o,
		  struct at_app_accept_result *out, struct at_error *err)
{
	struct accept a;
	int rc;

	memset(out, 0, sizeof(*out));
	memset(&a, 0, sizeof(a));
	a.o = o;
	a.merge.mode = o->mode;
	a.merge.message = o->message;
	/*
	 * A message asks for a commit; a fast-forward makes none and would drop
	 * it (as git merge -m does, silently). So a message makes a merge commit
	 * where a fast-forward would do (and is refused with FF_ONLY, above).
	 */
	if (o->message && o->mode == AT_MERGE_AUTO)
		a.merge.mode = AT_MERGE_NO_FF;
	rc = at_app_accept_check(o, err);
	if (rc == 0)
		rc = at_app_open(app, &a.r, err);
	if (rc == 0)
		rc = at_app_resolve(app, a.r, o->name, &out->task, err);
	if (rc == 0 && gone_refused(a.r, &out->task, err))
		rc = err->code;
	if (rc == 0)
		rc = pathspecs(app, &a, &out->task, err);
	/* The task's commits first: what is merged is what it did, history and all. */
	if (rc == 0)
		rc = at_app_import_before(a.r, &out->task, NULL, err);
	if (rc == 0)
		rc = unlocked(app, &a, out, err);
	if (rc == 0)
		rc = locked(&a, out, err);
	at_strlist_release(&a.paths);
	at_strlist_release(&a.exclude);
	at_repo_free(a.r);
	return rc;
}

void at_app_accept_result_release(struct at_app_accept_result *res)
{
	if (!res)
		return;
	at_merge_result_release(&res->merge);
	at_gate_report_free(res->failed_gate);
	res->failed_gate = NULL;
	at_strlist_release(&res->notes);
	at_strlist_release(&res->host_files);
	at_strlist_release(&res->warnings);
	at_strlist_release(&res->taken);
	at_strlist_release(&res->left);
}
