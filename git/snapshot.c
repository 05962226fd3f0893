#include "git/snapshot.h"

#include "core/fs.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/trace.h"
#include "core/util.h"
#include "core/change.h"
#include "git/internal.h"
#include "git/layerstate.h"
#include "git/scan.h"
#include "git/wtread.h"

/* What git add records for a file: its blob and mode, and its stat data for the index. */
static void entry_of(git_index_entry *e, const char *path, const git_oid *id, git_filemode_t mode,
		     const struct stat *st)
{
	memset(e, 0, sizeof(*e));
	e->ctime.seconds = (int32_t)st->st_ctim.tv_sec;
	e->ctime.nanoseconds = (uint32_t)st->st_ctim.tv_nsec;
	e->mtime.seconds = (int32_t)st->st_mtim.tv_sec;
	e->mtime.nanoseconds = (uint32_t)st->st_mtim.tv_nsec;
	e->dev = (uint32_t)st->st_dev;
	e->ino = (uint32_t)st->st_ino;
	e->uid = st->st_uid;
	e->gid = st->st_gid;
	e->file_size = (uint32_t)st->st_size;
	e->mode = mode;   /* git_index_add merges it with core.filemode and core.symlinks */
	e->path = path;
	git_oid_cpy(&e->id, id);
}

static int record(git_index *idx, struct at_wt_hasher *h, const char *path, const char *name,
		  struct at_error *err)
{
	git_index_entry e;
	git_filemode_t mode;
	struct stat st;
	git_oid id;
	char esc[200];
	int rc = at_wt_hash(h, path, &id, &mode, &st, err);

	if (rc < 0)
		return rc;
	if (rc == 0)
		entry_of(&e, path, &id, mode, &st);
	/* Gone since the scan, or a directory now: what it held is the next scan's. */
	if ((rc == 1 ? git_index_remove_bypath(idx, path) : git_index_add(idx, &e)) < 0)
		return at_git_error(err, AT_EGIT, "cannot record '%s' of task '%s'",
				    at_esc(esc, sizeof(esc), path), name);
	return 0;
}

/*
 * Bring the index up to the worktree's files (what `git add -A` does), from
 * the scan: removals first, so that a path turning between file and
 * directory never meets its old self.
 */
