#include "git/snapshot.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/trace.h"
#include "core/util.h"
#include "git/internal.h"
#include "git/scan.h"

/*
 * An untracked repository inside the worktree (an agent's `git clone`, say)
 * is reported as "dir/": record it as git does, a gitlink to its HEAD.
 */
static int add_path(git_index *idx, const char *path)
{
	size_t len = strlen(path);
	char *dir;
	int rc;

	if (len < 2 || path[len - 1] != '/')
		return git_index_add_bypath(idx, path);
	dir = strndup(path, len - 1);
	if (!dir)
		return -1;
	rc = git_index_add_bypath(idx, dir);
	free(dir);
	return rc;
}

static int apply_change(git_index *idx, bool deleted, const char *path, const char *name,
			struct at_error *err)
{
	if ((deleted ? git_index_remove_bypath(idx, path) : add_path(idx, path)) < 0)
		return at_git_error(err, AT_EGIT, "cannot record '%s' of task '%s'", path, name);
	return 0;
}

/*
 * Bring the in-memory index of the worktree up to its files (what `git add
 * -A` does): from at_scan_worktree(), else from libgit2's index-to-workdir
 * diff where the scan declines.
 */
static int index_add_changes(git_repository *wt, git_index *idx, const char *name,
			     struct at_error *err)
{
	git_diff_options dopts = GIT_DIFF_OPTIONS_INIT;
	struct at_scan scan = AT_SCAN_INIT;
	git_diff *diff = NULL;
	size_t i, n;
	int rc;

	at_trace("scan", git_repository_workdir(wt));
	rc = at_scan_worktree(wt, idx, &scan, err);
	for (i = 0; rc == 0 && i < scan.n; i++)
		rc = apply_change(idx, scan.v[i].kind == AT_SCAN_DELETED, scan.v[i].path, name, err);
	at_scan_free(&scan);
	if (rc != AT_SCAN_DECLINED)
		return rc;
	rc = 0;

	dopts.flags = GIT_DIFF_INCLUDE_UNTRACKED | GIT_DIFF_RECURSE_UNTRACKED_DIRS |
		      GIT_DIFF_INCLUDE_TYPECHANGE;
	dopts.ignore_submodules = GIT_SUBMODULE_IGNORE_ALL;
	at_trace("scan", git_repository_workdir(wt));
	if (git_diff_index_to_workdir(&diff, wt, idx, &dopts) < 0)
		return at_git_error(err, AT_EGIT, "cannot compare the worktree of task '%s'", name);
	n = git_diff_num_deltas(diff);
	for (i = 0; rc == 0 && i < n; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		const char *path = d->new_file.path ? d->new_file.path : d->old_file.path;

		rc = apply_change(idx, d->status == GIT_DELTA_DELETED, path, name, err);
	}
	git_diff_free(diff);
	return rc;
}

/* What turns HEAD's tree into the index's: an upsert or a removal per differing path. */
struct tree_updates {
	git_tree_update *v;
	size_t n;
};

static int collect_update(const git_diff_delta *d, float progress, void *payload)
{
	struct tree_updates *u = payload;
	git_tree_update *up = &u->v[u->n++];

	(void)progress;
	memset(up, 0, sizeof(*up));
	if (d->status == GIT_DELTA_DELETED) {
		up->action = GIT_TREE_UPDATE_REMOVE;
		up->path = d->old_file.path;
	} else {
		up->action = GIT_TREE_UPDATE_UPSERT;
		up->path = d->new_file.path;
		git_oid_cpy(&up->id, &d->new_file.id);
		up->filemode = (git_filemode_t)d->new_file.mode;
	}
	return 0;
}

/*
 * The tree of the index, built from HEAD's tree with only the paths where
 * the index differs from it: every other subtree is HEAD's, as is, instead
 * of being hashed again from the index's entries. Returns 1 when it cannot
 * (no HEAD, conflicts, a path that changes between file and directory or
 * to and from a gitlink, which git_tree_create_updated() refuses): the
 * caller then writes the whole index, and reports any error.
 */
