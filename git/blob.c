#include "git/blob.h"

#include <stdlib.h>
#include <string.h>

#include "git/internal.h"

int at_git_resolve_commit(struct at_repo *r, const char *rev, struct at_oid *out,
			  struct at_error *err)
{
	git_object *obj = NULL, *commit = NULL;
	int rc = 0;

	if (git_revparse_single(&obj, r->repo, rev) < 0)
		rc = at_git_error(err, AT_ENOTFOUND, "unknown revision '%s'", rev);
	else if (git_object_peel(&commit, obj, GIT_OBJECT_COMMIT) < 0)
		rc = at_git_error(err, AT_ENOTFOUND, "revision '%s' is not a commit", rev);
	else
		at_oid_from_git(out, git_object_id(commit));
	git_object_free(commit);
	git_object_free(obj);
	return rc;
}

static int copy_blob(git_repository *repo, const git_tree_entry *e, const char *rev,
		     const char *path, size_t max, char **text, size_t *len, struct at_error *err)
{
	git_blob *blob = NULL;
	git_object_size_t size;
	char *buf;
	int rc = 0;

	if (git_tree_entry_filemode(e) != GIT_FILEMODE_BLOB &&
	    git_tree_entry_filemode(e) != GIT_FILEMODE_BLOB_EXECUTABLE)
		return at_error_set(err, AT_EUSAGE, "'%s' at '%s' is not a regular file", path,
				    rev);
	if (git_blob_lookup(&blob, repo, git_tree_entry_id(e)) < 0)
		return at_git_error(err, AT_EGIT, "cannot read '%s' at '%s'", path, rev);
	size = git_blob_rawsize(blob);
	if (size > (git_object_size_t)max) {
		rc = at_error_set(err, AT_EUSAGE, "'%s' at '%s' is larger than %zu bytes", path,
				  rev, max);
	} else if (!(buf = malloc((size_t)size + 1))) {
		rc = at_error_set(err, AT_ESYS, "out of memory");
	} else {
		memcpy(buf, git_blob_rawcontent(blob), (size_t)size);
		buf[size] = '\0';
		*text = buf;
		*len = (size_t)size;
	}
	git_blob_free(blob);
	return rc;
}

/* path in tree (rev names it in messages). */
static int read_in_tree(struct at_repo *r, git_tree *tree, const char *rev, const char *path,
			size_t max, char **text, size_t *len, struct at_error *err)
{
	git_tree_entry *e = NULL;
	int rc;

	if ((rc = git_tree_entry_bypath(&e, tree, path)) == GIT_ENOTFOUND) {
		git_error_clear();
		rc = at_error_set(err, AT_ENOTFOUND, "no '%s' at '%s'", path, rev);
	} else if (rc < 0) {
		rc = at_git_error(err, AT_EGIT, "cannot look up '%s' at '%s'", path, rev);
	} else {
		rc = copy_blob(r->repo, e, rev, path, max, text, len, err);
	}
	git_tree_entry_free(e);
	return rc;
}

int at_git_read_file_at(struct at_repo *r, const struct at_oid *commit_id, const char *path,
			size_t max, char **text, size_t *len, struct at_error *err)
{
	char rev[AT_OID_HEXSZ + 1];
	git_commit *commit = NULL;
	git_tree *tree = NULL;
	git_oid id;
	int rc;

	at_oid_fmt(rev, commit_id);
	rev[12] = '\0';   /* the short id, in messages */
	at_oid_to_git(&id, commit_id);
	if (git_commit_lookup(&commit, r->repo, &id) < 0)
		return at_git_error(err, AT_EGIT, "cannot read commit '%s'", rev);
	if (git_commit_tree(&tree, commit) < 0)
		rc = at_git_error(err, AT_EGIT, "cannot read the tree of '%s'", rev);
	else
		rc = read_in_tree(r, tree, rev, path, max, text, len, err);
	git_tree_free(tree);
	git_commit_free(commit);
	return rc;
}

int at_git_read_file_in_tree(struct at_repo *r, const struct at_oid *tree_id, const char *path,
			     size_t max, char **text, size_t *len, struct at_error *err)
{
	char rev[AT_OID_HEXSZ + 1];
	git_tree *tree = NULL;
	git_oid id;
	int rc;

	at_oid_fmt(rev, tree_id);
	rev[12] = '\0';
	at_oid_to_git(&id, tree_id);
	if (git_tree_lookup(&tree, r->repo, &id) < 0)
		return at_git_error(err, AT_EGIT, "cannot read tree '%s'", rev);
	rc = read_in_tree(r, tree, rev, path, max, text, len, err);
	git_tree_free(tree);
	return rc;
}
