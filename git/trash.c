#include "git/trash.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/array.h"
#include "core/name.h"
#include "core/state.h"
#include "core/trace.h"
#include "core/util.h"
#include "git/internal.h"
#include "git/worktree.h"
#include "git/snapshot.h"
#include "git/trash_keep.h"
#include "git/wtread.h"

#define TRASH_PREFIX AT_TRASH_REFS
#define PART_LEFT "Agenttask-Part-Left"     /* a drop's entry: the tree the task was left with */

/*
 * The trash commit: tree = the task's full state, parent = the branch tip,
 * and the task's base recorded as trailers so restore can rebuild the task.
 */
static int trash_message(char *buf, size_t size, const struct at_task *t, const git_oid *left)
{
	char hex[AT_OID_HEXSZ + 1] = "";

	if (left)
		at_git_oid_hex(hex, left);
	return at_fmt(buf, size,
		      "agenttask: %s task '%s'\n\n"
		      "Agenttask-Task: %s\nAgenttask-Base-Branch: %s\nAgenttask-Base-Commit: %s\n"
		      "Agenttask-Created: %lld\n%s%s%s",
		      left ? "dropped part of" : "discarded", t->name, t->name, t->base_branch,
		      t->base_commit, (long long)t->created, left ? PART_LEFT ": " : "", hex,
		      left ? "\n" : "");
}

static int branch_tip(git_repository *repo, const struct at_task *t, git_commit **out,
		      struct at_error *err)
{
	git_object *obj = NULL;
	int rc = 0;

	if (git_revparse_single(&obj, repo, t->branch) < 0 ||
	    git_object_peel((git_object **)out, obj, GIT_OBJECT_COMMIT) < 0)
		rc = at_git_error(err, AT_EGIT, "cannot read branch '%s'", at_branch_short(t->branch));
	git_object_free(obj);
	return rc;
}

struct stamp {
	long long sec;
	long nsec;
};

/* refs/agenttask/trash/NAME/SECONDS.NANOS -> its time; false when not of that form. */
static bool trash_stamp(const char *refname, struct stamp *out)
{
	const char *slash = strrchr(refname, '/');
	char *end;

	out->sec = 0;
	out->nsec = 0;
	if (!slash || slash[1] < '0' || slash[1] > '9')
		return false;
	out->sec = strtoll(slash + 1, &end, 10);
	if (*end == '.')
		out->nsec = strtol(end + 1, &end, 10);
	return *end == '\0';
}

static bool stamp_before(const struct stamp *a, const struct stamp *b)
{
	return a->sec < b->sec || (a->sec == b->sec && a->nsec < b->nsec);
}

/* The value of trailer "KEY: value" in msg, or "" (false) when absent. */
static bool trailer(const char *msg, const char *key, char *buf, size_t size)
{
	size_t klen = strlen(key), n;
	const char *p, *v;

	buf[0] = '\0';
	for (p = msg; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, key, klen) != 0 || p[klen] != ':')
			continue;
		for (v = p + klen + 1; *v == ' '; v++)
			;
		n = strcspn(v, "\n");
		if (n >= size)
			return false;
		memcpy(buf, v, n);
		buf[n] = '\0';
		return true;
	}
	return false;
}

/*
 * The task's full state: its worktree's, scanned once; without a usable
 * worktree (gone, or no longer one: a removal killed midway took its .git)
 * its commits are all there is.
 */
static int full_state_tree(struct at_repo *r, const struct at_task *t, const git_commit *tip,
			   git_oid *out, struct at_error *err)
{
	struct at_worktree *w = NULL;
	struct at_task_state st;
	git_oid state_tip;
	int rc;

	if (!at_worktree_present(t)) {
		git_oid_cpy(out, git_commit_tree_id(tip));
		return 0;
	}
	if ((rc = at_worktree_open(&w, r, t, err)) == 0 &&
	    (rc = at_task_state(r, t, w, &st, err)) == 0) {
		at_oid_to_git(&state_tip, &st.tip);
		if (!git_oid_equal(&state_tip, git_commit_id(tip)))
			rc = at_error_set(err, AT_ESTALE, "the branch of task '%s' moved while it was "
					  "being saved", t->name);
		at_oid_to_git(out, &st.tree);
	}
	at_worktree_free(w);
	return rc;
}

