#include "git/merge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "core/array.h"
#include "core/util.h"
#include "git/apply_paths.h"
#include "git/internal.h"
#include "git/snapshot.h"
#include "git/wtread.h"

/* Path lists */

static int path_list_add(struct at_strlist *l, const char *path, struct at_error *err)
{
	if (at_strlist_push(l, path) < 0)
		return at_error_set(err, AT_ESYS, "out of memory");
	return 0;
}

static git_strarray path_list_strarray(const struct at_strlist *l)
{
	git_strarray sa = { l->v, l->n };

	return sa;
}

/* Small lookups */

/* The commit a branch points at; `what` names the branch in messages ("base branch"). */
static int ref_commit(git_repository *repo, const char *ref, const char *what, git_commit **out,
		      struct at_error *err)
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

/* In-memory merges */

static int collect_conflicts(git_index *idx, struct at_strlist *out, struct at_error *err)
{
	const git_index_entry *anc, *ours, *theirs;
	git_index_conflict_iterator *it = NULL;
	int rc, grc;

	if (git_index_conflict_iterator_new(&it, idx) < 0)
		return at_git_error(err, AT_EGIT, "cannot list merge conflicts");
	rc = 0;
	while (rc == 0 && (grc = git_index_conflict_next(&anc, &ours, &theirs, it)) == 0) {
		const char *p = ours ? ours->path : theirs ? theirs->path : anc->path;

		rc = path_list_add(out, p, err);
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
		rc = collect_conflicts(idx, conflicts, err);
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

struct plan {
	enum at_merge_kind kind;
	git_oid tree;            /* the tree the base branch will have */
};

/* Decide how theirs goes into base, and the resulting tree; nothing is written to refs. */
static int plan_merge(git_repository *repo, const struct at_task *t, enum at_merge_mode mode,
		      git_commit *base, git_commit *theirs, struct plan *out,
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
static int pending_commit(git_repository *repo, git_commit *tip, const git_oid *tree_id,
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
static int changed_paths(git_repository *repo, git_tree *from, git_tree *to, uint64_t max,
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
		rc = path_list_add(out, d->old_file.path, err);
		if (rc == 0 && strcmp(d->old_file.path, d->new_file.path) != 0)
			rc = path_list_add(out, d->new_file.path, err);
	}
	git_odb_free(odb);
	git_diff_free(diff);
	at_strlist_sort_unique(out);
	return rc;
}

/* Worktrees where the base branch is checked out */

struct checkout {
	git_repository *repo;    /* freed with the list unless it is the main repository */
	bool owned;
	char path[PATH_MAX];
};

struct checkouts {
	struct checkout *v;
	size_t n, cap;
};

static void checkouts_release(struct checkouts *c)
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
static int consider(struct checkouts *c, git_repository *repo, bool owned, const char *branch,
		    struct at_error *err)
{
	struct checkout co = { repo, owned, "" };
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

static int find_checkouts(git_repository *main_repo, const char *branch, struct checkouts *out,
			  struct at_error *err)
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
static bool written_not_staged(struct checkout *co, const git_status_entry *s,
			       git_tree *new_tree)
{
	const git_diff_delta *d = s->index_to_workdir;

	return !s->head_to_index && d && at_apply_path_is_new(co->repo, new_tree, d->old_file.path);
}

/* The user's uncommitted changes (staged, unstaged, untracked, ignored) among paths. */
static int dirty_paths(struct checkout *co, const struct at_strlist *paths, git_tree *new_tree,
		       struct at_strlist *out, struct at_error *err)
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
			rc = path_list_add(out, d->old_file.path, err);
	}
	git_status_list_free(list);
	at_strlist_sort_unique(out);
	return rc;
}

static int check_checkouts(struct checkouts *cos, const struct at_strlist *paths,
			   git_tree *new_tree, struct at_strlist *dirty, struct at_error *err)
{
	char lock[PATH_MAX];
	struct stat st;
	size_t i;
	int rc;

	for (i = 0; i < cos->n; i++) {
		struct checkout *co = &cos->v[i];

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
static int checkout_paths(struct checkout *co, git_tree *to, const struct at_strlist *paths,
			  struct at_error *err)
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

/* Commit messages */

static void write_subjects(FILE *f, git_repository *repo, git_commit *base, git_commit *tip)
{
	git_revwalk *walk = NULL;
	git_commit *c = NULL;
	git_oid id;

	if (git_revwalk_new(&walk, repo) < 0 ||
	    git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE) < 0 ||
	    git_revwalk_push(walk, git_commit_id(tip)) < 0 ||
	    git_revwalk_hide(walk, git_commit_id(base)) < 0)
		goto out;
	while (git_revwalk_next(&id, walk) == 0) {
		if (git_commit_lookup(&c, repo, &id) < 0)
			break;
		fprintf(f, "* %s\n", git_commit_summary(c) ? git_commit_summary(c) : "");
		git_commit_free(c);
	}
out:
	git_error_clear();
	git_revwalk_free(walk);
}

static void write_body(FILE *f, git_repository *repo, const struct at_task *t,
		       const struct at_merge_opts *o, enum at_merge_kind kind, git_commit *base,
		       git_commit *tip)
{
	git_buf pretty = { NULL, 0, 0 };

	if (o->message && git_message_prettify(&pretty, o->message, 0, '#') == 0 && pretty.size) {
		fputs(pretty.ptr, f);
	} else if (kind == AT_MERGED_SQUASH) {
		fprintf(f, "Squashed task '%s' (%s)\n\n", t->name, at_branch_short(t->branch));
		write_subjects(f, repo, base, tip);
	} else {
		fprintf(f, "Merge task '%s' (%s) into %s\n", t->name, at_branch_short(t->branch),
			at_branch_short(t->base_branch));
	}
	git_buf_dispose(&pretty);
	git_error_clear();
}

static char *build_message(git_repository *repo, const struct at_task *t,
			   const struct at_merge_opts *o, enum at_merge_kind kind,
			   git_commit *base, git_commit *tip)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	write_body(f, repo, t, o, kind, base, tip);
	if (o->trailer)
		fprintf(f, "\n%s\n", o->trailer);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
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
	struct plan plan;
	struct at_strlist changed;   /* paths that differ between base_tree and new_tree */
	struct checkouts cos;
	git_oid new_tip;
};

static void accept_release(struct accept *a)
{
	git_commit_free(a->base);
	git_commit_free(a->tip);
	git_tree_free(a->base_tree);
	git_tree_free(a->new_tree);
	at_strlist_release(&a->changed);
	checkouts_release(&a->cos);
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
	if ((rc = ref_commit(repo, a->t->base_branch, "base branch", &a->base, err)) < 0 ||
	    (rc = ref_commit(repo, a->t->branch, "task branch", &task_tip, err)) < 0 ||
	    (rc = check_tip(a, task_tip, err)) < 0 ||
	    (rc = check_tree(a->t, &a->state_tree, a->o->expect_tree, "review", err)) < 0 ||
	    (rc = check_tree(a->t, &a->state_tree, a->o->gated_tree, "the gate ran", err)) < 0 ||
	    (rc = pending_commit(repo, task_tip, &a->state_tree, &a->tip, err)) < 0 ||
	    (rc = plan_merge(repo, a->t, a->o->mode, a->base, a->tip, &a->plan, &res->paths,
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
	    (rc = changed_paths(repo, a->base_tree, a->new_tree, max_size, &a->changed, err)) == 0 &&
	    (rc = find_checkouts(repo, a->t->base_branch, &a->cos, err)) == 0)
		rc = check_checkouts(&a->cos, &a->changed, a->new_tree, &res->paths, err);
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
	msg = build_message(a->r->repo, a->t, a->o, a->plan.kind, a->base, a->tip);
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
		rc = checkout_paths(&a->cos.v[done], a->new_tree, &a->changed, err);
		if (rc == AT_EDIRTY)
			break;   /* refused before writing: nothing to put back there */
	}
	if (rc == 0)
		rc = move_ref(a, err);
	if (rc < 0)
		for (i = 0; i < done; i++)
			checkout_paths(&a->cos.v[i], a->base_tree, &a->changed, &ignored);
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

	if ((rc = ref_commit(r->repo, t->branch, "task branch", &tip, err)) < 0)
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
		rc = collect_conflicts(idx, &pv->conflicts, err);
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
		rc = ref_commit(r->repo, t->base_branch, "base branch", &base, err);
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

	if (t->base_branch[0] && ref_commit(r->repo, t->branch, "branch", &tip, &ignored) == 0 &&
	    ref_commit(r->repo, t->base_branch, "base branch", &base, &ignored) == 0)
		landed = git_oid_equal(git_commit_id(tip), git_commit_id(base)) ||
			 git_graph_descendant_of(r->repo, git_commit_id(base), git_commit_id(tip)) == 1;
	git_commit_free(tip);
	git_commit_free(base);
	git_error_clear();
	return landed;
}
