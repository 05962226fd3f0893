/*
 * trash_keep.c - a trash entry's checkpoints and review, kept under
 * refs/agenttask/trash-kept/ (trash_keep.h).
 */
#include "git/trash_keep.h"

#include <stdlib.h>
#include <string.h>

#include "core/checkpoint.h"
#include "core/comments.h"
#include "core/name.h"
#include "core/paths.h"
#include "core/strlist.h"
#include "core/util.h"
#include "git/checkpoint.h"
#include "git/internal.h"

#define COMMENTS_ENTRY "comments.json"

/* refs/agenttask/trash/NAME/STAMP -> NAME (checked) and STAMP. */
static int split(const char *entry, char *name, const char **stamp, struct at_error *err)
{
	size_t plen = strlen(AT_TRASH_REFS);
	const char *s;

	if (strncmp(entry, AT_TRASH_REFS, plen) != 0 || !(s = strchr(entry + plen, '/')) ||
	    (size_t)(s - entry - plen) > AT_NAME_MAX || !s[1] || strchr(s + 1, '/'))
		return at_error_set(err, AT_EUSAGE, "not a trash entry '%s'", entry);
	memcpy(name, entry + plen, (size_t)(s - entry - plen));
	name[s - entry - plen] = '\0';
	*stamp = s + 1;
	return at_name_check(name, err);
}

/* The names of the refs glob matches, into out. */
static int refs_of(struct at_repo *r, const char *glob, struct at_strlist *out,
		   struct at_error *err)
{
	git_reference_iterator *it = NULL;
	git_reference *ref;
	int rc = 0;

	if (git_reference_iterator_glob_new(&it, r->repo, glob) < 0)
		return at_git_error(err, AT_EGIT, "cannot list '%s'", glob);
	while (rc == 0 && git_reference_next(&ref, it) == 0) {
		if (at_strlist_push(out, git_reference_name(ref)) < 0)
			rc = at_error_set(err, AT_ESYS, "out of memory");
		git_reference_free(ref);
	}
	git_reference_iterator_free(it);
	git_error_clear();
	return rc;
}

/* A kept ref's N when it is .../checkpoints/N; 0 otherwise. */
static unsigned kept_number(const char *ref)
{
	const char *s = strrchr(ref, '/');
	unsigned long n;
	char *end;

	if (!s || s - ref < 12 || strncmp(s - 12, "/checkpoints", 12) != 0 || s[1] < '1' ||
	    s[1] > '9')
		return 0;
	n = strtoul(s + 1, &end, 10);
	return *end == '\0' && n <= AT_CHECKPOINT_MAX ? (unsigned)n : 0;
}

static int set_ref(struct at_repo *r, const char *refname, const git_oid *id, const char *why,
		   struct at_error *err)
{
	git_reference *ref = NULL;

	if (git_reference_create(&ref, r->repo, refname, id, 1, why) < 0)
		return at_git_error(err, AT_EGIT, "cannot write '%s'", refname);
	git_reference_free(ref);
	return 0;
}

/* The comments file's text (NULL: none worth keeping, or unreadable). */
static char *comments_text(struct at_repo *r, const char *name)
{
	struct at_error ignored = AT_ERROR_INIT;
	struct at_comments c = { 0 };
	char *text = NULL;

	if (at_comments_load(at_repo_paths(r), name, &c, &ignored) == 0 &&
	    (c.n || c.has_reviewed))
		text = at_comments_to_json(&c);
	at_comments_release(&c);
	return text;
}

/* The review commit: comments.json (text, or nothing) on the reviews ref's tip. */
static int review_commit(struct at_repo *r, const char *name, const char *text,
			 const git_oid *tip, git_oid *out, struct at_error *err)
{
	git_treebuilder *tb = NULL;
	git_signature *sig = NULL;
	git_commit *parent = NULL;
	git_tree *tree = NULL;
	git_oid blob, tree_id;
	char msg[AT_NAME_MAX + 64];
	int rc;

	if (at_fmt(msg, sizeof(msg), "agenttask: the review of task '%s', kept in the trash",
		   name) < 0)
		return at_error_set(err, AT_ESYS, "task name too long '%s'", name);
	if ((rc = at_git_signature(&sig, r->repo, err)) < 0)
		return rc;
	if (git_treebuilder_new(&tb, r->repo, NULL) < 0 ||
	    (text && (git_blob_create_from_buffer(&blob, r->repo, text, strlen(text)) < 0 ||
		      git_treebuilder_insert(NULL, tb, COMMENTS_ENTRY, &blob,
					     GIT_FILEMODE_BLOB) < 0)) ||
	    git_treebuilder_write(&tree_id, tb) < 0 || git_tree_lookup(&tree, r->repo, &tree_id) < 0 ||
	    (tip && git_commit_lookup(&parent, r->repo, tip) < 0) ||
	    git_commit_create_v(out, r->repo, NULL, sig, sig, NULL, msg, tree, parent ? 1 : 0,
				parent) < 0)
		rc = at_git_error(err, AT_EGIT, "cannot keep the review of '%s'", name);
	git_commit_free(parent);
	git_tree_free(tree);
	git_treebuilder_free(tb);
	git_signature_free(sig);
	return rc;
}