/* Is entry (a trash ref) the save of this very task (same creation) at this tip? */
static bool saved_here(git_repository *repo, const char *refname, const struct at_task *t,
		       const git_oid *tip)
{
	git_commit *c = NULL;
	git_object *obj = NULL;
	char created[32];
	bool same = false;

	if (git_revparse_single(&obj, repo, refname) == 0 &&
	    git_object_peel((git_object **)&c, obj, GIT_OBJECT_COMMIT) == 0)
		same = git_commit_parentcount(c) == 1 &&
		       git_oid_equal(git_commit_parent_id(c, 0), tip) &&
		       trailer(git_commit_message(c), "Agenttask-Created", created,
			       sizeof(created)) &&
		       strtoll(created, NULL, 10) == (long long)t->created;
	git_commit_free(c);
	git_object_free(obj);
	git_error_clear();
	return same;
}

/*
 * The newest trash entry already saved for this task at this tip, if any.
 * A discard killed while removing the worktree saved the whole state before
 * it removed anything; when the worktree is no longer usable, that entry is
 * better than the commits alone, which is all a new save could hold.
 */
static bool already_saved(git_repository *repo, const struct at_task *t, const git_oid *tip,
			  char *out, size_t size)
{
	git_reference_iterator *it = NULL;
	git_reference *ref;
	struct stamp best = { -1, 0 }, when;
	char glob[256];

	if (at_fmt(glob, sizeof(glob), TRASH_PREFIX "%s/*", t->name) < 0 ||
	    git_reference_iterator_glob_new(&it, repo, glob) < 0) {
		git_error_clear();
		return false;
	}
	while (git_reference_next(&ref, it) == 0) {
		const char *rn = git_reference_name(ref);

		if (trash_stamp(rn, &when) && stamp_before(&best, &when) && strlen(rn) < size &&
		    saved_here(repo, rn, t, tip)) {
			best = when;
			snprintf(out, size, "%s", rn);
		}
		git_reference_free(ref);
	}
	git_reference_iterator_free(it);
	git_error_clear();
	return best.sec >= 0;
}

int at_trash_save(struct at_repo *r, const struct at_task *t, char *ref_out, size_t ref_size,
		  struct at_error *err)
{
	return at_trash_save_ext(r, t, false, ref_out, ref_size, err);
}

/* The entry: tree_id on the branch's tip; left: a drop's, what it left. */
static int save(struct at_repo *r, const struct at_task *t, git_commit *tip, const git_oid *tree_id,
		const git_oid *left, char *ref_out, size_t ref_size, struct at_error *err)
{
	git_signature *sig = NULL;
	git_tree *tree = NULL;
	git_reference *ref = NULL;
	git_oid commit_id;
	char msg[1024], refname[AT_REF_MAX];
	struct timespec now;
	int rc;

	clock_gettime(CLOCK_REALTIME, &now);
	if ((rc = at_git_signature(&sig, r->repo, err)) < 0)
		goto out;
	/* Seconds and nanoseconds: two discards of one name never share a ref. */
	if (trash_message(msg, sizeof(msg), t, left) < 0 ||
	    at_fmt(refname, sizeof(refname), TRASH_PREFIX "%s/%lld.%09ld", t->name,
		   (long long)now.tv_sec, now.tv_nsec) < 0) {
		rc = at_error_set(err, AT_ESYS, "task name too long for the trash '%s'", t->name);
		goto out;
	}
	if (git_tree_lookup(&tree, r->repo, tree_id) < 0 ||
	    git_commit_create_v(&commit_id, r->repo, NULL, sig, sig, NULL, msg, tree, 1, tip) < 0) {
		rc = at_git_error(err, AT_EGIT, "cannot save task '%s' in the trash", t->name);
		goto out;
	}
	/* A discarded task's checkpoints and review, kept before the entry is (trash_keep.h). */
	if (!left && (rc = at_trash_keep(r, refname, err)) < 0)
		goto out;
	at_test_kill_point("trash:kept");
	if (git_reference_create(&ref, r->repo, refname, &commit_id, 0,
				 left ? "agenttask: drop" : "agenttask: discard") < 0) {
		rc = at_git_error(err, AT_EGIT, "cannot save task '%s' in the trash", t->name);
		goto out;
	}
	snprintf(ref_out, ref_size, "%s", refname);
out:
	git_reference_free(ref);
	git_tree_free(tree);
	git_signature_free(sig);
	return rc;
}

