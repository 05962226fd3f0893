#include "git/worktree.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/array.h"
#include "core/esc.h"
#include "core/fs.h"
#include "core/state.h"
#include "core/trace.h"
#include "core/util.h"
#include "git/checkout.h"
#include "git/internal.h"
#include "git/snapshot.h"

/*
 * The branch the base belongs to: the one named, else the one checked out
 * where the command runs (a linked worktree of the user's, or the main one).
 * The commit is looked up in the main repository, which creates the branch.
 */
static int resolve_base(struct at_repo *r, const char *rev, git_commit **commit_out,
			char *branch, size_t branch_size, struct at_error *err)
{
	git_repository *repo = r->here ? r->here : r->repo;
	git_reference *ref = NULL, *head = NULL;
	git_object *obj = NULL, *peeled = NULL;
	const char *name = NULL;
	int rc;

	branch[0] = '\0';
	if (git_revparse_single(&obj, repo, rev ? rev : "HEAD") < 0) {
		rc = at_git_error(err, AT_ENOTFOUND, "unknown revision '%s'", rev ? rev : "HEAD");
		goto out;
	}
	if (git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT) < 0) {
		rc = at_git_error(err, AT_ENOTFOUND, "revision '%s' is not a commit", rev);
		goto out;
	}
	if (git_commit_lookup(commit_out, r->repo, git_object_id(peeled)) < 0) {
		rc = at_git_error(err, AT_EGIT, "cannot read commit of '%s'", rev ? rev : "HEAD");
		goto out;
	}
	if (rev && git_branch_lookup(&ref, repo, rev, GIT_BRANCH_LOCAL) == 0)
		name = git_reference_name(ref);
	else if (rev && strncmp(rev, AT_REFS_HEADS, AT_REFS_HEADS_LEN) == 0 &&
		 git_reference_lookup(&ref, repo, rev) == 0)
		name = git_reference_name(ref);
	else if (git_reference_lookup(&head, repo, "HEAD") == 0 &&
		 git_reference_type(head) == GIT_REFERENCE_SYMBOLIC)
		name = git_reference_symbolic_target(head);
	git_error_clear();
	/* The record keeps it whole or refuses: a cut ref would name another branch. */
	rc = 0;
	if (name && at_fmt(branch, branch_size, "%s", name) < 0)
		rc = at_error_set(err, AT_EUSAGE, "branch name too long '%.80s...'", name);
out:
	git_reference_free(ref);
	git_reference_free(head);
	git_object_free(peeled);
	git_object_free(obj);
	return rc;
}

/*
 * Whether commit is reachable from a local branch that is no task's: a
 * base the person's history holds, not one a task (an agent) wrote. The
 * tips are gathered first, then one walk answers for all of them.
 */
static int on_persons_branch(git_repository *repo, const git_oid *commit, bool *out,
			     struct at_error *err)
{
	git_reference_iterator *it = NULL;
	git_reference *ref = NULL;
	git_oid *tips = NULL;
	size_t n = 0, cap = 0;
	int rc = 0, got;

	*out = false;
	if (git_reference_iterator_glob_new(&it, repo, AT_REFS_HEADS "*") < 0)
		return at_git_error(err, AT_EGIT, "cannot list the branches");
	while (rc == 0 && (got = git_reference_next(&ref, it)) == 0) {
		const char *name = git_reference_name(ref) + AT_REFS_HEADS_LEN;
		const git_oid *tip = git_reference_target(ref);

		if (tip && strncmp(name, AT_BRANCH_PREFIX, strlen(AT_BRANCH_PREFIX)) != 0) {
			if (AT_ARRAY_GROW(tips, cap, n + 1) < 0)
				rc = at_error_set(err, AT_ESYS, "out of memory");
			else
				tips[n++] = *tip;
		}
		git_reference_free(ref);
	}
	if (rc == 0 && got != GIT_ITEROVER)
		rc = at_git_error(err, AT_EGIT, "cannot list the branches");
	if (rc == 0 && n) {
		got = git_graph_reachable_from_any(repo, commit, tips, n);
		if (got < 0)
			rc = at_git_error(err, AT_EGIT, "cannot walk the branches");
		*out = got == 1;
	}
	git_reference_iterator_free(it);
	free(tips);
	return rc;
}