static int index_add_changes(const struct at_snap *s, git_index *idx, struct at_error *err)
{
	struct at_scan scan = AT_SCAN_INIT;
	struct at_wt_hasher h;
	char esc[200];
	size_t i;
	int rc;

	memset(&h, 0, sizeof(h));
	h.root = -1;
	at_trace("scan", s->t->path);
	if ((rc = at_scan_worktree(s->wt, s->t->path, idx, &scan, err)) == 0)
		rc = at_git_hasher_init(&h, s, &scan, err);
	for (i = 0; rc == 0 && i < scan.n; i++)
		if (scan.v[i].kind == AT_SCAN_DELETED &&
		    git_index_remove_bypath(idx, scan.v[i].path) < 0)
			rc = at_git_error(err, AT_EGIT, "cannot record '%s' of task '%s'",
					  at_esc(esc, sizeof(esc), scan.v[i].path), s->t->name);
	for (i = 0; rc == 0 && i < scan.n; i++)
		if (scan.v[i].kind != AT_SCAN_DELETED)
			rc = record(idx, &h, scan.v[i].path, s->t->name, err);
	at_git_hasher_release(&h);
	at_scan_free(&scan);
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

/* The task's index, as git reads it; not the repository's, whose index holds attributes. */
static int open_index(git_repository *wt, git_index **out, struct at_error *err)
{
	char path[PATH_MAX];
	int caps = 0;

	if (at_fmt(path, sizeof(path), "%sindex", git_repository_path(wt)) < 0 ||
	    git_index_open(out, path) < 0)
		return at_git_error(err, AT_EGIT, "cannot read the index '%s'", path);
	if (!at_git_config_bool(wt, "core.filemode", true))
		caps |= GIT_INDEX_CAPABILITY_NO_FILEMODE;
	if (!at_git_config_bool(wt, "core.symlinks", true))
		caps |= GIT_INDEX_CAPABILITY_NO_SYMLINKS;
	if (git_index_set_caps(*out, caps) < 0) {
		git_index_free(*out);
		return at_git_error(err, AT_EGIT, "cannot read the index '%s'", path);
	}
	return 0;
}

static int snapshot(const struct at_snap *s, git_index **idx_out, git_oid *tree_out,
		    struct at_error *err)
{
	git_index *idx = NULL;
	int rc;

	if ((rc = open_index(s->wt, &idx, err)) < 0)
		return rc;
	rc = index_add_changes(s, idx, err);
	/*
	 * An index that will be written keeps writing its tree in full: that
	 * fills its cached-tree extension, which later snapshots and git reuse.
	 */
	if (rc == 0 && (idx_out || tree_from_head(s->wt, idx, tree_out) != 0) &&
	    git_index_write_tree_to(tree_out, idx, s->wt) < 0)
		rc = at_git_error(err, AT_EGIT, "cannot write the tree of task '%s'", s->t->name);
	if (rc == 0 && idx_out)
		*idx_out = idx;
	else
		git_index_free(idx);
	return rc;
}

static int snap_init(struct at_snap *s, const struct at_repo *r, git_repository *wt,
		     const struct at_task *t, char *cache, size_t size, struct at_error *err)
{
	/* A worktree deleted by hand: say so, and what to do about it (core/task.h). */
	if (!at_path_exists(t->path))
		return at_task_worktree_gone(t, err);
	s->wt = wt;
	s->t = t;
	s->cache_path = at_paths_scan(&r->paths, t->name, cache, size, NULL) == 0 ? cache : NULL;
	return at_repo_max_file_size(r, &s->max_file_size, err);
}

int at_git_snapshot_tree(const struct at_repo *r, git_repository *wt, const struct at_task *t,
			 git_oid *tree, git_oid *index, struct at_error *err)
{
	char cache[PATH_MAX];
	struct at_snap s;
	int rc;

	if ((rc = snap_init(&s, r, wt, t, cache, sizeof(cache), err)) < 0)
		return rc;
	if (index)
		memset(index, 0, sizeof(*index));   /* the general path does not say */
	rc = at_git_snapshot_fast(&s, tree, index, err);
	return rc == AT_SNAPSHOT_DECLINED ? snapshot(&s, NULL, tree, err) : rc;
}

bool at_worktree_present(const struct at_task *t)
{
	char pointer[PATH_MAX + 8];
	struct stat st;

	if (at_task_is_layered(t))   /* its files are its layer over its base: layered_tree */
		return lstat(t->upper, &st) == 0 && S_ISDIR(st.st_mode);
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
	if ((rc = at_git_open_task_repo(&w->repo, t, err)) < 0) {
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

/* A diff of w holds its attributes in w's repository: hashing now would replace them. */
static int check_no_diff(const struct at_worktree *w, struct at_error *err)
{
	if (w && w->diffs)
		return at_error_set(err, AT_EUSAGE, "the worktree of task '%s' has a diff open: "
				    "free it before taking its state again", w->task.name);
	return 0;
}

/*
 * Is the task's index still its base's (the hard link new made: git never
 * writes an index in place)? Then what it tracks is the base tree's paths,
 * and the index need not be read: a layered state costs its upper alone.
 */
static bool same_index(const struct at_paths *p, const struct at_task *t, const char *index)
{
	struct at_error ignored = AT_ERROR_INIT;
	char base[PATH_MAX];
	struct stat a, b;

	return at_paths_base_index(p, t->base_tree, base, sizeof(base), &ignored) == 0 &&
	       lstat(index, &a) == 0 && lstat(base, &b) == 0 && S_ISREG(a.st_mode) &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/*
 * A layered task's state tree (core/task.h): read from its upper only
 * (git/layerstate.h), over the base whose checkout is its lower, with its
 * index saying what is tracked. changes (or NULL) gets what differs from
 * the base's tree.
 */
static int layered_tree(struct at_worktree *w, git_oid *tree, struct at_change_set *changes,
			struct at_error *err)
{
	const struct at_paths *p = at_repo_paths(w->r);
	char lower[PATH_MAX], upper[PATH_MAX], index[PATH_MAX];
	struct at_oid base, out;
	int lfd = -1, ufd = -1, rc;

	/* Its layer deleted by hand: say so, and what to do about it (core/task.h). */
	if (!at_worktree_present(&w->task))
		return at_task_worktree_gone(&w->task, err);
	if (at_paths_base_files(p, w->task.base_tree, lower, sizeof(lower), err) < 0 ||
	    at_paths_layer_upper(p, w->task.name, upper, sizeof(upper), err) < 0)
		return err->code;
	if (at_fmt(index, sizeof(index), "%s/index", w->task.admin_dir) < 0 ||
	    at_oid_parse(&base, w->task.base_tree) < 0)
		return at_error_set(err, AT_ECORRUPT, "the layer of task '%s' is unusable",
				    w->task.name);
	at_trace("layer", upper);
	lfd = open(lower, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	ufd = open(upper, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (lfd < 0 || ufd < 0)
		rc = at_error_sys(err, AT_ECORRUPT, "cannot open the layers of task '%s' ('%s')",
				  w->task.name, lfd < 0 ? lower : upper);
	else
		rc = at_layer_state(w->r, &w->task, &base, lfd, ufd, same_index(p, &w->task, index) ? NULL : index,
				    &out, changes, err);
	if (rc == 0)
		at_oid_to_git(tree, &out);
	if (lfd >= 0)
		close(lfd);
	if (ufd >= 0)
		close(ufd);
	return rc;
}

/* The tree of the worktree's files, whatever its form. */
static int worktree_tree(struct at_repo *r, struct at_worktree *w, git_oid *tree,
			 git_oid *index, struct at_error *err)
{
	if (at_task_is_layered(&w->task))
		return layered_tree(w, tree, NULL, err);
	return at_git_snapshot_tree(r, w->repo, &w->task, tree, index, err);
}

int at_task_state(struct at_repo *r, const struct at_task *t, struct at_worktree *w,
		  struct at_task_state *out, struct at_error *err)
{
	struct at_task_state st;
	git_oid tip, tree, index;
	int rc;

	memset(&st, 0, sizeof(st));
	memset(&index, 0, sizeof(index));
	if ((rc = check_no_diff(w, err)) < 0)
		return rc;
	if (!w)
		rc = tip_only(r, t, &st, err);
	else if ((rc = head_commit(w->repo, t, &tip, err)) == 0 &&
		 (rc = worktree_tree(r, w, &tree, &index, err)) == 0) {
		at_oid_from_git(&st.tip, &tip);
		at_oid_from_git(&st.tree, &tree);
		at_oid_from_git(&st.index, &index);
		st.worktree = true;
	}
	if (rc == 0)
		*out = st;
	return rc;
}

/*
 * A layered task's index brought to its state: its entries of the paths
 * the layer changes against the base, and those only (the others keep
 * their stat data, which are the base's files', as the overlay shows them).
 */
static int layered_index(struct at_worktree *w, const git_oid *tree_id,
			 const struct at_change_set *cs, git_index **out, struct at_error *err)
{
	char index[PATH_MAX];
	git_index *idx = NULL;
	git_tree *tree = NULL;
	size_t i;
	int rc = 0;

	if (at_fmt(index, sizeof(index), "%s/index", w->task.admin_dir) < 0)
		return at_error_set(err, AT_ESYS, "path too long '%s'", w->task.admin_dir);
	if (git_index_open(&idx, index) < 0 || git_tree_lookup(&tree, w->repo, tree_id) < 0) {
		rc = at_git_error(err, AT_EGIT, "cannot read the index of task '%s'", w->task.name);
		goto out;
	}
	for (i = 0; rc == 0 && i < cs->nfiles; i++) {
		git_index_entry e;
		git_tree_entry *te = NULL;
		const char *path = cs->files[i].path;

		if (git_tree_entry_bypath(&te, tree, path) < 0) {
			git_error_clear();
			if (git_index_remove_bypath(idx, path) < 0)
				rc = at_git_error(err, AT_EGIT, "cannot stage '%s'", path);
			continue;
		}
		memset(&e, 0, sizeof(e));
		e.path = path;
		e.mode = git_tree_entry_filemode(te);
		git_oid_cpy(&e.id, git_tree_entry_id(te));
		/* A directory where a file was: the file's entry goes, the directory's files are their own. */
		if (e.mode == GIT_FILEMODE_TREE) {
			if (git_index_remove_bypath(idx, path) < 0)
				rc = at_git_error(err, AT_EGIT, "cannot stage '%s'", path);
		} else if (git_index_add(idx, &e) < 0)
			rc = at_git_error(err, AT_EGIT, "cannot stage '%s'", path);
		git_tree_entry_free(te);
	}
out:
	git_tree_free(tree);
	if (rc == 0)
		*out = idx;
	else
		git_index_free(idx);
	return rc;
}

static int stage_layered(struct at_worktree *w, git_index **idx, git_oid *tree,
			 struct at_error *err)
{
	struct at_change_set cs;
	int rc;

	memset(&cs, 0, sizeof(cs));
	rc = layered_tree(w, tree, &cs, err);
	if (rc == 0)
		rc = layered_index(w, tree, &cs, idx, err);
	at_change_set_release(&cs);
	return rc;
}

int at_worktree_stage(struct at_worktree *w, struct at_task_state *out, struct at_error *err)
{
	git_index *idx = NULL;
	git_oid tip, tree;
	char cache[PATH_MAX];
	struct at_snap s;
	int rc;

	if ((rc = check_no_diff(w, err)) < 0 ||
	    (rc = head_commit(w->repo, &w->task, &tip, err)) < 0)
		return rc;
	if (at_task_is_layered(&w->task))
		rc = stage_layered(w, &idx, &tree, err);
	else if ((rc = snap_init(&s, w->r, w->repo, &w->task, cache, sizeof(cache), err)) == 0)
		rc = snapshot(&s, &idx, &tree, err);
	if (rc < 0)
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