static int keep_review(struct at_repo *r, const char *name, const char *stamp,
		       struct at_error *err)
{
	char refname[AT_REF_MAX];
	git_object *obj = NULL;
	char *text = NULL;
	git_oid tip, id;
	bool has_tip;
	int rc;

	if ((rc = at_paths_review_ref(name, refname, sizeof(refname), err)) < 0)
		return rc;
	/* A reviews ref that names no commit keeps nothing: it must not stop a discard. */
	has_tip = git_reference_name_to_id(&tip, r->repo, refname) == 0 &&
		  git_object_lookup(&obj, r->repo, &tip, GIT_OBJECT_COMMIT) == 0;
	git_object_free(obj);
	git_error_clear();
	text = comments_text(r, name);
	if (!has_tip && !text)
		return 0;
	if ((rc = review_commit(r, name, text, has_tip ? &tip : NULL, &id, err)) == 0 &&
	    (rc = at_paths_trash_kept_review(name, stamp, refname, sizeof(refname), err)) == 0)
		rc = set_ref(r, refname, &id, "agenttask: discard", err);
	free(text);
	return rc;
}

int at_trash_keep(struct at_repo *r, const char *entry, struct at_error *err)
{
	struct at_checkpoint_list l = { NULL, 0 };
	char name[AT_NAME_MAX + 1], refname[AT_REF_MAX];
	const char *stamp;
	git_oid id;
	size_t i;
	int rc;

	if ((rc = split(entry, name, &stamp, err)) < 0 ||
	    (rc = at_checkpoint_list(r, name, &l, err)) < 0)
		return rc;
	for (i = 0; i < l.n && rc == 0; i++) {
		at_oid_to_git(&id, &l.v[i].commit);
		if ((rc = at_paths_trash_kept_checkpoint(name, stamp, l.v[i].n, refname,
							 sizeof(refname), err)) == 0)
			rc = set_ref(r, refname, &id, "agenttask: discard", err);
	}
	at_checkpoint_list_release(&l);
	return rc < 0 ? rc : keep_review(r, name, stamp, err);
}

/* comments.json of the kept review commit c written back as the task's comments file. */
static int restore_comments(struct at_repo *r, const char *name, git_commit *c,
			    struct at_error *err)
{
	struct at_comments comments = { 0 };
	const git_tree_entry *e;
	git_tree *tree = NULL;
	git_blob *blob = NULL;
	char *text = NULL;
	size_t size;
	int rc = 0;

	if (git_commit_tree(&tree, c) < 0)
		return at_git_error(err, AT_EGIT, "cannot read the kept review of '%s'", name);
	if (!(e = git_tree_entry_byname(tree, COMMENTS_ENTRY)))
		goto out;
	/* Agenttask's own object, still checked as the file is: a bound, then the parser. */
	if (git_tree_entry_type(e) != GIT_OBJECT_BLOB ||
	    git_blob_lookup(&blob, r->repo, git_tree_entry_id(e)) < 0 ||
	    (size = (size_t)git_blob_rawsize(blob)) > AT_COMMENTS_FILE_MAX) {
		rc = at_error_set(err, AT_ECORRUPT, "cannot read the kept comments of '%s'", name);
		goto out;
	}
	if (!(text = malloc(size + 1))) {
		rc = at_error_set(err, AT_ESYS, "out of memory");
		goto out;
	}
	memcpy(text, git_blob_rawcontent(blob), size);
	text[size] = '\0';
	if ((rc = at_comments_from_json(text, "the trash entry's comments", &comments, err)) == 0)
		rc = at_comments_save(at_repo_paths(r), name, &comments, err);
out:
	at_comments_release(&comments);
	free(text);
	git_blob_free(blob);
	git_tree_free(tree);
	git_error_clear();
	return rc;
}

static int restore_review(struct at_repo *r, const char *name, const char *kept,
			  struct at_error *err)
{
	git_commit *c = NULL;
	char refname[AT_REF_MAX];
	git_oid id;
	int rc;

	if (git_reference_name_to_id(&id, r->repo, kept) < 0 ||
	    git_commit_lookup(&c, r->repo, &id) < 0)
		return at_git_error(err, AT_EGIT, "cannot read '%s'", kept);
	if ((rc = at_paths_review_ref(name, refname, sizeof(refname), err)) == 0 &&
	    git_commit_parentcount(c) == 1)
		rc = set_ref(r, refname, git_commit_parent_id(c, 0), "agenttask: restore", err);
	if (rc == 0)
		rc = restore_comments(r, name, c, err);
	git_commit_free(c);
	return rc;
}