static int check_base(struct at_repo *r, const char *rev, const git_commit *base,
		      struct at_error *err)
{
	char esc[120];
	bool ok;
	int rc = on_persons_branch(r->repo, git_commit_id(base), &ok, err);

	if (rc == 0 && !ok)
		rc = at_error_set(err, AT_EUSAGE, "base '%s' is on none of your branches (a task's "
				  "branch, agenttask/..., does not count): a task made by an agent "
				  "starts from your history", at_esc(esc, sizeof(esc), rev ? rev : "HEAD"));
	return rc;
}

int at_task_base(struct at_repo *r, const char *rev, bool on_branches, struct at_task *t,
		 struct at_error *err)
{
	git_commit *base = NULL;
	int rc = resolve_base(r, rev, &base, t->base_branch, sizeof(t->base_branch), err);

	if (rc == 0 && on_branches)
		rc = check_base(r, rev, base, err);
	if (rc == 0)
		at_git_oid_hex(t->base_commit, git_commit_id(base));
	git_commit_free(base);
	return rc;
}

int at_task_base_at(struct at_repo *r, const struct at_oid *tip, struct at_task *t,
		    struct at_error *err)
{
	char hex[AT_OID_HEXSZ + 1];
	git_commit *commit = NULL;
	git_oid id;

	at_oid_to_git(&id, tip);
	at_oid_fmt(hex, tip);
	if (git_commit_lookup(&commit, r->repo, &id) < 0)
		return at_git_error(err, AT_ENOTFOUND, "unknown commit '%s'", hex);
	at_git_oid_hex(t->base_commit, &id);
	git_commit_free(commit);
	return 0;
}

int at_task_check_free(struct at_repo *r, const struct at_task *t, struct at_error *err)
{
	git_reference *ref = NULL;

	if (git_reference_lookup(&ref, r->repo, t->branch) == 0) {
		git_reference_free(ref);
		return at_error_set(err, AT_EEXISTS, "branch '%s' already exists",
				    at_branch_short(t->branch));
	}
	if (at_path_exists(t->path))
		return at_error_set(err, AT_EEXISTS,
				    "worktree path '%s' already exists (see 'agenttask gc')", t->path);
	if (at_path_exists(t->admin_dir))
		return at_error_set(err, AT_EEXISTS,
				    "worktree admin directory '%s' already exists (see 'agenttask gc')",
				    t->admin_dir);
	return 0;
}

/*
 * The lock file of the task's branch. Only agenttask writes the task's branch,
 * and always under the repository lock, which the caller holds: a lock file
 * found now is the leftover of an agenttask killed while it created or deleted
 * the branch, and would make every later attempt fail.
 */
static void remove_branch_lock(const struct at_repo *r, const struct at_task *t)
{
	char path[PATH_MAX];

	if (at_fmt(path, sizeof(path), "%s/%s.lock", r->paths.common_dir, t->branch) == 0)
		unlink(path);
}

static int delete_branch(git_repository *repo, const struct at_task *t, bool only_unmoved,
			 struct at_error *err)
{
	git_reference *ref = NULL;
	char tip[AT_OID_HEXSZ + 1];
	int rc = 0;

	if (git_reference_lookup(&ref, repo, t->branch) < 0) {
		git_error_clear();
		return 0;
	}
	if (git_reference_type(ref) == GIT_REFERENCE_DIRECT) {
		at_git_oid_hex(tip, git_reference_target(ref));
		if (only_unmoved && strcmp(tip, t->base_commit) != 0)
			goto out;
	}
	if (git_reference_delete(ref) < 0)
		rc = at_git_error(err, AT_EGIT, "cannot delete branch '%s'",
				  at_branch_short(t->branch));
out:
	git_reference_free(ref);
	return rc;
}