static int tree_from_head(git_repository *wt, git_index *idx, git_oid *out)
{
	git_diff_options dopts = GIT_DIFF_OPTIONS_INIT;
	struct tree_updates u = { NULL, 0 };
	git_object *head = NULL;
	git_diff *diff = NULL;
	int rc = 1;

	dopts.flags = GIT_DIFF_INCLUDE_TYPECHANGE;
	dopts.ignore_submodules = GIT_SUBMODULE_IGNORE_NONE;
	if (git_index_has_conflicts(idx) ||
	    git_revparse_single(&head, wt, "HEAD^{tree}") < 0 ||
	    git_diff_tree_to_index(&diff, wt, (git_tree *)head, idx, &dopts) < 0)
		goto out;
	u.v = calloc(git_diff_num_deltas(diff) + 1, sizeof(*u.v));
	if (!u.v || git_diff_foreach(diff, collect_update, NULL, NULL, NULL, &u) < 0)
		goto out;
	if (git_tree_create_updated(out, wt, (git_tree *)head, u.n, u.v) == 0)
		rc = 0;
out:
	git_error_clear();
	free(u.v);
	git_diff_free(diff);
	git_object_free(head);
	return rc;
}

static int snapshot(git_repository *wt, const struct at_task *t, git_index **idx_out,
		    git_oid *tree_out, struct at_error *err)
{
	git_index *idx = NULL;
	int rc;

	if (git_repository_index(&idx, wt) < 0)
		return at_git_error(err, AT_EGIT, "cannot read the index of task '%s'", t->name);
	rc = index_add_changes(wt, idx, t->name, err);
	/*
	 * An index that will be written keeps writing its tree in full: that
	 * fills its cached-tree extension, which later snapshots and git reuse.
	 */
	if (rc == 0 && (idx_out || tree_from_head(wt, idx, tree_out) != 0) &&
	    git_index_write_tree(tree_out, idx) < 0)
		rc = at_git_error(err, AT_EGIT, "cannot write the tree of task '%s'", t->name);
	if (rc == 0 && idx_out)
		*idx_out = idx;
	else
		git_index_free(idx);
	return rc;
}

int at_git_snapshot_tree(git_repository *wt, const struct at_task *t, git_oid *tree, bool *fast,
			 struct at_error *err)
{
	char cache[PATH_MAX];
	int rc;

	rc = at_fmt(cache, sizeof(cache), "%sagenttask/cache/%s.scan", git_repository_commondir(wt),
		    t->name);
	rc = at_git_snapshot_fast(wt, rc == 0 ? cache : NULL, tree, err);

	*fast = rc == 0;
	return rc == AT_SNAPSHOT_DECLINED ? snapshot(wt, t, NULL, tree, err) : rc;
}

bool at_worktree_present(const struct at_task *t)
{
	char pointer[PATH_MAX + 8];
	struct stat st;

	return at_fmt(pointer, sizeof(pointer), "%s/.git", t->path) == 0 &&
	       lstat(t->path, &st) == 0 && S_ISDIR(st.st_mode) && lstat(pointer, &st) == 0;
}

int at_worktree_open(struct at_worktree **out, struct at_repo *r, const struct at_task *t,
		     struct at_error *err)
{
	struct at_worktree *w;
	int rc;

	if (!(w = calloc(1, sizeof(*w))))
		return at_error_set(err, AT_ESYS, "out of memory");
	w->r = r;
	w->task = *t;
	if ((rc = at_git_open_worktree(&w->repo, t, err)) < 0) {
		free(w);
		return rc;
	}
	*out = w;
	return 0;
}

void at_worktree_free(struct at_worktree *w)
{
	if (!w)
		return;
	git_index_free(w->staged);
	git_repository_free(w->repo);
	free(w);
}

/* The commit HEAD of wt names: the task branch's tip, as the worktree sees it. */
static int head_commit(git_repository *wt, const struct at_task *t, git_oid *out,
		       struct at_error *err)
{
	if (git_reference_name_to_id(out, wt, "HEAD") < 0)
		return at_git_error(err, AT_EGIT, "cannot read HEAD of task '%s'", t->name);
	return 0;
}

static int tip_only(struct at_repo *r, const struct at_task *t, struct at_task_state *out,
		    struct at_error *err)
{
	git_commit *tip = NULL;
	git_oid id;
	int rc = 0;

	if (git_reference_name_to_id(&id, r->repo, t->branch) < 0 ||
	    git_commit_lookup(&tip, r->repo, &id) < 0)
		return at_git_error(err, AT_EGIT, "cannot read branch '%s'",
				    at_branch_short(t->branch));
	at_oid_from_git(&out->tip, &id);
	at_oid_from_git(&out->tree, git_commit_tree_id(tip));
	out->worktree = false;
	git_commit_free(tip);
	return rc;
}

int at_task_state(struct at_repo *r, const struct at_task *t, struct at_worktree *w,
		  struct at_task_state *out, struct at_error *err)
{
	struct at_task_state st;
	git_oid tip, tree;
	int rc;

