#include "git/diff.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"
#include "git/diff_internal.h"
#include "git/snapshot.h"
#include "git/tree_changes.h"
#include "git/wtread.h"

/* ---- opening ---------------------------------------------------------- */

const char *at_diff_delta_path(const git_diff_delta *d)
{
	return d->new_file.path ? d->new_file.path : d->old_file.path;
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The object count in a pack index's header (version 1 or 2), 0 if unreadable. */
static unsigned long idx_objects(int dirfd, const char *name)
{
	unsigned char hdr[8 + 256 * 4];
	AT_AUTOCLOSE int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	ssize_t got;

	if (fd < 0)
		return 0;
	got = read(fd, hdr, sizeof(hdr));
	if (got >= (ssize_t)sizeof(hdr) && memcmp(hdr, "\377tOc", 4) == 0)
		return be32(hdr + 8 + 255 * 4);
	if (got >= 256 * 4 && memcmp(hdr, "\377tOc", 4) != 0)
		return be32(hdr + 255 * 4);
	return 0;
}

/*
 * git's default abbreviation: about half the bits of the number of packed
 * objects, in hex digits, never fewer than 7 (loose objects do not count).
 */
static int auto_abbrev(const char *common_dir)
{
	char path[PATH_MAX];
	unsigned long count = 0;
	struct dirent *de;
	int bits = 0, len;
	DIR *dir;

	if (at_fmt(path, sizeof(path), "%s/objects/pack", common_dir) < 0 ||
	    !(dir = opendir(path)))
		return 7;
	while ((de = readdir(dir)) != NULL) {
		size_t l = strlen(de->d_name);
		if (l > 4 && strcmp(de->d_name + l - 4, ".idx") == 0)
			count += idx_objects(dirfd(dir), de->d_name);
	}
	closedir(dir);
	while (count >>= 1)
		bits++;
	len = (bits + 2) / 2;
	return len < 7 ? 7 : len;
}

static void read_config(struct at_diff *d)
{
	git_config *cfg = NULL;
	int32_t abbrev;
	int v;

	d->quote_high = true;
	d->abbrev = 0;
	if (git_repository_config_snapshot(&cfg, d->repo) == 0) {
		if (git_config_get_bool(&v, cfg, "core.quotepath") == 0)
			d->quote_high = v != 0;
		if (git_config_get_int32(&abbrev, cfg, "core.abbrev") == 0)
			d->abbrev = abbrev < 4 ? 4 : abbrev > 40 ? 40 : abbrev;
		else if (git_config_get_bool(&v, cfg, "core.abbrev") == 0 && !v)
			d->abbrev = 40;
	}
	git_config_free(cfg);
	git_error_clear();
	if (!d->abbrev)
		d->abbrev = auto_abbrev(git_repository_commondir(d->repo));
}

/*
 * The tree-to-tree diff, restricted to the paths that differ (an exact
 * pathspec, git/tree_changes.h) when there are at most this many: the
 * same deltas, without reading every unchanged subtree.
 */
#define MAX_PATHSPEC 4096

static int diff_trees(struct at_diff *d, git_tree *old, git_tree *new)
{
	git_diff_options opts = d->opts;
	git_strarray paths = { NULL, 0 };
	int rc;

	rc = at_tree_changed_paths(d->repo, old, new, MAX_PATHSPEC, &paths);
	if (rc < 0)
		return -1;
	if (rc == 0 && paths.count > 0) {
		opts.pathspec = paths;
		opts.flags |= GIT_DIFF_DISABLE_PATHSPEC_MATCH;
	}
	rc = git_diff_tree_to_tree(&d->diff, d->repo, old, new, &opts);
	at_tree_paths_free(&paths);
	return rc;
}

/* old: a commit or a tree (its tree is compared). */
static int compare_trees(struct at_diff *d, const git_oid *old_id, const git_oid *tree_id,
			 struct at_error *err)
{
	char bhex[AT_OID_HEXSZ + 1], thex[AT_OID_HEXSZ + 1];
	git_object *obj = NULL;
	git_tree *old = NULL, *new = NULL;
	int rc = 0;

	at_git_oid_hex(bhex, old_id);
	at_git_oid_hex(thex, tree_id);
	if (git_object_lookup(&obj, d->repo, old_id, GIT_OBJECT_ANY) < 0 ||
	    git_object_peel((git_object **)&old, obj, GIT_OBJECT_TREE) < 0)
		rc = at_git_error(err, AT_EGIT, "cannot read the base commit '%s'", bhex);
	else if (git_tree_lookup(&new, d->repo, tree_id) < 0)
		rc = at_git_error(err, AT_EGIT, "cannot read the tree '%s'", thex);
	else if (diff_trees(d, old, new) < 0)
		rc = at_git_error(err, AT_EGIT, "cannot compare '%s' with '%s'", bhex, thex);
	git_tree_free(new);
	git_tree_free(old);
	git_object_free(obj);
	return rc;
}

/* The paths of both sides of every delta, for the attributes that apply to them. */
static int delta_paths(git_diff *diff, const char ***out, size_t *n)
{
	size_t i, count = git_diff_num_deltas(diff);
	const char **v = calloc(2 * count + 1, sizeof(*v));

	if (!v)
		return -1;
	*n = 0;
	for (i = 0; i < count; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);

		v[(*n)++] = d->old_file.path;
		if (strcmp(d->old_file.path, d->new_file.path) != 0)
			v[(*n)++] = d->new_file.path;
	}
	*out = v;
	return 0;
}

