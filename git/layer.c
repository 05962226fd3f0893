/*
 * layer.c - a base of layered tasks made (layer.h).
 */
#include "git/layer.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/fs.h"
#include "core/gitlayer.h"
#include "core/trace.h"
#include "core/util.h"
#include "git/checkout.h"
#include "git/index_read.h"
#include "git/index_update.h"
#include "git/internal.h"

static int make_dir(const char *path, struct at_error *err)
{
	if (mkdir(path, 0700) < 0 && errno != EEXIST)
		return at_error_sys(err, AT_ESYS, "cannot create '%s'", path);
	return 0;
}

/*
 * The temporary twins of tree_hex's base that makers killed midway left
 * (core/paths.h): the caller holds the repository lock, so no maker of one
 * is alive.
 */
static int remove_leftovers(const struct at_paths *p, const char *tree_hex, struct at_error *err)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int rc = 0;

	if (!(d = opendir(p->bases_dir)))
		return 0;
	while (rc == 0 && (de = readdir(d)))
		if (at_paths_is_base_tmp(de->d_name, tree_hex)) {
			if (at_fmt(path, sizeof(path), "%s/%s", p->bases_dir, de->d_name) < 0)
				rc = at_error_set(err, AT_ESYS, "path too long '%s'", p->bases_dir);
			else
				rc = at_rmtree(path, err);
		}
	closedir(d);
	return rc;
}

/* The checkout into tmp/files and tmp/index; AT_LAYER_DECLINED when it cannot be this one. */
/* tmp is a base's temporary twin (core/paths.h): the same files/ and index inside. */
static int check_out(struct at_repo *r, git_commit *commit, const char *tmp,
		     const struct at_progress_hook *progress, struct at_error *err)
{
	char files[PATH_MAX], index[PATH_MAX];
	git_tree *tree = NULL;
	int rc;

	if (at_git_filters_may_apply(r->repo, commit))
		return AT_LAYER_DECLINED;
	if (at_fmt(files, sizeof(files), "%s/files", tmp) < 0 ||
	    at_fmt(index, sizeof(index), "%s/index", tmp) < 0)
		return at_error_set(err, AT_ESYS, "path too long '%s'", tmp);
	if ((rc = make_dir(tmp, err)) < 0 || (rc = make_dir(files, err)) < 0)
		return rc;
	if (git_commit_tree(&tree, commit) < 0)
		return at_git_error(err, AT_EGIT, "cannot read the tree of '%s'",
				    git_oid_tostr_s(git_commit_id(commit)));
	rc = at_checkout_into(r->repo, tree, files, index, progress, err);
	git_tree_free(tree);
	return rc == AT_CHECKOUT_DECLINED ? AT_LAYER_DECLINED : rc;
}

int at_layer_base(struct at_repo *r, const char *commit_hex, char *tree_hex,
		  const struct at_progress_hook *progress, struct at_error *err)
{
	const struct at_paths *p = at_repo_paths(r);
	char dir[PATH_MAX], tmp[PATH_MAX], hex[AT_OID_HEXSZ + 1];
	struct at_error ignored = AT_ERROR_INIT;
	git_commit *commit = NULL;
	struct stat st;
	git_oid id;
	int rc;

	if (git_oid_fromstr(&id, commit_hex) < 0 || git_commit_lookup(&commit, r->repo, &id) < 0)
		return at_git_error(err, AT_ENOTFOUND, "unknown commit '%s'", commit_hex);
	at_git_oid_hex(hex, git_commit_tree_id(commit));
	if ((rc = at_paths_base(p, hex, dir, sizeof(dir), err)) < 0 ||
	    (rc = at_paths_base_tmp(p, hex, tmp, sizeof(tmp), err)) < 0)
		goto out;
	if (lstat(dir, &st) == 0 && S_ISDIR(st.st_mode))
		goto done;
	/* The leftovers of makers killed (one may have had our pid): ours to replace. */
	if ((rc = make_dir(p->bases_dir, err)) < 0 || (rc = remove_leftovers(p, hex, err)) < 0)
		goto out;
	rc = check_out(r, commit, tmp, progress, err);
	if (rc == 0)
		at_test_kill_point("new:base");
	if (rc == 0 && rename(tmp, dir) < 0)
		rc = at_error_sys(err, AT_ESYS, "cannot rename '%s'", tmp);
	if (rc != 0) {
		at_rmtree(tmp, &ignored);
		goto out;
	}
done:
	memcpy(tree_hex, hex, sizeof(hex));
	rc = 0;
out:
	git_commit_free(commit);
	return rc;
}

int at_layer_tree_of(struct at_repo *r, const char *commit_hex, char *tree_hex,
		     struct at_error *err)
{
	git_commit *commit = NULL;
	git_oid id;

	if (git_oid_fromstr(&id, commit_hex) < 0 || git_commit_lookup(&commit, r->repo, &id) < 0)
		return at_git_error(err, AT_ENOTFOUND, "unknown commit '%s'", commit_hex);
	at_git_oid_hex(tree_hex, git_commit_tree_id(commit));
	git_commit_free(commit);
	return 0;
}

/*
 * path untouched by the upper: no component of it there, or only
 * directories that are not opaque above its first missing one. Its file
 * in the full checkout is then the base's, copied, which the index's
 * entry (the base's stat data) describes.
 */
static bool from_base(const char *path, void *ctx)
{
	int upper = *(const int *)ctx, dir;
	const char *slash = path;
	char prefix[PATH_MAX];
	struct stat st;
	bool opaque;
	size_t n;

	for (;; slash++) {
		slash = strchr(slash, '/');
		n = slash ? (size_t)(slash - path) : strlen(path);
		if (n >= sizeof(prefix))
			return false;
		memcpy(prefix, path, n);
		prefix[n] = '\0';
		/* Each shorter prefix is a directory of the upper: nothing is followed. */
		if (fstatat(upper, prefix, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return errno == ENOENT;
		if (!slash || !S_ISDIR(st.st_mode))
			return false;
		dir = at_open_beneath(upper, prefix, O_RDONLY | O_DIRECTORY);
		opaque = dir < 0 || at_layer_is_opaque(dir);
		if (dir >= 0)
			close(dir);
		if (opaque)
			return false;
	}
}

int at_layer_restat_index(const char *index, int upper, int dest, struct at_error *err)
{
	int rc = at_index_restat(index, dest, from_base, &upper, err);

	return rc == AT_INDEX_DECLINED ? 0 : rc;
}
