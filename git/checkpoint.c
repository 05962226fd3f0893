/*
 * checkpoint.c - a task's checkpoints as commits under hidden refs, and the
 * restore a rewind makes (checkpoint.h).
 */
#include "git/checkpoint.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/name.h"
#include "core/paths.h"
#include "core/strlist.h"
#include "core/trace.h"
#include "core/util.h"
#include "git/apply_paths.h"
#include "git/internal.h"
#include "git/tree_changes.h"

static int message(char *buf, size_t size, const struct at_task *t, enum at_checkpoint_kind kind)
{
	return at_fmt(buf, size,
		      "agenttask: checkpoint of task '%s' before a %s\n\n"
		      "Agenttask-Task: %s\nAgenttask-Checkpoint: %s\nAgenttask-Branch: %s\n",
		      t->name, at_checkpoint_kind_name(kind), t->name, at_checkpoint_kind_name(kind), t->branch);
}

/* The kind a checkpoint commit's message records (a run's when it says nothing else). */
static enum at_checkpoint_kind kind_of(const char *msg)
{
	const char *k = strstr(msg, "\nAgenttask-Checkpoint: ");

	return k && strncmp(k + 23, "rewind\n", 7) == 0 ? AT_CHECKPOINT_REWIND : AT_CHECKPOINT_RUN;
}

/* refs/agenttask/checkpoints/NAME/N -> N; 0 when not of that form. */
static unsigned number_of(const char *refname, const char *name)
{
	size_t plen = strlen(AT_CHECKPOINT_REFS), nlen = strlen(name);
	const char *s = refname + plen + nlen + 1;
	unsigned long n;
	char *end;

	if (strncmp(refname, AT_CHECKPOINT_REFS, plen) != 0 ||
	    strncmp(refname + plen, name, nlen) != 0 || refname[plen + nlen] != '/' ||
	    s[0] < '1' || s[0] > '9')
		return 0;
	n = strtoul(s, &end, 10);
	return *end == '\0' && n <= AT_CHECKPOINT_MAX ? (unsigned)n : 0;
}

static bool read_one(git_repository *repo, const char *refname, unsigned n,
		     struct at_checkpoint *out)
{
	git_object *obj = NULL;
	git_commit *c = NULL;
	bool ok = false;

	if (git_revparse_single(&obj, repo, refname) == 0 &&
	    git_object_peel((git_object **)&c, obj, GIT_OBJECT_COMMIT) == 0 &&
	    git_commit_parentcount(c) == 1) {
		out->n = n;
		out->kind = kind_of(git_commit_message(c));
		at_oid_from_git(&out->commit, git_commit_id(c));
		at_oid_from_git(&out->tip, git_commit_parent_id(c, 0));
		at_oid_from_git(&out->tree, git_commit_tree_id(c));
		out->time = (int64_t)git_commit_time(c);
		ok = true;
	}
	git_commit_free(c);
	git_object_free(obj);
	git_error_clear();
	return ok;
}

static int by_number(const void *pa, const void *pb)
{
	const struct at_checkpoint *a = pa, *b = pb;

	return a->n < b->n ? -1 : a->n > b->n;
}

int at_checkpoint_list(struct at_repo *r, const char *name, struct at_checkpoint_list *out,
		       struct at_error *err)
{
	git_reference_iterator *it = NULL;
	git_reference *ref;
	struct at_checkpoint c;
	char glob[AT_REF_MAX];
	size_t cap = 0;
	unsigned n;
	int rc = 0;

	out->v = NULL;
	out->n = 0;
	/* A checked name: no glob character reaches the pattern. */
	if (at_name_check(name, err) < 0 || at_paths_checkpoint_glob(name, glob, sizeof(glob), err) < 0)
		return err->code;
	if (git_reference_iterator_glob_new(&it, r->repo, glob) < 0)
		return at_git_error(err, AT_EGIT, "cannot list the checkpoints of '%s'", name);
	while (rc == 0 && git_reference_next(&ref, it) == 0) {
		n = number_of(git_reference_name(ref), name);
		if (n && read_one(r->repo, git_reference_name(ref), n, &c)) {
			if (AT_ARRAY_GROW(out->v, cap, out->n + 1) < 0)
				rc = at_error_set(err, AT_ESYS, "out of memory");
			else
				out->v[out->n++] = c;
		}
		git_reference_free(ref);
	}
	git_reference_iterator_free(it);
	git_error_clear();
	if (rc < 0) {
		at_checkpoint_list_release(out);
		return rc;
	}
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), by_number);
	return 0;
}