/*
 * Move the worktree out of its place in one rename, then delete it. A kill
 * midway leaves the whole worktree at its path or none of it, never a
 * half-deleted one that can no longer be opened (and so never discarded).
 * What is left under the other name, beside it (the same filesystem), is a
 * stray directory for gc.
 */
static int remove_worktree_dir(const struct at_task *t, struct at_error *err)
{
	char doomed[PATH_MAX];
	const char *slash = strrchr(t->path, '/');
	int dir_len = slash ? (int)(slash - t->path) : 0;

	if (!slash ||
	    at_fmt(doomed, sizeof(doomed), "%.*s/.removing-%s.%ld", dir_len, t->path, t->name,
		   (long)getpid()) < 0 ||
	    rename(t->path, doomed) < 0)
		return at_rmtree(t->path, err);
	at_test_kill_point("remove:renamed");
	return at_rmtree(doomed, err);
}

int at_task_remove_worktree(const struct at_task *t, struct at_error *err)
{
	if (remove_worktree_dir(t, err) < 0 || at_rmtree(t->admin_dir, err) < 0)
		return err->code;
	return 0;
}

int at_task_delete_branch(struct at_repo *r, const struct at_task *t, bool only_unmoved,
			  struct at_error *err)
{
	/* A remover killed inside git_reference_delete left the lock (see below). */
	remove_branch_lock(r, t);
	return delete_branch(r->repo, t, only_unmoved, err);
}

/*
 * A creator killed inside git_branch_create leaves the branch's lock file (and
 * perhaps its reflog without the branch), and the lock would make every later
 * attempt to create the branch fail. Rollback runs under the repository lock,
 * so the creator is gone and these are its leftovers.
 */
void at_task_clear_branch_leftovers(struct at_repo *r, const struct at_task *t)
{
	git_reference *ref = NULL;
	char path[PATH_MAX];

	remove_branch_lock(r, t);
	if (git_reference_lookup(&ref, r->repo, t->branch) == 0) {
		git_reference_free(ref);
		return;
	}
	git_error_clear();
	if (at_fmt(path, sizeof(path), "%s/logs/%s", r->paths.common_dir, t->branch) == 0)
		unlink(path);
}

bool at_task_moved(const struct at_task *t, char *where, size_t size)
{
	char text[PATH_MAX];
	struct stat st;

	if (at_path_exists(t->path) || !at_task_registered(t, text, sizeof(text)))
		return false;
	if (strcmp(text, t->path) == 0 || stat(text, &st) < 0 || !S_ISDIR(st.st_mode))
		return false;
	return at_fmt(where, size, "%s", text) == 0;
}

static int find_gitattributes(const char *root, const git_tree_entry *e, void *found)
{
	(void)root;
	if (strcmp(git_tree_entry_name(e), ".gitattributes") != 0)
		return 0;
	*(bool *)found = true;
	return -1;   /* stops the walk */
}

/*
 * Could a checkout filter (CRLF conversion, ident, a filter driver) touch
 * base's files? Only through attributes (a .gitattributes in the tree, the
 * repository's, the user's or the system's attributes file) or core.autocrlf
 * / core.eol. When none is there, checking out with filters disabled writes
 * the same bytes, and saves libgit2's per-file attribute lookup (two
 * realpath() walks of the whole path a file): 2-3 times faster on 20,000
 * files (docs/performance.md).
 */
bool at_git_filters_may_apply(git_repository *repo, const git_commit *base)
{
	git_tree *tree = NULL;
	bool found = false;

	if (at_git_filters_configured(repo))
		return true;
	if (git_commit_tree(&tree, base) < 0)
		found = true;
	else
		git_tree_walk(tree, GIT_TREEWALK_PRE, find_gitattributes, &found);
	git_error_clear();
	git_tree_free(tree);
	return found;
}