int at_trash_save_ext(struct at_repo *r, const struct at_task *t, bool commits_only,
		      char *ref_out, size_t ref_size, struct at_error *err)
{
	git_commit *tip = NULL;
	git_oid tree_id;
	int rc;

	if ((rc = branch_tip(r->repo, t, &tip, err)) < 0)
		goto out;
	if (!at_worktree_present(t) && already_saved(r->repo, t, git_commit_id(tip), ref_out, ref_size))
		goto out;
	if (commits_only)
		git_oid_cpy(&tree_id, git_commit_tree_id(tip));
	else if ((rc = full_state_tree(r, t, tip, &tree_id, err)) < 0)
		goto out;
	rc = save(r, t, tip, &tree_id, NULL, ref_out, ref_size, err);
out:
	git_commit_free(tip);
	return rc;
}

int at_trash_save_part(struct at_repo *r, const struct at_task *t, const struct at_task_state *st,
		       const struct at_oid *left, char *ref_out, size_t ref_size,
		       struct at_error *err)
{
	git_commit *tip = NULL;
	git_oid tip_id, tree_id, left_id;
	int rc = 0;

	at_oid_to_git(&tip_id, &st->tip);
	at_oid_to_git(&tree_id, &st->tree);
	at_oid_to_git(&left_id, left);
	if (git_commit_lookup(&tip, r->repo, &tip_id) < 0)
		return at_git_error(err, AT_EGIT, "cannot read the tip of task '%s'", t->name);
	rc = save(r, t, tip, &tree_id, &left_id, ref_out, ref_size, err);
	git_commit_free(tip);
	return rc;
}

/*
 * Compared to the nanosecond, so that --trash-days 0 prunes everything
 * discarded before now, even within the same second.
 */
int at_trash_prune(struct at_repo *r, int days, struct at_report *rep, struct at_error *err)
{
	git_reference_iterator *it = NULL;
	git_reference *ref;
	struct timespec now;
	struct stamp cutoff, when;
	int rc = 0, next;

	clock_gettime(CLOCK_REALTIME, &now);
	cutoff.sec = (long long)now.tv_sec - (long long)days * 86400;
	cutoff.nsec = now.tv_nsec;
	if (git_reference_iterator_glob_new(&it, r->repo, TRASH_PREFIX "*") < 0)
		return at_git_error(err, AT_EGIT, "cannot list the trash");
	while (rc == 0 && (next = git_reference_next(&ref, it)) == 0) {
		char name[AT_REF_MAX];

		snprintf(name, sizeof(name), "%s", git_reference_name(ref));
		/* An entry whose name carries no time is pruned, as before. */
		trash_stamp(name, &when);
		if (stamp_before(&when, &cutoff)) {
			/* A failure is reported and pruning goes on. */
			if (git_reference_delete(ref) < 0) {
				at_git_error(err, AT_EGIT, "cannot prune '%s'", name);
				rc = at_report_fail(rep, err);
			} else if (at_trash_keep_drop(r, name, err) < 0) {
				rc = at_report_fail(rep, err);
			} else {
				rc = at_report_add(rep, "pruned trash '%s'", name);
			}
		}
		git_reference_free(ref);
	}
	git_reference_iterator_free(it);
	git_error_clear();
	/* And what entries gone kept (a kill between an entry's deletion and theirs). */
	if (rc == 0 && at_trash_keep_prune(r, rep, err) < 0)
		rc = at_report_fail(rep, err);
	return rc;
}

