#include "git/snapshot.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int at_snapshot_tree(struct at_repo *r, const struct at_task *t, char tree_hex[AT_OID_HEXSZ + 1],
		     struct at_error *err)
{
	git_repository *wt = NULL;
	git_oid tree;
	bool fast;
	int rc;

	(void)r;
	if ((rc = at_git_open_worktree(&wt, t, err)) < 0)
		return rc;
	rc = at_git_snapshot_tree(wt, t, &tree, &fast, err);
	if (rc == 0)
		at_git_oid_hex(tree_hex, &tree);
	git_repository_free(wt);
	return rc;
}

static int build_message(char **out, const struct at_task *t, const struct at_commit_opts *o)
{
	const char *msg = o && o->message ? o->message : NULL;
	const char *trailer = o ? o->trailer : NULL;
	char dflt[128];
	size_t len;
	char *buf;

	if (!msg) {
		snprintf(dflt, sizeof(dflt), "agenttask: changes of task '%s'", t->name);
		msg = dflt;
	}
	len = strlen(msg) + (trailer ? strlen(trailer) : 0) + 4;
	buf = malloc(len);
	if (!buf)
		return -1;
	if (trailer)
		snprintf(buf, len, "%s\n\n%s\n", msg, trailer);
	else
		snprintf(buf, len, "%s\n", msg);
	*out = buf;
	return 0;
}

int at_task_commit(struct at_repo *r, const struct at_task *t, const struct at_commit_opts *opts,
		   char commit_hex[AT_OID_HEXSZ + 1], bool *made, struct at_error *err)
{
	git_repository *wt = NULL;
	git_signature *sig = NULL;
	git_commit *parent = NULL;
	git_index *idx = NULL;
	git_tree *tree = NULL;
	git_oid tree_id, commit_id;
	char *msg = NULL;
	int rc;

	(void)r;
	if ((rc = at_git_open_worktree(&wt, t, err)) < 0)
		return rc;
	if ((rc = snapshot(wt, t, &idx, &tree_id, err)) < 0)
		goto out;
	if (git_revparse_single((git_object **)&parent, wt, "HEAD^{commit}") < 0) {
		rc = at_git_error(err, AT_EGIT, "cannot read HEAD of task '%s'", t->name);
		goto out;
	}
	if (git_oid_equal(&tree_id, git_commit_tree_id(parent))) {
		at_git_oid_hex(commit_hex, git_commit_id(parent));
		*made = false;
		goto out;
	}
	if (git_tree_lookup(&tree, wt, &tree_id) < 0 || (rc = at_git_signature(&sig, wt, err)) < 0 ||
	    build_message(&msg, t, opts) < 0) {
		rc = rc < 0 ? rc : at_git_error(err, AT_EGIT, "cannot prepare commit of task '%s'", t->name);
		goto out;
	}
	/* The index first: a crash between the two leaves changes staged, not lost. */
	if (git_index_write(idx) < 0 ||
	    git_commit_create_v(&commit_id, wt, "HEAD", sig, sig, NULL, msg, tree, 1, parent) < 0) {
		rc = at_git_error(err, AT_EGIT, "cannot commit in task '%s'", t->name);
		goto out;
	}
	at_git_oid_hex(commit_hex, &commit_id);
	*made = true;
out:
	free(msg);
	git_signature_free(sig);
	git_tree_free(tree);
	git_commit_free(parent);
	git_index_free(idx);
	git_repository_free(wt);
	return rc;
}