/*
 * What the review may read of the new side, checked before it reads it: no
 * blob over the limit (a sparse 2 GB file, or one in a pushed commit), no
 * symlinked or oversized .gitattributes, .gitignore or .gitmodules, no path
 * inside a ".git" (git/wtread.h).
 */
static int check_new_side(struct at_diff *d, uint64_t max, struct at_error *err)
{
	size_t i, n = git_diff_num_deltas(d->diff), size;
	git_object_t type;
	char e[200];
	int rc = 0;

	for (i = 0; rc == 0 && i < n; i++) {
		const git_diff_file *f = &git_diff_get_delta(d->diff, i)->new_file;

		size = 0;
		if (git_oid_is_zero(&f->id) || f->mode == 0)
			continue;
		if ((f->mode == GIT_FILEMODE_BLOB || f->mode == GIT_FILEMODE_BLOB_EXECUTABLE ||
		     f->mode == GIT_FILEMODE_LINK) &&
		    git_odb_read_header(&size, &type, d->odb, &f->id) < 0)
			return at_git_error(err, AT_EGIT, "cannot read the object of '%s'",
					    at_esc(e, sizeof(e), f->path));
		rc = at_git_check_entry(f->path, f->mode, size, max, err);
	}
	return rc;
}

/* The base's attributes for every path of the diff: the only ones that apply. */
static int base_attributes(struct at_diff *d, const git_oid *base, struct at_error *err)
{
	AT_AUTOFREE const char **paths = NULL;
	size_t n = 0;
	bool any;

	if (delta_paths(d->diff, &paths, &n) < 0)
		return at_error_set(err, AT_ESYS, "out of memory");
	return at_git_attrs_from_base(d->repo, base, paths, n, &any, err);
}

/*
 * Compare base (a commit) with tree_id in repo (opened without a worktree);
 * from (NULL: base) the old side instead, a tree, base still the attributes'
 * and the change set's base; owned: repo is the diff's, freed with it (on
 * failure too).
 */
static int diff_new(struct at_diff **out, git_repository *repo, git_repository *owned,
		    uint64_t max, const git_oid *base, const git_oid *tree_id,
		    const git_oid *from, struct at_error *err)
{
	struct at_diff *d = calloc(1, sizeof(*d));
	int rc;

	if (!d) {
		git_repository_free(owned);
		return at_error_set(err, AT_ESYS, "out of memory");
	}
	d->repo = repo;
	d->owned = owned;
	at_oid_from_git(&d->cs.base, base);
	at_oid_from_git(&d->cs.tree, tree_id);
	git_diff_options_init(&d->opts, GIT_DIFF_OPTIONS_VERSION);
	/* git's defaults: type changes seen as such, the indent heuristic on. */
	d->opts.flags = GIT_DIFF_INCLUDE_TYPECHANGE | GIT_DIFF_INDENT_HEURISTIC;
	if (git_repository_odb(&d->odb, d->repo) < 0)
		rc = at_git_error(err, AT_EGIT, "cannot open the object database");
	else
		rc = compare_trees(d, from ? from : base, tree_id, err);
	if (rc == 0)
		rc = check_new_side(d, max, err);
	if (rc == 0)
		rc = base_attributes(d, base, err);
	if (rc == 0 && at_diff_entries(d->repo, d->diff, &d->ent, &d->n) < 0)
		rc = at_git_error(err, AT_EGIT, "cannot find the renames");
	if (rc < 0) {
		at_diff_free(d);
		return rc;
	}
	read_config(d);
	*out = d;
	return 0;
}

/* The merge base of the task's tip and its base branch, else base_commit. */
static int task_base(git_repository *repo, const struct at_task *t, const git_oid *tip,
		     git_oid *out, struct at_error *err)
{
	git_oid base_tip, mb;

	if (git_oid_fromstr(out, t->base_commit) < 0)
		return at_error_set(err, AT_ECORRUPT, "task '%s' has an invalid base commit '%s'",
				    t->name, t->base_commit);
	/* A base branch that is gone or shares no history leaves base_commit. */
	if (t->base_branch[0] && git_reference_name_to_id(&base_tip, repo, t->base_branch) == 0 &&
	    git_merge_base(&mb, repo, tip, &base_tip) == 0)
		git_oid_cpy(out, &mb);
	git_error_clear();
	return 0;
}

/*
 * The diff is made in the task's repository opened without its worktree,
 * its index replaced by the base's attributes: the patch's attribute
 * lookups (binary, diff drivers) never see the task's .gitattributes,
 * committed, untracked or ignored (git/attrs.c).
 */
