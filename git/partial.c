#include "git/partial.h"

#include <stdio.h>
#include <string.h>

#include "git/apply_paths.h"
#include "git/diff.h"
#include "git/internal.h"
#include "git/tree_changes.h"
#include "core/trace.h"

struct split {
	git_repository *repo;
	const char *task;
	const struct at_change_set *cs;
	git_pathspec *paths;        /* NULL: every change */
	git_pathspec *exclude;      /* NULL: none */
	git_tree *base, *state;
	struct at_partial out;
	struct at_error *err;
};

static bool matches(git_pathspec *ps, const struct at_change_file *f)
{
	return git_pathspec_matches_path(ps, 0, f->path) == 1 ||
	       git_pathspec_matches_path(ps, 0, f->old_path) == 1;
}

static bool selected(const struct split *s, const struct at_change_file *f)
{
	return (!s->paths || matches(s->paths, f)) && !(s->exclude && matches(s->exclude, f));
}

static int pathspec(git_pathspec **out, char *const *v, size_t n, struct at_error *err)
{
	git_strarray spec = { (char **)v, n };

	*out = NULL;
	if (n && git_pathspec_new(out, &spec) < 0)
		return at_git_error(err, AT_EUSAGE, "invalid pathspec '%s'", v[0]);
	return 0;
}

/* Like git's "pathspec 'x' did not match any files": each one must select something. */
static int check_each_matches(struct split *s, const struct at_partial_spec *spec)
{
	git_pathspec *one = NULL;
	size_t i, j;
	bool hit;
	int rc = 0;

	for (i = 0; i < spec->n && rc == 0; i++) {
		if ((rc = pathspec(&one, &spec->paths[i], 1, s->err)) < 0)
			break;
		for (j = 0, hit = false; j < s->cs->nfiles && !hit; j++)
			hit = matches(one, &s->cs->files[j]);
		git_pathspec_free(one);
		if (!hit)
			rc = at_error_set(s->err, AT_EUSAGE, "pathspec '%s' matches no change of "
					  "task '%s'", spec->paths[i], s->task);
	}
	return rc;
}

/* path in idx as `from` has it, or nothing. */
int at_git_index_take(git_index *idx, git_tree *from, const char *path, struct at_error *err)
{
	git_tree_entry *e = NULL;
	git_index_entry ie;
	int rc = 0;

	git_index_remove(idx, path, 0);
	git_error_clear();
	if (git_tree_entry_bypath(&e, from, path) < 0) {
		git_error_clear();
		return 0;
	}
	memset(&ie, 0, sizeof(ie));
	ie.path = path;
	ie.mode = git_tree_entry_filemode(e);
	git_oid_cpy(&ie.id, git_tree_entry_id(e));
	if (ie.mode != GIT_FILEMODE_TREE && git_index_add(idx, &ie) < 0)
		rc = at_git_error(err, AT_EGIT, "cannot stage '%s'", path);
	git_tree_entry_free(e);
	return rc;
}

/*
 * start with the selected changes taken from `from` (forward: start is the
 * base, from the state; backward: start is the state, from the base).
 */
static int build(struct split *s, git_tree *start, git_tree *from, git_oid *out)
{
	const struct at_change_file *f;
	git_index *idx = NULL;
	size_t i;
	int rc = 0;

	if (git_index_new(&idx) < 0 || git_index_read_tree(idx, start) < 0)
		rc = at_git_error(s->err, AT_EGIT, "cannot read the tree of the task");
	for (i = 0; rc == 0 && i < s->cs->nfiles; i++) {
		f = &s->cs->files[i];
		if (!selected(s, f))
			continue;
		rc = at_git_index_take(idx, from, f->old_path, s->err);
		if (rc == 0 && strcmp(f->old_path, f->path) != 0)
			rc = at_git_index_take(idx, from, f->path, s->err);
	}
	if (rc == 0 && git_index_write_tree_to(out, idx, s->repo) < 0)
		rc = at_git_error(s->err, AT_EGIT, "cannot write the tree of the part");
	git_index_free(idx);
	return rc;
}