int at_trash_keep_restore(struct at_repo *r, const char *entry, struct at_error *err)
{
	struct at_strlist refs = AT_STRLIST_INIT;
	char name[AT_NAME_MAX + 1], glob[AT_REF_MAX], refname[AT_REF_MAX];
	const char *stamp, *last;
	git_oid id;
	unsigned n;
	size_t i;
	int rc;

	if ((rc = split(entry, name, &stamp, err)) < 0 ||
	    (rc = at_paths_trash_kept_glob(name, stamp, glob, sizeof(glob), err)) < 0 ||
	    (rc = refs_of(r, glob, &refs, err)) < 0)
		goto out;
	for (i = 0; i < refs.n && rc == 0; i++) {
		last = strrchr(refs.v[i], '/') + 1;
		if (strcmp(last, "review") == 0) {
			rc = restore_review(r, name, refs.v[i], err);
			continue;
		}
		if (!(n = kept_number(refs.v[i])))
			continue;
		if (git_reference_name_to_id(&id, r->repo, refs.v[i]) < 0)
			rc = at_git_error(err, AT_EGIT, "cannot read '%s'", refs.v[i]);
		else if ((rc = at_paths_checkpoint_ref(name, n, refname, sizeof(refname), err)) == 0)
			rc = set_ref(r, refname, &id, "agenttask: restore", err);
	}
out:
	at_strlist_release(&refs);
	return rc;
}

static int delete_refs(struct at_repo *r, const struct at_strlist *refs, struct at_report *rep,
		       struct at_error *err)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < refs->n && rc == 0; i++) {
		int gr = git_reference_remove(r->repo, refs->v[i]);

		if (gr < 0 && gr != GIT_ENOTFOUND)
			rc = at_git_error(err, AT_EGIT, "cannot delete '%s'", refs->v[i]);
		else if (rep)
			rc = at_report_add(rep, "pruned '%s' (its trash entry is gone)", refs->v[i]);
		git_error_clear();
	}
	return rc;
}

int at_trash_keep_drop(struct at_repo *r, const char *entry, struct at_error *err)
{
	struct at_strlist refs = AT_STRLIST_INIT;
	char name[AT_NAME_MAX + 1], glob[AT_REF_MAX];
	const char *stamp;
	int rc;

	if ((rc = split(entry, name, &stamp, err)) == 0 &&
	    (rc = at_paths_trash_kept_glob(name, stamp, glob, sizeof(glob), err)) == 0 &&
	    (rc = refs_of(r, glob, &refs, err)) == 0)
		rc = delete_refs(r, &refs, NULL, err);
	at_strlist_release(&refs);
	return rc;
}

unsigned at_trash_keep_count(struct at_repo *r, const char *entry)
{
	struct at_strlist refs = AT_STRLIST_INIT;
	struct at_error ignored = AT_ERROR_INIT;
	char name[AT_NAME_MAX + 1], glob[AT_REF_MAX];
	const char *stamp;
	unsigned count = 0;
	size_t i;

	if (split(entry, name, &stamp, &ignored) == 0 &&
	    at_paths_trash_kept_glob(name, stamp, glob, sizeof(glob), &ignored) == 0 &&
	    refs_of(r, glob, &refs, &ignored) == 0)
		for (i = 0; i < refs.n; i++)
			count += kept_number(refs.v[i]) != 0;
	at_strlist_release(&refs);
	return count;
}

/* Is the entry a kept ref belongs to (refs/agenttask/trash-kept/NAME/STAMP/...) there? */
static bool entry_there(struct at_repo *r, const char *kept)
{
	const char *rest = kept + strlen(AT_TRASH_KEPT_REFS), *slash;
	char entry[AT_REF_MAX];
	git_oid id;
	bool there;

	if (!(slash = strchr(rest, '/')) || !(slash = strchr(slash + 1, '/')) ||
	    at_fmt(entry, sizeof(entry), AT_TRASH_REFS "%.*s", (int)(slash - rest), rest) < 0)
		return false;
	there = git_reference_name_to_id(&id, r->repo, entry) == 0;
	git_error_clear();
	return there;
}

int at_trash_keep_prune(struct at_repo *r, struct at_report *rep, struct at_error *err)
{
	struct at_strlist all = AT_STRLIST_INIT, gone = AT_STRLIST_INIT;
	size_t i;
	int rc;

	if ((rc = refs_of(r, AT_TRASH_KEPT_REFS "*", &all, err)) == 0)
		for (i = 0; i < all.n && rc == 0; i++)
			if (!entry_there(r, all.v[i]) && at_strlist_push(&gone, all.v[i]) < 0)
				rc = at_error_set(err, AT_ESYS, "out of memory");
	if (rc == 0)
		rc = delete_refs(r, &gone, rep, err);
	at_strlist_release(&all);
	at_strlist_release(&gone);
	return rc;
}