int at_diff_open_state(struct at_diff **out, struct at_repo *r, struct at_worktree *w,
		       const struct at_task_state *st, struct at_error *err)
{
	git_oid base, tip, tree;
	uint64_t max_size;
	int rc;

	at_oid_to_git(&tip, &st->tip);
	at_oid_to_git(&tree, &st->tree);
	if ((rc = task_base(r->repo, &w->task, &tip, &base, err)) < 0 ||
	    (rc = at_repo_max_file_size(r, &max_size, err)) < 0 ||
	    (rc = diff_new(out, w->repo, NULL, max_size, &base, &tree, NULL, err)) < 0)
		return rc;
	/* w's repository holds this diff's attributes until it is freed. */
	(*out)->w = w;
	w->diffs++;
	return 0;
}

/*
 * old (a tree, or a commit's) against tree, both in w's repository, with the
 * attributes of the task's merge base as of tip.
 */
static int open_trees(struct at_diff **out, struct at_repo *r, struct at_worktree *w,
		      const git_oid *tip, const git_oid *old, const git_oid *tree,
		      struct at_error *err)
{
	git_oid base;
	uint64_t max_size;
	int rc;

	if ((rc = task_base(r->repo, &w->task, tip, &base, err)) < 0 ||
	    (rc = at_repo_max_file_size(r, &max_size, err)) < 0 ||
	    (rc = diff_new(out, w->repo, NULL, max_size, &base, tree, old, err)) < 0)
		return rc;
	(*out)->w = w;
	w->diffs++;
	return 0;
}

/* from, a checkpoint's commit, is the change set's base too (not the merge base). */
int at_diff_open_between(struct at_diff **out, struct at_repo *r, struct at_worktree *w,
			 const struct at_oid *from, const struct at_oid *tree, struct at_error *err)
{
	git_oid old, new;
	int rc;

	at_oid_to_git(&old, from);
	at_oid_to_git(&new, tree);
	if ((rc = open_trees(out, r, w, &old, &old, &new, err)) == 0)
		(*out)->cs.base = *from;
	return rc;
}

int at_diff_open_since(struct at_diff **out, struct at_repo *r, struct at_worktree *w,
		       const struct at_task_state *st, const struct at_oid *from,
		       struct at_error *err)
{
	git_oid tip, tree, old;

	at_oid_to_git(&tip, &st->tip);
	at_oid_to_git(&tree, &st->tree);
	at_oid_to_git(&old, from);
	return open_trees(out, r, w, &tip, &old, &tree, err);
}

int at_diff_open_against(struct at_diff **out, struct at_repo *r, struct at_worktree *w,
			 const struct at_task_state *st, const struct at_oid *other,
			 struct at_error *err)
{
	git_oid tip, old, tree;

	at_oid_to_git(&tip, &st->tip);
	at_oid_to_git(&old, &st->tree);
	at_oid_to_git(&tree, other);
	return open_trees(out, r, w, &tip, &old, &tree, err);
}

int at_diff_open_commits(struct at_diff **out, struct at_repo *r, const struct at_oid *base,
			 const struct at_oid *head, struct at_error *err)
{
	char bhex[AT_OID_HEXSZ + 1], hhex[AT_OID_HEXSZ + 1];
	git_oid b, h, mb;
	git_commit *commit = NULL;
	git_repository *bare = NULL;
	uint64_t max_size;
	int rc;

	at_oid_to_git(&b, base);
	at_oid_to_git(&h, head);
	at_oid_fmt(bhex, base);
	at_oid_fmt(hhex, head);
	if ((rc = at_repo_max_file_size(r, &max_size, err)) < 0)
		return rc;
	if (git_merge_base(&mb, r->repo, &b, &h) < 0)
		return at_git_error(err, AT_ENOTFOUND, "'%.12s' and '%.12s' have no common ancestor",
				    bhex, hhex);
	if (git_commit_lookup(&commit, r->repo, &h) < 0)
		return at_git_error(err, AT_EGIT, "cannot read commit '%s'", hhex);
	/* Not r->repo: its worktree is the CI checkout of the head, the agent's. */
	if ((rc = at_git_open_bare(&bare, r, err)) == 0)
		rc = diff_new(out, bare, bare, max_size, &mb, git_commit_tree_id(commit), NULL,
			      err);
	git_commit_free(commit);
	return rc;
}

int at_diff_take_changes(struct at_diff *d, struct at_change_set *out, struct at_error *err)
{
	const struct at_change_set *cs;
	int rc;

	if ((rc = at_diff_changes(d, &cs, err)) < 0)
		return rc;
	*out = d->cs;
	memset(&d->cs, 0, sizeof(d->cs));
	return 0;
}

void at_diff_free(struct at_diff *d)
{
	if (!d)
		return;
	at_change_set_release(&d->cs);
	free(d->ent);
	git_diff_free(d->diff);
	git_odb_free(d->odb);
	git_repository_free(d->owned);
	if (d->w)
		d->w->diffs--;
	free(d);
}