/* Every path that differs between a and b is one of the selection's (no change split). */
static int check_whole(struct split *s, git_tree *a, const git_oid *b_id)
{
	git_strarray changed = { NULL, 0 };
	git_tree *b = NULL;
	size_t i;
	int rc = 0;

	if (git_tree_lookup(&b, s->repo, b_id) < 0 ||
	    at_tree_changed_paths(s->repo, a, b, SIZE_MAX, &changed) < 0)
		rc = at_git_error(s->err, AT_EGIT, "cannot compare the trees of the part");
	for (i = 0; rc == 0 && i < changed.count; i++)
		if (!at_strlist_has(&s->out.taken, changed.strings[i]))
			rc = at_error_set(s->err, AT_EUSAGE, "the selection splits the change of "
					  "'%s' (a file and a directory in one place): select "
					  "both sides", changed.strings[i]);
	at_tree_paths_free(&changed);
	git_tree_free(b);
	return rc;
}

static int lists(struct split *s)
{
	const struct at_change_file *f;
	struct at_strlist *l;
	size_t i;

	for (i = 0; i < s->cs->nfiles; i++) {
		f = &s->cs->files[i];
		l = selected(s, f) ? &s->out.taken : &s->out.left;
		if (at_strlist_push(l, f->path) < 0 ||
		    (strcmp(f->old_path, f->path) != 0 && at_strlist_push(l, f->old_path) < 0))
			return at_error_set(s->err, AT_ESYS, "out of memory");
	}
	at_strlist_sort_unique(&s->out.taken);
	at_strlist_sort_unique(&s->out.left);
	if (s->out.taken.n == 0)
		return at_error_set(s->err, AT_EUSAGE, "the selection leaves no change of task "
				    "'%s' to take", s->task);
	return 0;
}

static int split(struct split *s, const struct at_partial_spec *spec)
{
	git_commit *mb = NULL;
	git_oid id, part, rest;
	int rc;

	if ((rc = check_each_matches(s, spec)) < 0 || (rc = lists(s)) < 0)
		return rc;
	s->out.merge_base = s->cs->base;
	at_oid_to_git(&id, &s->cs->base);
	if (git_commit_lookup(&mb, s->repo, &id) < 0 || git_commit_tree(&s->base, mb) < 0) {
		git_commit_free(mb);
		return at_git_error(s->err, AT_EGIT, "cannot read the merge base of the task");
	}
	git_commit_free(mb);
	at_oid_from_git(&s->out.base_tree, git_tree_id(s->base));
	at_oid_to_git(&id, &s->cs->tree);
	if (git_tree_lookup(&s->state, s->repo, &id) < 0)
		return at_git_error(s->err, AT_EGIT, "cannot read the state of the task");
	if ((rc = build(s, s->base, s->state, &part)) < 0 ||
	    (rc = build(s, s->state, s->base, &rest)) < 0 ||
	    (rc = check_whole(s, s->base, &part)) < 0 ||
	    (rc = check_whole(s, s->state, &rest)) < 0)
		return rc;
	at_oid_from_git(&s->out.part, &part);
	at_oid_from_git(&s->out.rest, &rest);
	return 0;
}

int at_partial_split(struct at_repo *r, struct at_worktree *w, const struct at_task_state *st,
		     const struct at_partial_spec *spec, struct at_partial *out,
		     struct at_error *err)
{
	struct split s;
	struct at_diff *d = NULL;
	int rc;

	memset(&s, 0, sizeof(s));
	s.repo = r->repo;
	s.task = w->task.name;
	s.err = err;
	if ((rc = at_diff_open_state(&d, r, w, st, err)) == 0 &&
	    (rc = at_diff_changes(d, &s.cs, err)) == 0 &&
	    (rc = pathspec(&s.paths, spec->paths, spec->n, err)) == 0 &&
	    (rc = pathspec(&s.exclude, spec->exclude, spec->nexclude, err)) == 0)
		rc = split(&s, spec);
	git_pathspec_free(s.paths);
	git_pathspec_free(s.exclude);
	git_tree_free(s.base);
	git_tree_free(s.state);
	at_diff_free(d);
	if (rc < 0) {
		at_partial_release(&s.out);
		return rc;
	}
	*out = s.out;
	return 0;
}

