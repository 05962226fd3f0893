/*
 * attrs.c - the attributes agenttask applies are the base commit's.
 *
 * libgit2 looks attributes up in the repository's worktree (its
 * .gitattributes files, by path, following links, blocking on a fifo) and
 * then in its index. A task's worktree and index are the agent's: an
 * untracked, ignored `* -diff` turned a 50-line change into "Binary files
 * differ" and 0 counted lines, and a committed one did the same to CI. So
 * the repositories agenttask diffs and hashes in have no worktree, and their
 * index is an in-memory one holding only the base commit's .gitattributes
 * files on the way to the paths concerned: the user's own repository-wide
 * files (info/attributes, core.attributesFile, the system's) still apply,
 * nothing the task wrote does. A macro defined in the base's top-level
 * .gitattributes is not honoured (libgit2 takes macros only from a
 * worktree's); the built-in "binary" is.
 */
#include <stdlib.h>
#include <string.h>

#include <git2/sys/repository.h>

#include "core/util.h"
#include "git/internal.h"
#include "git/wtread.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* How many leading bytes of a and b are whole directories they share ("x/y/"). */
static size_t shared_dirs(const char *a, const char *b)
{
	size_t i = 0, dirs = 0;

	while (a[i] && a[i] == b[i]) {
		if (a[i] == '/')
			dirs = i + 1;
		i++;
	}
	return dirs;
}

/* The base's DIR/.gitattributes (dir: "" or "a/b/"), if a file, into idx. */
static int add_one(git_index *idx, git_odb *odb, git_tree *tree, const char *dir, size_t dlen,
		   struct at_error *err)
{
	git_index_entry e;
	git_tree_entry *te = NULL;
	git_object_t type;
	size_t size = 0;
	char path[PATH_MAX];
	int rc = 0;

	if (dlen + sizeof(".gitattributes") > sizeof(path))
		return 0;
	memcpy(path, dir, dlen);
	memcpy(path + dlen, ".gitattributes", sizeof(".gitattributes"));
	if (git_tree_entry_bypath(&te, tree, path) < 0) {
		git_error_clear();
		return 0;
	}
	/* A link or a directory by that name is no attributes file (git: not followed). */
	if (git_tree_entry_filemode(te) != GIT_FILEMODE_BLOB &&
	    git_tree_entry_filemode(te) != GIT_FILEMODE_BLOB_EXECUTABLE)
		goto out;
	if (git_odb_read_header(&size, &type, odb, git_tree_entry_id(te)) < 0) {
		rc = at_git_error(err, AT_EGIT, "cannot read the base's '%s'", path);
		goto out;
	}
	if ((rc = at_git_check_entry(path, GIT_FILEMODE_BLOB, size, UINT64_MAX, err)) < 0)
		goto out;
	memset(&e, 0, sizeof(e));
	e.path = path;
	e.mode = GIT_FILEMODE_BLOB;
	git_oid_cpy(&e.id, git_tree_entry_id(te));
	if (git_index_add(idx, &e) < 0)
		rc = at_git_error(err, AT_EGIT, "cannot use the base's '%s'", path);
out:
	git_tree_entry_free(te);
	return rc;
}

/* Every directory on the way to each path (sorted: each directory comes up once). */
static int add_all(git_index *idx, git_odb *odb, git_tree *tree, const char **v, size_t n,
		   struct at_error *err)
{
	const char *prev = "";
	size_t i, from, k;
	int rc = 0;

	qsort(v, n, sizeof(*v), cmp_str);
	for (i = 0; rc == 0 && i < n; i++) {
		/* The root's once; then the directories this path does not share with the last. */
		from = i ? shared_dirs(prev, v[i]) : 0;
		if (i == 0)
			rc = add_one(idx, odb, tree, "", 0, err);
		for (k = from; rc == 0 && v[i][k]; k++)
			if (v[i][k] == '/')
				rc = add_one(idx, odb, tree, v[i], k + 1, err);
		prev = v[i];
	}
	return rc;
}

int at_git_attrs_from_base(git_repository *repo, const git_oid *base, const char *const *paths,
			   size_t n, bool *any, struct at_error *err)
{
	AT_AUTOFREE const char **v = calloc(n ? n : 1, sizeof(*v));
	git_object *obj = NULL;
	git_tree *tree = NULL;
	git_index *idx = NULL;
	git_odb *odb = NULL;
	int rc = 0;

	if (!v)
		return at_error_set(err, AT_ESYS, "out of memory");
	if (git_repository_workdir(repo))
		return at_error_set(err, AT_EGIT,
				    "attributes asked of a repository with a worktree");
	if (n)
		memcpy(v, paths, n * sizeof(*v));   /* paths may be NULL when n is 0 */
	if (git_index_new(&idx) < 0 || git_repository_odb(&odb, repo) < 0)
		rc = at_git_error(err, AT_EGIT, "cannot prepare the attributes");
	else if (base && (git_object_lookup(&obj, repo, base, GIT_OBJECT_ANY) < 0 ||
			  git_object_peel((git_object **)&tree, obj, GIT_OBJECT_TREE) < 0))
		rc = at_git_error(err, AT_EGIT, "cannot read the base commit's tree");
	else if (tree)
		rc = add_all(idx, odb, tree, v, n, err);
	if (rc == 0 && git_repository_set_index(repo, idx) < 0)
		rc = at_git_error(err, AT_EGIT, "cannot prepare the attributes");
	if (rc == 0)
		*any = git_index_entrycount(idx) > 0;
	git_index_free(idx);
	git_odb_free(odb);
	git_tree_free(tree);
	git_object_free(obj);
	return rc;
}