/* ---- restore ---- */

/* The task's base as the entry recorded it; the tip itself when it did not. */
static void base_from_trailers(const git_commit *entry, const struct at_oid *tip,
			       struct at_task *t)
{
	const char *msg = git_commit_message(entry);
	struct at_oid base;
	char created[32];

	if (!trailer(msg, "Agenttask-Base-Branch", t->base_branch, sizeof(t->base_branch)) ||
	    (t->base_branch[0] && strncmp(t->base_branch, AT_REFS_HEADS, AT_REFS_HEADS_LEN) != 0))
		t->base_branch[0] = '\0';
	if (!trailer(msg, "Agenttask-Base-Commit", t->base_commit, sizeof(t->base_commit)) ||
	    at_oid_parse(&base, t->base_commit) < 0)
		at_oid_fmt(t->base_commit, tip);
	if (trailer(msg, "Agenttask-Created", created, sizeof(created)) && created[0])
		t->created = strtoll(created, NULL, 10);
}

struct tree_check {
	struct at_error *err;
	char path[PATH_MAX];
};

static int check_one(const char *root, const git_tree_entry *e, void *payload)
{
	struct tree_check *c = payload;

	if (at_fmt(c->path, sizeof(c->path), "%s%s", root, git_tree_entry_name(e)) < 0)
		return 0;
	return at_git_check_entry(c->path, git_tree_entry_filemode(e), 0, UINT64_MAX, c->err) < 0
		       ? -1 : 0;
}

/*
 * An entry saved before agenttask refused them may hold a symlinked
 * .gitattributes, .gitignore or .gitmodules, which libgit2's checkout would
 * follow while it writes the worktree: such an entry is not restored.
 */
static int check_entry_tree(git_repository *repo, const git_oid *tree_id, const char *ref,
			    struct at_error *err)
{
	struct tree_check c = { err, "" };
	git_tree *tree = NULL;
	int rc = 0;

	if (git_tree_lookup(&tree, repo, tree_id) < 0)
		return at_git_error(err, AT_EGIT, "cannot read trash entry '%s'", ref);
	if (git_tree_walk(tree, GIT_TREEWALK_PRE, check_one, &c) < 0 && !at_error_isset(err))
		rc = at_git_error(err, AT_EGIT, "cannot read trash entry '%s'", ref);
	else if (at_error_isset(err))
		rc = err->code;
	git_tree_free(tree);
	return rc;
}

/* The uncommitted state over the fresh checkout: files only, the index stays at HEAD. */
static int write_back(const struct at_task *t, const git_oid *tree_id, struct at_error *err)
{
	git_checkout_options co = GIT_CHECKOUT_OPTIONS_INIT;
	git_repository *wt = NULL;
	git_tree *tree = NULL;
	int rc;

	if ((rc = at_git_open_worktree(&wt, t, err)) < 0)
		return rc;
	co.checkout_strategy = GIT_CHECKOUT_FORCE | GIT_CHECKOUT_DONT_UPDATE_INDEX;
	if (git_tree_lookup(&tree, wt, tree_id) < 0 ||
	    git_checkout_tree(wt, (const git_object *)tree, &co) < 0)
		rc = at_git_error(err, AT_EGIT, "cannot write the uncommitted files of task '%s'",
				  t->name);
	git_tree_free(tree);
	git_repository_free(wt);
	return rc;
}

static int entry_commit(git_repository *repo, const char *refname, git_commit **out,
			struct at_oid *tip, struct at_error *err)
{
	git_object *obj = NULL;
	int rc = 0;