	memset(&st, 0, sizeof(st));
	if (!w)
		rc = tip_only(r, t, &st, err);
	else if ((rc = head_commit(w->repo, t, &tip, err)) == 0 &&
		 (rc = at_git_snapshot_tree(w->repo, t, &tree, &w->fast, err)) == 0) {
		at_oid_from_git(&st.tip, &tip);
		at_oid_from_git(&st.tree, &tree);
		st.worktree = true;
	}
	if (rc == 0)
		*out = st;
	return rc;
}

int at_worktree_stage(struct at_worktree *w, struct at_task_state *out, struct at_error *err)
{
	git_index *idx = NULL;
	git_oid tip, tree;
	int rc;

	/* A diff replaced the repository's index for its attribute lookups: not the real one. */
	if (w->index_replaced)
		return at_error_set(err, AT_EUSAGE, "the worktree of task '%s' was opened for a "
				    "diff: open it again to commit", w->task.name);
	if ((rc = head_commit(w->repo, &w->task, &tip, err)) < 0 ||
	    (rc = snapshot(w->repo, &w->task, &idx, &tree, err)) < 0)
		return rc;
	git_index_free(w->staged);
	w->staged = idx;
	git_oid_cpy(&w->staged_tip, &tip);
	memset(out, 0, sizeof(*out));
	at_oid_from_git(&out->tip, &tip);
	at_oid_from_git(&out->tree, &tree);
	out->worktree = true;
	git_oid_cpy(&w->staged_tree, &tree);
	return 0;
}

static int build_message(char **out, const struct at_task *t, const struct at_commit_opts *o)
{
	const char *msg = o && o->message ? o->message : NULL;
	const char *trailer = o ? o->trailer : NULL;
	char *buf = NULL;
	int n;

	if (msg && trailer)
		n = asprintf(&buf, "%s\n\n%s\n", msg, trailer);
	else if (msg)
		n = asprintf(&buf, "%s\n", msg);
	else if (trailer)
		n = asprintf(&buf, "agenttask: changes of task '%s'\n\n%s\n", t->name, trailer);
	else
		n = asprintf(&buf, "agenttask: changes of task '%s'\n", t->name);
	if (n < 0)
		return -1;
	*out = buf;
	return 0;
}

/* Staged on the tip HEAD still names, or refuse: the state was taken on another tip. */
static int staged_parent(struct at_worktree *w, git_commit **out, struct at_error *err)
{
	git_oid head;
	int rc;

	if (!w->staged)
		return at_error_set(err, AT_EUSAGE, "nothing staged in task '%s'", w->task.name);
	if ((rc = head_commit(w->repo, &w->task, &head, err)) < 0)
		return rc;
	if (!git_oid_equal(&head, &w->staged_tip))
		return at_error_set(err, AT_ESTALE, "the branch of task '%s' moved while it was "
				    "being committed", w->task.name);
	if (git_commit_lookup(out, w->repo, &head) < 0)
		return at_git_error(err, AT_EGIT, "cannot read HEAD of task '%s'", w->task.name);
	return 0;
}

int at_worktree_commit(struct at_worktree *w, const struct at_commit_opts *opts,
		       struct at_oid *commit, bool *made, struct at_error *err)
{
	git_signature *sig = NULL;
	git_commit *parent = NULL;
	git_tree *tree = NULL;
	git_oid commit_id;
	char *msg = NULL;
	int rc;

	if ((rc = staged_parent(w, &parent, err)) < 0)
		goto out;
	if (git_oid_equal(&w->staged_tree, git_commit_tree_id(parent))) {
		at_oid_from_git(commit, git_commit_id(parent));
		*made = false;
		goto out;
	}
	if (git_tree_lookup(&tree, w->repo, &w->staged_tree) < 0 ||
	    (rc = at_git_signature(&sig, w->repo, err)) < 0 || build_message(&msg, &w->task, opts) < 0) {
		rc = rc < 0 ? rc : at_git_error(err, AT_EGIT, "cannot prepare commit of task '%s'",
						w->task.name);
		goto out;
	}
	/* The index first: a crash between the two leaves changes staged, not lost. */
	if (git_index_write(w->staged) < 0 ||
	    git_commit_create_v(&commit_id, w->repo, "HEAD", sig, sig, NULL, msg, tree, 1, parent) <
		    0) {
		rc = at_git_error(err, AT_EGIT, "cannot commit in task '%s'", w->task.name);
		goto out;
	}
	at_oid_from_git(commit, &commit_id);
	git_oid_cpy(&w->staged_tip, &commit_id);
	*made = true;
out:
	free(msg);
	git_signature_free(sig);
	git_tree_free(tree);
	git_commit_free(parent);
	return rc;
}