/* The paths where trees a and b differ, into l. */
static int differ(git_repository *repo, const git_oid *a_id, const git_oid *b_id,
		  struct at_strlist *l, struct at_error *err)
{
	git_strarray ch = { NULL, 0 };
	git_tree *a = NULL, *b = NULL;
	size_t i;
	int rc = 0;

	if (git_tree_lookup(&a, repo, a_id) < 0 || git_tree_lookup(&b, repo, b_id) < 0 ||
	    at_tree_changed_paths(repo, a, b, SIZE_MAX, &ch) < 0)
		rc = at_git_error(err, AT_EGIT, "cannot compare the trees of the part");
	for (i = 0; rc == 0 && i < ch.count; i++)
		if (at_strlist_push(l, ch.strings[i]) < 0)
			rc = at_error_set(err, AT_ESYS, "out of memory");
	at_tree_paths_free(&ch);
	git_tree_free(a);
	git_tree_free(b);
	return rc;
}

static int of_tree(struct at_repo *r, struct at_worktree *w, const struct at_task_state *st,
		   const struct at_oid *part, struct at_partial *out, struct at_error *err)
{
	const struct at_change_set *cs;
	struct at_diff *d = NULL;
	struct at_partial p;
	git_commit *mb = NULL;
	git_oid base, mid, state;
	int rc;

	memset(&p, 0, sizeof(p));
	if ((rc = at_diff_open_state(&d, r, w, st, err)) == 0 &&
	    (rc = at_diff_changes(d, &cs, err)) == 0) {
		p.merge_base = cs->base;
		at_oid_to_git(&base, &cs->base);
		if (git_commit_lookup(&mb, r->repo, &base) < 0)
			rc = at_git_error(err, AT_EGIT, "cannot read the merge base of the task");
	}
	at_diff_free(d);
	if (rc == 0) {
		at_oid_from_git(&p.base_tree, git_commit_tree_id(mb));
		p.part = *part;
		p.rest = *part;   /* not used: the rest is the worktree's */
		at_oid_to_git(&mid, part);
		at_oid_to_git(&state, &st->tree);
		rc = differ(r->repo, git_commit_tree_id(mb), &mid, &p.taken, err);
	}
	if (rc == 0)
		rc = differ(r->repo, &mid, &state, &p.left, err);
	git_commit_free(mb);
	if (rc < 0) {
		at_partial_release(&p);
		return rc;
	}
	*out = p;
	return 0;
}

int at_partial_of_tree(struct at_repo *r, struct at_worktree *w, const struct at_task_state *st,
		       const struct at_oid *part, struct at_partial *out, struct at_error *err)
{
	int rc = of_tree(r, w, st, part, out, err);

	if (rc == 0 && !out->taken.n) {
		at_partial_release(out);
		return at_error_set(err, AT_EUSAGE, "nothing picked of task '%s'", w->task.name);
	}
	return rc;
}

int at_partial_of_rest(struct at_repo *r, struct at_worktree *w, const struct at_task_state *st,
		       const struct at_oid *rest, struct at_partial *out, struct at_error *err)
{
	struct at_strlist kept;
	struct at_partial p;
	int rc;

	/* The rest seen as a part: what it takes is kept, what it leaves is dropped. */
	if ((rc = of_tree(r, w, st, rest, &p, err)) < 0)
		return rc;
	kept = p.taken;
	p.taken = p.left;
	p.left = kept;
	p.rest = *rest;
	if (!p.taken.n) {
		at_partial_release(&p);
		return at_error_set(err, AT_EUSAGE, "nothing picked to drop of task '%s'",
				    w->task.name);
	}
	*out = p;
	return 0;
}

void at_partial_release(struct at_partial *p)
{
	if (!p)
		return;
	at_strlist_release(&p->taken);
	at_strlist_release(&p->left);
}