/*
 * The files of the new worktree: at_checkout_fresh() where it can, libgit2's
 * checkout where it declines (filters disabled when none can apply).
 */
/* libgit2's checkout progress, told to the caller's hook. */
static void checkout_progress(const char *path, size_t done, size_t total, void *payload)
{
	(void)path;
	at_progress_say(payload, "Updating files", done, total);
}

static int check_out(git_worktree *wt, const git_commit *base, bool filters,
		     const struct at_progress_hook *progress, struct at_error *err)
{
	git_checkout_options copts = GIT_CHECKOUT_OPTIONS_INIT;
	git_repository *repo = NULL;
	git_tree *tree = NULL;
	int rc;

	if (git_repository_open_from_worktree(&repo, wt) < 0 ||
	    git_tree_lookup(&tree, repo, git_commit_tree_id(base)) < 0) {
		rc = at_git_error(err, AT_EGIT, "cannot open the new worktree '%s'",
				  git_worktree_path(wt));
		goto out;
	}
	rc = filters ? AT_CHECKOUT_DECLINED : at_checkout_fresh(repo, tree, progress, err);
	if (rc == AT_CHECKOUT_DECLINED) {
		copts.checkout_strategy = GIT_CHECKOUT_SAFE;
		copts.disable_filters = !filters;
		if (progress && progress->fn) {
			copts.progress_cb = checkout_progress;
			copts.progress_payload = (void *)progress;
		}
		rc = 0;
		if (git_checkout_tree(repo, (const git_object *)tree, &copts) < 0)
			rc = at_git_error(err, AT_EGIT, "cannot check out worktree '%s'",
					  git_worktree_path(wt));
	}
out:
	git_tree_free(tree);
	git_repository_free(repo);
	return rc;
}

/*
 * Branch agenttask/NAME at t->base_commit and git's worktree of it at
 * t->path, nothing checked out (git_worktree_add always checks out: a dry
 * run). *wt and *base are the caller's to free, also on failure.
 */
static int add_registered(struct at_repo *r, const struct at_task *t, git_worktree **wt,
			  git_commit **base, struct at_error *err)
{
	git_worktree_add_options wopts = GIT_WORKTREE_ADD_OPTIONS_INIT;
	git_reference *branch = NULL;
	git_oid id;
	int rc = 0;

	if (git_oid_fromstr(&id, t->base_commit) < 0 || git_commit_lookup(base, r->repo, &id) < 0)
		return at_git_error(err, AT_ENOTFOUND, "unknown commit '%s'", t->base_commit);
	if (git_branch_create(&branch, r->repo, t->branch + AT_REFS_HEADS_LEN, *base, 0) < 0)
		return at_git_error(err, AT_EGIT, "cannot create branch '%s'",
				    at_branch_short(t->branch));
	at_test_kill_point("new:branch");
	wopts.ref = branch;
	wopts.checkout_options.checkout_strategy = GIT_CHECKOUT_NONE | GIT_CHECKOUT_DONT_UPDATE_INDEX;
	if (git_worktree_add(wt, r->repo, t->worktree_name, t->path, &wopts) < 0)
		rc = at_git_error(err, AT_EGIT, "cannot add worktree '%s'", t->path);
	else
		at_test_kill_point("new:worktree");
	git_reference_free(branch);
	return rc;
}

int at_task_add_worktree(struct at_repo *r, const struct at_task *t,
			 const struct at_progress_hook *progress, struct at_error *err)
{
	git_commit *base = NULL;
	git_worktree *wt = NULL;
	int rc = add_registered(r, t, &wt, &base, err);

	if (rc == 0)
		rc = check_out(wt, base, at_git_filters_may_apply(r->repo, base), progress, err);
	git_worktree_free(wt);
	git_commit_free(base);
	return rc;
}