	if (git_revparse_single(&obj, repo, refname) < 0 ||
	    git_object_peel((git_object **)out, obj, GIT_OBJECT_COMMIT) < 0)
		rc = at_git_error(err, AT_EGIT, "cannot read trash entry '%s'", refname);
	else if (git_commit_parentcount(*out) != 1)
		rc = at_error_set(err, AT_ECORRUPT, "trash entry '%s' has no single parent",
				  refname);
	else
		at_oid_from_git(tip, git_commit_parent_id(*out, 0));
	git_object_free(obj);
	return rc;
}

bool at_trash_drop(struct at_repo *r, const char *refname)
{
	struct at_error ignored = AT_ERROR_INIT;
	git_reference *ref = NULL;
	bool kept = git_reference_lookup(&ref, r->repo, refname) < 0 ||
		    git_reference_delete(ref) < 0;

	git_reference_free(ref);
	git_error_clear();
	if (kept)
		return false;
	/* What it kept goes after it (a kill between: gc's at_trash_keep_prune). */
	at_test_kill_point("trash:dropped");
	return at_trash_keep_drop(r, refname, &ignored) == 0;
}

/* ---- listing ---- */

/* refs/agenttask/trash/NAME/STAMP into e, with what its commit records; false if unreadable. */
static bool read_entry(struct at_repo *r, const char *refname, struct at_trash_entry *e)
{
	git_repository *repo = r->repo;
	const char *task = refname + strlen(TRASH_PREFIX), *slash = strrchr(task, '/');
	struct at_error ignored = AT_ERROR_INIT;
	git_commit *c = NULL;
	struct at_oid tip;
	struct stamp when;

	memset(e, 0, sizeof(*e));
	if (!slash || memchr(task, '/', (size_t)(slash - task)) || slash == task ||
	    (size_t)(slash - task) > AT_NAME_MAX || strlen(refname) >= sizeof(e->ref) ||
	    !trash_stamp(refname, &when))
		return false;
	memcpy(e->name, task, (size_t)(slash - task));
	snprintf(e->ref, sizeof(e->ref), "%s", refname);
	e->sec = when.sec;
	e->nsec = when.nsec;
	e->checkpoints = at_trash_keep_count(r, refname);
	/* An entry whose commit cannot be read is listed all the same (tip ""): restore says why. */
	if (entry_commit(repo, refname, &c, &tip, &ignored) < 0) {
		git_error_clear();
		return true;
	}
	at_oid_fmt(e->tip, &tip);
	if (!trailer(git_commit_message(c), "Agenttask-Base-Branch", e->base_branch,
		     sizeof(e->base_branch)))
		e->base_branch[0] = '\0';
	git_commit_free(c);
	return true;
}

/* By name, then newest first. */
static int entry_order(const void *pa, const void *pb)
{
	const struct at_trash_entry *a = pa, *b = pb;
	struct stamp sa = { a->sec, a->nsec }, sb = { b->sec, b->nsec };
	int c = strcmp(a->name, b->name);

	if (c)
		return c;
	return stamp_before(&sb, &sa) ? -1 : stamp_before(&sa, &sb) ? 1 : 0;
}

int at_trash_list(struct at_repo *r, const char *name, struct at_trash_list *out,
		  struct at_error *err)
{
	git_reference_iterator *it = NULL;
	struct at_trash_entry e;
	git_reference *ref;
	char glob[256];
	size_t i, cap = 0;

	out->v = NULL;
	out->n = 0;
	/* A checked name: no glob character reaches the pattern. */
	if (name && at_name_check(name, err) < 0)
		return err->code;
	if (at_fmt(glob, sizeof(glob), TRASH_PREFIX "%s%s*", name ? name : "", name ? "/" : "") < 0)
		return at_error_set(err, AT_EUSAGE, "task name too long '%s'", name);
	if (git_reference_iterator_glob_new(&it, r->repo, glob) < 0)
		return at_git_error(err, AT_EGIT, "cannot list the trash");
	while (git_reference_next(&ref, it) == 0) {
		bool ok = read_entry(r, git_reference_name(ref), &e);

		git_reference_free(ref);
		if (!ok || (name && strcmp(e.name, name) != 0))
			continue;
		if (AT_ARRAY_GROW(out->v, cap, out->n + 1) < 0) {
			git_reference_iterator_free(it);
			return at_error_set(err, AT_ESYS, "out of memory");
		}
		out->v[out->n++] = e;
	}
	git_reference_iterator_free(it);
	git_error_clear();
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), entry_order);
	for (i = 0; i < out->n; i++)
		out->v[i].index = i > 0 && strcmp(out->v[i - 1].name, out->v[i].name) == 0 ?
					  out->v[i - 1].index + 1 : 1;
	return 0;
}