static int part_commit(struct at_repo *r, const struct at_task *t, const struct at_partial *p,
		       const char *message, git_oid *out, struct at_error *err)
{
	git_signature *sig = NULL;
	git_commit *parent = NULL;
	git_tree *tree = NULL;
	char msg[512];
	git_oid id;
	int rc;

	if ((rc = at_git_signature(&sig, r->repo, err)) < 0)
		return rc;
	snprintf(msg, sizeof(msg), "agenttask: accept part of task '%s'\n", t->name);
	at_oid_to_git(&id, &p->merge_base);
	if (git_commit_lookup(&parent, r->repo, &id) < 0)
		rc = at_git_error(err, AT_EGIT, "cannot read the merge base of task '%s'", t->name);
	at_oid_to_git(&id, &p->part);
	if (rc == 0 && (git_tree_lookup(&tree, r->repo, &id) < 0 ||
			git_commit_create(out, r->repo, NULL, sig, sig, NULL,
					  message ? message : msg, tree, 1,
					  (const git_commit **)&parent) < 0))
		rc = at_git_error(err, AT_EGIT, "cannot commit the part of task '%s'", t->name);
	git_tree_free(tree);
	git_commit_free(parent);
	git_signature_free(sig);
	return rc;
}

/* w's staged index with the paths left as tree `as` has them, written as the task's index. */
static int part_index(struct at_repo *r, struct at_worktree *w, const struct at_partial *p,
		      const struct at_oid *as, struct at_error *err)
{
	git_tree *part = NULL;
	git_oid id;
	size_t i;
	int rc = 0;

	if (!w->staged)
		return at_error_set(err, AT_ESYS, "the task's index was not staged");
	at_oid_to_git(&id, as);
	if (git_tree_lookup(&part, r->repo, &id) < 0)
		return at_git_error(err, AT_EGIT, "cannot read the tree of the part");
	for (i = 0; rc == 0 && i < p->left.n; i++)
		rc = at_git_index_take(w->staged, part, p->left.v[i], err);
	if (rc == 0 && git_index_write(w->staged) < 0)
		rc = at_git_error(err, AT_EGIT, "cannot write the index of task '%s'", w->task.name);
	git_tree_free(part);
	return rc;
}

static int move_branch(struct at_repo *r, const struct at_task *t, const struct at_oid *from,
		       const git_oid *to, struct at_error *err)
{
	git_reference *ref = NULL;
	git_oid old;
	char msg[160];
	int rc;

	at_oid_to_git(&old, from);
	git_error_clear();
	snprintf(msg, sizeof(msg), "agenttask accept: part of task '%s'", t->name);
	rc = git_reference_create_matching(&ref, r->repo, t->branch, to, 1, &old, msg);
	git_reference_free(ref);
	if (rc == GIT_EMODIFIED)
		return at_error_set(err, AT_ESTALE, "the branch of task '%s' moved while it was "
				    "being accepted; review and accept again", t->name);
	if (rc < 0)
		return at_git_error(err, AT_EGIT, "cannot update branch '%s'",
				    at_branch_short(t->branch));
	return 0;
}

int at_partial_commit(struct at_repo *r, struct at_worktree *w, const struct at_task_state *st,
		      const struct at_partial *p, const char *message, struct at_oid *commit,
		      struct at_error *err)
{
	git_oid id;
	int rc;

	if ((rc = part_commit(r, &w->task, p, message, &id, err)) < 0 ||
	    (rc = part_index(r, w, p, &p->part, err)) < 0)
		return rc;
	at_test_kill_point("accept:part-index");
	if ((rc = move_branch(r, &w->task, &st->tip, &id, err)) < 0)
		return rc;
	at_test_kill_point("accept:part-branch");
	at_oid_from_git(commit, &id);
	return 0;
}