/* dst a copy of src (reflinked where it can be), made anew. */
static int copy_file(const char *src, const char *dst, struct at_error *err)
{
	struct stat st;
	int in, out, rc = 0;

	if ((in = open(src, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0 || fstat(in, &st) < 0) {
		rc = at_error_sys(err, AT_ESYS, "cannot read '%s'", src);
		goto out;
	}
	if ((out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644)) < 0) {
		rc = at_error_sys(err, AT_ESYS, "cannot create '%s'", dst);
		goto out;
	}
	if (at_copy_bytes(in, out, st.st_size) < 0)
		rc = at_error_sys(err, AT_ESYS, "cannot copy '%s'", src);
	if (close(out) < 0 && rc == 0)
		rc = at_error_sys(err, AT_ESYS, "cannot write '%s'", dst);
out:
	if (in >= 0)
		close(in);
	return rc;
}

/*
 * The pointer git wrote at t->path/.git goes, and so does t->path: a
 * layered task's path holds nothing on the host, so no reader mistakes it
 * for a checkout. The upper gets an empty .git, the mount point over which
 * app/layout.c binds the pointer's text inside (made from the admin dir's
 * path: what the task may have left in the upper's copy is never read).
 * Not synced: a placeholder lost in a crash is made again by the next run's
 * bind, and the full checkout writes the pointer anew.
 */
static int move_pointer(const struct at_task *t, const char *upper, struct at_error *err)
{
	char from[PATH_MAX], to[PATH_MAX];
	int fd;

	if (at_fmt(from, sizeof(from), "%s/.git", t->path) < 0 ||
	    at_fmt(to, sizeof(to), "%s/.git", upper) < 0)
		return at_error_set(err, AT_ESYS, "path too long '%s'", t->path);
	fd = open(to, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return at_error_sys(err, AT_ESYS, "cannot write '%s'", to);
	close(fd);
	if (unlink(from) < 0 || rmdir(t->path) < 0)
		return at_error_sys(err, AT_ESYS, "cannot remove '%s'", t->path);
	return 0;
}

int at_task_add_layered(struct at_repo *r, const struct at_task *t, const char *upper,
			const char *base_index, struct at_error *err)
{
	char index[PATH_MAX];
	git_commit *base = NULL;
	git_worktree *wt = NULL;
	int rc = add_registered(r, t, &wt, &base, err);

	if (rc == 0 && git_worktree_lock(wt, AT_LAYERED_LOCK_REASON) < 0)
		rc = at_git_error(err, AT_EGIT, "cannot lock worktree '%s'", t->path);
	if (rc == 0)
		rc = move_pointer(t, upper, err);
	if (rc == 0 && at_fmt(index, sizeof(index), "%s/index", t->admin_dir) < 0)
		rc = at_error_set(err, AT_ESYS, "path too long '%s'", t->admin_dir);
	/*
	 * A hard link where it can be: git and libgit2 never write an index in
	 * place (a new file renamed over it), so the first write gives the
	 * task its own, and ten tasks of a base do not hold ten copies.
	 */
	if (rc == 0 && link(base_index, index) < 0)
		rc = copy_file(base_index, index, err);
	git_worktree_free(wt);
	git_commit_free(base);
	return rc;
}

int at_task_unlock_layered(const struct at_task *t, struct at_error *err)
{
	char path[PATH_MAX];

	if (at_fmt(path, sizeof(path), "%s/locked", t->admin_dir) < 0)
		return at_error_set(err, AT_ESYS, "path too long '%s'", t->admin_dir);
	if (unlink(path) < 0 && errno != ENOENT)
		return at_error_sys(err, AT_ESYS, "cannot remove '%s'", path);
	return 0;
}

/* The same for a layered task: its state read from its layer (git/snapshot.h). */
static int layered_dirty(struct at_repo *r, const struct at_task *t, bool *dirty,
			 struct at_error *err)
{
	struct at_error e = AT_ERROR_INIT;
	struct at_worktree *w = NULL;
	struct at_task_state st;
	git_commit *tip = NULL;
	git_oid id;
	int rc;

	if ((rc = at_worktree_open(&w, r, t, err)) < 0)
		return rc;
	if ((rc = at_task_state(r, t, w, &st, &e)) == AT_EUNSAFE) {
		*dirty = true;
		rc = 0;
	} else if (rc < 0) {
		*err = e;
	} else {
		at_oid_to_git(&id, &st.tip);
		if (git_commit_lookup(&tip, r->repo, &id) < 0) {
			rc = at_git_error(err, AT_EGIT, "cannot read HEAD of task '%s'", t->name);
		} else {
			at_oid_to_git(&id, &st.tree);
			*dirty = !git_oid_equal(&id, git_commit_tree_id(tip));
		}
	}
	git_commit_free(tip);
	at_worktree_free(w);
	return rc;
}

/*
 * Whether the task's full state differs from its HEAD: the snapshot the
 * diff takes (libgit2's status would read the worktree's .gitignore files
 * itself, and a fifo there hung `list` for the whole repository). A
 * worktree the snapshot refuses (an embedded repository, a file over the
 * limit) has changes; `diff` names them.
 */
static int worktree_dirty(struct at_repo *r, const struct at_task *t, bool *dirty,
			  struct at_error *err)
{
	struct at_error e = AT_ERROR_INIT;
	git_repository *wt = NULL;
	git_object *head = NULL;
	git_oid tree;
	int rc;

	if (at_task_is_layered(t))
		return layered_dirty(r, t, dirty, err);
	if ((rc = at_git_open_task_repo(&wt, t, err)) < 0)
		return rc;
	if ((rc = at_git_snapshot_tree(r, wt, t, &tree, NULL, &e)) == AT_EUNSAFE) {
		*dirty = true;
		rc = 0;
	} else if (rc < 0) {
		*err = e;
	} else if (git_revparse_single(&head, wt, "HEAD^{tree}") < 0) {
		rc = at_git_error(err, AT_EGIT, "cannot read HEAD of task '%s'", t->name);
	} else {
		*dirty = !git_oid_equal(&tree, git_object_id(head));
	}
	git_object_free(head);
	git_repository_free(wt);
	return rc;
}

int at_task_inspect(struct at_repo *r, const struct at_task *t, struct at_task_info *out,
		    struct at_error *err)
{
	struct at_task_info info;
	git_reference *ref = NULL;
	int rc = 0;

	memset(&info, 0, sizeof(info));
	if (git_reference_lookup(&ref, r->repo, t->branch) == 0 &&
	    git_reference_type(ref) == GIT_REFERENCE_DIRECT) {
		at_git_oid_hex(info.head_commit, git_reference_target(ref));
		git_oid base;

		if (git_oid_fromstr(&base, t->base_commit) == 0)
			info.commits_ahead =
			    at_git_count_between(r->repo, git_reference_target(ref), &base);
	}
	git_error_clear();
	git_reference_free(ref);
	info.worktree_missing = at_task_is_layered(t) ? !at_worktree_present(t)
						      : !at_path_exists(t->path);
	if (!info.worktree_missing)
		rc = worktree_dirty(r, t, &info.dirty, err);
	if (rc == 0)
		*out = info;
	return rc;
}

int at_task_resolve(struct at_repo *r, const char *name, const char *cwd, struct at_task *out,
		    struct at_error *err)
{
	char real[PATH_MAX];
	struct at_task t;
	int rc;

	if (name)
		rc = at_state_load(&r->paths, name, &t, err);
	else if (!realpath(cwd, real))
		rc = at_error_sys(err, AT_ESYS, "cannot resolve '%s'", cwd);
	else
		rc = at_state_find_by_dir(&r->paths, real, &t, err);
	if (rc < 0)
		return rc;
	if (t.phase != AT_TASK_READY)
		return at_error_set(err, AT_ENOTFOUND,
				    "task '%s' is half-made (its creation was interrupted): run 'agenttask gc'",
				    t.name);
	*out = t;
	return 0;
}