/* The commit of the new checkpoint: the last one's when the state is the same. */
static int checkpoint_commit(struct at_repo *r, const struct at_task *t,
			     const struct at_task_state *st, enum at_checkpoint_kind kind,
			     const struct at_checkpoint *last, git_oid *out, struct at_error *err)
{
	git_signature *sig = NULL;
	git_commit *parent = NULL;
	git_tree *tree = NULL;
	git_oid tip, tree_id;
	char msg[1024];
	int rc = 0;

	if (last && last->kind == kind && at_oid_equal(&last->tip, &st->tip) &&
	    at_oid_equal(&last->tree, &st->tree)) {
		at_oid_to_git(out, &last->commit);
		return 0;
	}
	at_oid_to_git(&tip, &st->tip);
	at_oid_to_git(&tree_id, &st->tree);
	if (message(msg, sizeof(msg), t, kind) < 0)
		return at_error_set(err, AT_ESYS, "task name too long '%s'", t->name);
	if ((rc = at_git_signature(&sig, r->repo, err)) < 0)
		return rc;
	if (git_commit_lookup(&parent, r->repo, &tip) < 0 ||
	    git_tree_lookup(&tree, r->repo, &tree_id) < 0 ||
	    git_commit_create_v(out, r->repo, NULL, sig, sig, NULL, msg, tree, 1, parent) < 0)
		rc = at_git_error(err, AT_EGIT, "cannot record a checkpoint of '%s'", t->name);
	git_tree_free(tree);
	git_commit_free(parent);
	git_signature_free(sig);
	return rc;
}

int at_checkpoint_take(struct at_repo *r, const struct at_task *t, const struct at_task_state *st,
		       enum at_checkpoint_kind kind, struct at_checkpoint *out,
		       struct at_error *err)
{
	struct at_checkpoint_list l;
	git_reference *ref = NULL;
	char refname[AT_REF_MAX];
	git_oid id;
	unsigned n, tries;
	int rc;

	if ((rc = at_checkpoint_list(r, t->name, &l, err)) < 0)
		return rc;
	rc = checkpoint_commit(r, t, st, kind, l.n ? &l.v[l.n - 1] : NULL, &id, err);
	n = l.n ? l.v[l.n - 1].n + 1 : 1;
	at_checkpoint_list_release(&l);
	/* Another taker may win a number: the next one then (the ref is created only if absent). */
	for (tries = 0; rc == 0; tries++, n++) {
		if (n > AT_CHECKPOINT_MAX)
			return at_error_set(err, AT_ESYS, "task '%s' has too many checkpoints",
					    t->name);
		if ((rc = at_paths_checkpoint_ref(t->name, n, refname, sizeof(refname), err)) < 0)
			return rc;
		rc = git_reference_create(&ref, r->repo, refname, &id, 0, "agenttask: checkpoint");
		git_reference_free(ref);
		if (rc == 0)
			break;
		if (rc != GIT_EEXISTS || tries >= 64)
			return at_git_error(err, AT_EGIT, "cannot record a checkpoint of '%s'",
					    t->name);
		git_error_clear();
		rc = 0;
	}
	if (rc < 0)
		return rc;
	memset(out, 0, sizeof(*out));
	out->n = n;
	out->kind = kind;
	at_oid_from_git(&out->commit, &id);
	out->tip = st->tip;
	out->tree = st->tree;
	return 0;
}

int at_checkpoint_remove_all(struct at_repo *r, const char *name, struct at_error *err)
{
	struct at_checkpoint_list l;
	git_reference *ref = NULL;
	char refname[AT_REF_MAX];
	size_t i;
	int rc;

	if ((rc = at_checkpoint_list(r, name, &l, err)) < 0)
		return rc;
	for (i = 0; i < l.n && rc == 0; i++) {
		if ((rc = at_paths_checkpoint_ref(name, l.v[i].n, refname, sizeof(refname), err)) < 0)
			break;
		if (git_reference_lookup(&ref, r->repo, refname) == 0 && git_reference_delete(ref) < 0)
			rc = at_git_error(err, AT_EGIT, "cannot delete '%s'", refname);
		git_reference_free(ref);
		ref = NULL;
		git_error_clear();
	}
	at_checkpoint_list_release(&l);
	return rc;
}

/* ---- restore ---- */

/* Sorted, each once: a and b merged (both sorted, as at_tree_changed_paths gives them). */
static int merge_paths(const git_strarray *a, const git_strarray *b, struct at_strlist *out)
{
	size_t i = 0, j = 0;
	int c;

	while (i < a->count || j < b->count) {
		if (i == a->count)
			c = 1;
		else if (j == b->count)
			c = -1;
		else
			c = strcmp(a->strings[i], b->strings[j]);
		if (at_strlist_push(out, c <= 0 ? a->strings[i] : b->strings[j]) < 0)
			return -1;
		if (c <= 0)
			i++;
		if (c >= 0)
			j++;
	}
	return 0;
}