void at_partial_undo(struct at_repo *r, struct at_worktree *w, const struct at_task_state *st,
		     const struct at_partial *p, const struct at_oid *commit)
{
	struct at_error ignored = AT_ERROR_INIT;
	git_oid tip;

	at_oid_to_git(&tip, &st->tip);
	if (move_branch(r, &w->task, commit, &tip, &ignored) == 0)
		part_index(r, w, p, &st->tree, &ignored);
}

int at_partial_drop(struct at_worktree *w, const struct at_partial *p, struct at_error *err)
{
	git_tree *rest = NULL;
	git_oid id, base;
	int rc;

	at_oid_to_git(&id, &p->rest);
	at_oid_to_git(&base, &p->merge_base);
	if (git_tree_lookup(&rest, w->repo, &id) < 0)
		return at_git_error(err, AT_EGIT, "cannot read the tree the drop leaves");
	rc = at_apply_task_paths(w->repo, w->task.path, &base, rest, p->taken.v, p->taken.n, err);
	git_tree_free(rest);
	return rc;
}

/* Do trees a and b hold the same entry (or none) at path? */
static bool same_at(git_tree *a, git_tree *b, const char *path)
{
	git_tree_entry *ea = NULL, *eb = NULL;
	bool same;

	git_tree_entry_bypath(&ea, a, path);
	git_tree_entry_bypath(&eb, b, path);
	git_error_clear();
	same = (!ea && !eb) ||
	       (ea && eb && git_tree_entry_filemode(ea) == git_tree_entry_filemode(eb) &&
		git_oid_equal(git_tree_entry_id(ea), git_tree_entry_id(eb)));
	git_tree_entry_free(ea);
	git_tree_entry_free(eb);
	return same;
}

static int put_back(struct at_repo *r, struct at_worktree *w, git_tree *saved, git_tree *left,
		    git_tree *now, struct at_error *err)
{
	git_strarray paths = { NULL, 0 };
	git_oid base;
	size_t i;
	int rc = 0;

	if (at_tree_changed_paths(r->repo, left, saved, SIZE_MAX, &paths) < 0)
		return at_git_error(err, AT_EGIT, "cannot compare the trees of the entry");
	for (i = 0; i < paths.count && rc == 0; i++)
		if (!same_at(left, now, paths.strings[i]))
			rc = at_error_set(err, AT_EDIRTY, "'%s' of task '%s' changed since it was "
					  "dropped: nothing restored (discard that change first, "
					  "or restore the entry as a task of another name)",
					  paths.strings[i], w->task.name);
	if (rc == 0 && git_oid_fromstr(&base, w->task.base_commit) < 0)
		rc = at_error_set(err, AT_ECORRUPT, "task '%s' has an invalid base commit",
				  w->task.name);
	if (rc == 0 && paths.count)
		rc = at_apply_task_paths(w->repo, w->task.path, &base, saved, paths.strings,
					 paths.count, err);
	at_tree_paths_free(&paths);
	return rc;
}

int at_partial_put_back(struct at_repo *r, const struct at_task *t, const struct at_oid *saved,
			const struct at_oid *left, struct at_error *err)
{
	struct at_worktree *w = NULL;
	struct at_task_state st;
	git_tree *ts = NULL, *tl = NULL, *tn = NULL;
	git_oid id;
	int rc;

	if ((rc = at_worktree_open(&w, r, t, err)) < 0 ||
	    (rc = at_task_state(r, t, w, &st, err)) < 0)
		goto out;
	at_oid_to_git(&id, saved);
	if (git_tree_lookup(&ts, r->repo, &id) < 0)
		goto fail;
	at_oid_to_git(&id, left);
	if (git_tree_lookup(&tl, r->repo, &id) < 0)
		goto fail;
	at_oid_to_git(&id, &st.tree);
	if (git_tree_lookup(&tn, r->repo, &id) < 0)
		goto fail;
	rc = put_back(r, w, ts, tl, tn, err);
	goto out;
fail:
	rc = at_git_error(err, AT_EGIT, "cannot read the trees of task '%s'", t->name);
out:
	git_tree_free(ts);
	git_tree_free(tl);
	git_tree_free(tn);
	at_worktree_free(w);
	return rc;
}