/* ---- restore ---- */

static bool entry_matches(const struct at_trash_entry *e, const char *want)
{
	const char *stamp = strrchr(e->ref, '/') + 1;
	char *end;
	unsigned long n;

	if (strcmp(want, e->ref) == 0 || strcmp(want, stamp) == 0)
		return true;
	n = strtoul(want, &end, 10);
	return want[0] >= '0' && want[0] <= '9' && *end == '\0' && strlen(want) <= 6 &&
	       n == e->index;
}

/* The entry of task name that want names (NULL: the newest) into ref. */
static int find_entry(struct at_repo *r, const char *name, const char *want, char *ref,
		      size_t size, struct at_error *err)
{
	struct at_trash_list l;
	size_t i;
	int rc;

	if ((rc = at_trash_list(r, name, &l, err)) < 0)
		goto out;
	for (i = 0; i < l.n && want && !entry_matches(&l.v[i], want); i++)
		;
	if (l.n == 0)
		rc = at_error_set(err, AT_ENOTFOUND, "no discarded task '%s' in the trash", name);
	else if (i == l.n)
		rc = at_error_set(err, AT_ENOTFOUND, "no entry '%s' in the trash of task '%s' "
				  "(see 'agenttask trash %s')", want, name, name);
	else
		snprintf(ref, size, "%s", l.v[i].ref);
out:
	at_trash_list_release(&l);
	return rc;
}

int at_trash_pick(struct at_repo *r, const char *name, const char *want,
		  struct at_trash_pick *out, struct at_error *err)
{
	struct at_trash_pick p;
	git_commit *entry = NULL;
	struct at_task base;
	char left[AT_OID_HEXSZ + 1];
	int rc;

	memset(&p, 0, sizeof(p));
	memset(&base, 0, sizeof(base));
	if ((rc = find_entry(r, name, want, p.ref, sizeof(p.ref), err)) < 0 ||
	    (rc = entry_commit(r->repo, p.ref, &entry, &p.tip, err)) < 0 ||
	    (rc = check_entry_tree(r->repo, git_commit_tree_id(entry), p.ref, err)) < 0)
		goto out;
	at_oid_from_git(&p.tree, git_commit_tree_id(entry));
	base.created = -1;
	base_from_trailers(entry, &p.tip, &base);
	memcpy(p.base_branch, base.base_branch, sizeof(p.base_branch));
	memcpy(p.base_commit, base.base_commit, sizeof(p.base_commit));
	p.created = base.created;
	p.part = trailer(git_commit_message(entry), PART_LEFT, left, sizeof(left)) &&
		 at_oid_parse(&p.part_left, left) == 0;
	*out = p;
out:
	git_commit_free(entry);
	return rc;
}

void at_trash_pick_base(const struct at_trash_pick *p, struct at_task *t)
{
	memcpy(t->base_branch, p->base_branch, sizeof(t->base_branch));
	memcpy(t->base_commit, p->base_commit, sizeof(t->base_commit));
	if (p->created != -1)
		t->created = p->created;
}

int at_trash_write_back(const struct at_task *t, const struct at_trash_pick *p,
			struct at_error *err)
{
	git_oid tree;

	at_oid_to_git(&tree, &p->tree);
	return write_back(t, &tree, err);
}

int at_trash_write_tree(const struct at_task *t, const struct at_oid *tree, struct at_error *err)
{
	git_oid id;

	at_oid_to_git(&id, tree);
	return write_back(t, &id, err);
}