static int changed(git_repository *repo, const git_oid *a_id, const git_oid *b_id,
		   git_strarray *out, struct at_error *err)
{
	git_tree *a = NULL, *b = NULL;
	int rc = 0;

	if (git_tree_lookup(&a, repo, a_id) < 0 || git_tree_lookup(&b, repo, b_id) < 0 ||
	    at_tree_changed_paths(repo, a, b, SIZE_MAX, out) != 0)
		rc = at_git_error(err, AT_EGIT, "cannot compare two states");
	git_tree_free(a);
	git_tree_free(b);
	return rc;
}

/* The tree of commit id. */
static int commit_tree(git_repository *repo, const struct at_oid *id, git_tree **out,
		       struct at_error *err)
{
	git_commit *c = NULL;
	git_oid oid;
	int rc = 0;

	at_oid_to_git(&oid, id);
	if (git_commit_lookup(&c, repo, &oid) < 0 || git_commit_tree(out, c) < 0)
		rc = at_git_error(err, AT_EGIT, "cannot read commit");
	git_commit_free(c);
	return rc;
}

static int move_branch(git_repository *repo, const struct at_task *t, const struct at_oid *from,
		       const struct at_oid *to, struct at_error *err)
{
	git_reference *ref = NULL;
	git_oid f, n;
	int rc = 0;

	if (at_oid_equal(from, to))
		return 0;
	at_oid_to_git(&f, from);
	at_oid_to_git(&n, to);
	if (git_reference_create_matching(&ref, repo, t->branch, &n, 1, &f,
					  "agenttask: rewind") < 0)
		rc = at_git_error(err, AT_ESTALE, "cannot move the branch of '%s' back", t->name);
	git_reference_free(ref);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The index entries that differ from tree `to` when the state did not say
 * what the index was (the scan's general path): the index read whole by
 * libgit2 and compared, no worktree file read. Sorted.
 */
static int index_changed(git_repository *repo, const struct at_task *t, git_tree *to,
			 git_strarray *out, struct at_error *err)
{
	char path[PATH_MAX];
	git_index *idx = NULL;
	git_diff *diff = NULL;
	size_t i, n = 0;
	int rc = 0;

	if (at_fmt(path, sizeof(path), "%s/index", t->admin_dir) < 0)
		return at_error_set(err, AT_ESYS, "path too long '%s'", t->admin_dir);
	if (git_index_open(&idx, path) < 0 ||
	    git_diff_tree_to_index(&diff, repo, to, idx, NULL) < 0) {
		rc = at_git_error(err, AT_EGIT, "cannot read the index of '%s'", t->name);
		goto out;
	}
	n = git_diff_num_deltas(diff);
	if (!(out->strings = calloc(n ? n : 1, sizeof(char *)))) {
		rc = at_error_set(err, AT_ESYS, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);

		if (!(out->strings[out->count] = strdup(d->old_file.path ? d->old_file.path
									  : d->new_file.path))) {
			rc = at_error_set(err, AT_ESYS, "out of memory");
			goto out;
		}
		out->count++;
	}
	if (out->count > 1)
		qsort(out->strings, out->count, sizeof(char *), cmp_str);
	/* Each once: a type change is a deletion and an addition of one path. */
	for (i = n = 0; i < out->count; i++) {
		if (n && strcmp(out->strings[n - 1], out->strings[i]) == 0)
			free(out->strings[i]);
		else
			out->strings[n++] = out->strings[i];
	}
	out->count = n;
out:
	git_diff_free(diff);
	git_index_free(idx);
	return rc;
}

/*
 * Which files differ: now's full state against to's, tree to tree (the
 * scan that took now read the worktree; nothing reads it again). Which
 * index entries differ: now's index (its tree, that the scan gave) against
 * to's tip, tree to tree too, or else the index read.
 */
static int what_differs(git_repository *wt, const struct at_task *t,
			const struct at_task_state *now, const struct at_checkpoint *to,
			git_tree *to_tip, git_strarray *files, git_strarray *index,
			struct at_error *err)
{
	git_oid a, b, tip_tree;

	at_oid_to_git(&a, &now->tree);
	at_oid_to_git(&b, &to->tree);
	if (changed(wt, &a, &b, files, err) < 0)
		return err->code;
	/*
	 * In byte order, as the index and the writers want them: the compare
	 * lists a directory "d" where a tree sorts it ("d/", after "d.txt").
	 */
	if (files->count > 1)
		qsort(files->strings, files->count, sizeof(char *), cmp_str);
	if (at_oid_is_zero(&now->index))
		return index_changed(wt, t, to_tip, index, err);
	at_oid_to_git(&a, &now->index);
	git_oid_cpy(&tip_tree, git_tree_id(to_tip));
	if (changed(wt, &a, &tip_tree, index, err) < 0)
		return err->code;
	if (index->count > 1)
		qsort(index->strings, index->count, sizeof(char *), cmp_str);
	return 0;
}

int at_checkpoint_restore(struct at_repo *r, const struct at_task *t,
			  const struct at_task_state *now, const struct at_checkpoint *to,
			  size_t *npaths, struct at_error *err)
{
	struct at_apply_opts ao = { .workdir = t->path };
	git_strarray files = { NULL, 0 }, index = { NULL, 0 };
	git_oid to_tree, base;
	git_repository *wt = NULL;
	git_tree *files_to = NULL;
	struct at_strlist paths = AT_STRLIST_INIT;
	struct at_oid base_id;
	bool any;
	int rc;

	/* The task's repository opened bare: libgit2 reads no file of the worktree. */
	if ((rc = at_git_open_task_repo(&wt, t, err)) < 0)
		return rc;
	at_oid_to_git(&to_tree, &to->tree);
	if ((rc = commit_tree(wt, &to->tip, &ao.index_to, err)) < 0 ||
	    (rc = what_differs(wt, t, now, to, ao.index_to, &files, &index, err)) < 0)
		goto out;
	if (merge_paths(&files, &index, &paths) < 0) {
		rc = at_error_set(err, AT_ESYS, "out of memory");
		goto out;
	}
	/*
	 * Smudged with the base commit's attributes alone, as the scan cleaned
	 * them: repo's index becomes those (git/attrs.c), never the task's.
	 */
	if (at_oid_parse(&base_id, t->base_commit) == 0) {
		at_oid_to_git(&base, &base_id);
		ao.attr_commit = &base;
		if ((rc = at_git_attrs_from_base(wt, &base, (const char *const *)files.strings,
						 files.count, &any, err)) < 0)
			goto out;
	}
	if (git_tree_lookup(&files_to, wt, &to_tree) < 0) {
		rc = at_git_error(err, AT_EGIT, "cannot read checkpoint %u of '%s'", to->n, t->name);
		goto out;
	}
	*npaths = paths.n;
	ao.own_index = true;
	ao.index_paths = index.strings;
	ao.nindex_paths = index.count;
	at_apply_clear_stale_lock(wt);
	if (paths.n &&
	    (rc = at_apply_paths_ext(wt, files_to, &ao, files.strings, files.count, err)) < 0)
		goto out;
	at_test_kill_point("rewind:index");
	rc = move_branch(r->repo, t, &now->tip, &to->tip, err);
out:
	at_strlist_release(&paths);
	at_tree_paths_free(&files);
	at_tree_paths_free(&index);
	git_tree_free(files_to);
	git_tree_free(ao.index_to);
	git_repository_free(wt);
	return rc;
}

int at_review_keep(struct at_repo *r, const char *name, const struct at_oid *tree,
		   struct at_error *err)
{
	git_signature *sig = NULL;
	git_commit *last = NULL;
	git_tree *t = NULL;
	char refname[AT_REF_MAX], msg[AT_NAME_MAX + 64];
	git_oid tree_id, tip, id;
	int rc, n;

	if ((rc = at_paths_review_ref(name, refname, sizeof(refname), err)) < 0)
		return rc;
	at_oid_to_git(&tree_id, tree);
	if (git_reference_name_to_id(&tip, r->repo, refname) == 0 &&
	    git_commit_lookup(&last, r->repo, &tip) == 0 &&
	    git_oid_equal(git_commit_tree_id(last), &tree_id)) {
		git_commit_free(last);
		return 0;
	}
	git_error_clear();
	n = snprintf(msg, sizeof(msg), "agenttask: a state of task '%s' the person reviewed", name);
	if (n < 0 || (size_t)n >= sizeof(msg))
		return at_error_set(err, AT_ESYS, "task name too long '%s'", name);
	if ((rc = at_git_signature(&sig, r->repo, err)) == 0 &&
	    (git_tree_lookup(&t, r->repo, &tree_id) < 0 ||
	     git_commit_create_v(&id, r->repo, NULL, sig, sig, NULL, msg, t, last ? 1 : 0, last) < 0 ||
	     git_reference_create_matching(NULL, r->repo, refname, &id, 1, last ? &tip : NULL,
					   "agenttask: reviewed") < 0))
		rc = at_git_error(err, AT_EGIT, "cannot keep the reviewed state of '%s'", name);
	git_tree_free(t);
	git_commit_free(last);
	git_signature_free(sig);
	return rc;
}

int at_review_forget(struct at_repo *r, const char *name, struct at_error *err)
{
	char refname[AT_REF_MAX];
	int rc;

	if ((rc = at_paths_review_ref(name, refname, sizeof(refname), err)) < 0)
		return rc;
	rc = git_reference_remove(r->repo, refname);
	if (rc < 0 && rc != GIT_ENOTFOUND)
		return at_git_error(err, AT_EGIT, "cannot delete '%s'", refname);
	git_error_clear();
	return 0;
}
