/*
 * snapshot_fast.c - the tree of a task's full state, without libgit2's index.
 *
 * The general path (git/snapshot.c) brings libgit2's in-memory index up
 * to the worktree (git add -A) and makes its tree. For `agenttask diff`,
 * which only needs the tree, most of that was reading the index into libgit2 (its SHA-1,
 * path checks and hash map: ~9 ms on 20,000 entries) and comparing it with
 * HEAD (~6 ms). Here, where core.symlinks and core.filemode are true:
 *
 *   1. the index file is read by git/index_read.c;
 *   2. the worktree is compared with it by git/scan.c;
 *   3. HEAD's tree is walked alongside the index entries (both are in the
 *      same order) for what is staged: an upsert for each entry that
 *      differs, a removal for each path the index dropped;
 *   4. each file the scan reports is hashed into the object database as
 *      git/wtread.h reads it (a link: its target; filters from the base
 *      commit's attributes), a deleted one removed;
 *   5. git_tree_create_updated() applies those to HEAD's tree: only the
 *      directories on the way to a change are written.
 *
 * Anything else declines (AT_SNAPSHOT_DECLINED) before writing a tree, and
 * the general path runs: what the index reader declines, a change
 * git_tree_create_updated() refuses (a path turning from file to
 * directory). Both paths take the same scan and hash with the same code.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/array.h"
#include "core/fs.h"
#include "core/trace.h"
#include "core/util.h"
#include "git/index_read.h"
#include "git/internal.h"
#include "git/scan.h"
#include "git/wtread.h"

struct update {
	git_tree_update up;
	size_t seq;             /* order of adding: the last of a path wins */
	bool in_head;           /* the path is in HEAD's tree */
};

struct updates {
	struct update *v;
	char **owned;           /* paths this list allocated */
	size_t n, cap, nowned, capowned;
};

static int add_update(struct updates *u, git_tree_update_t action, const char *path,
		      const git_oid *id, git_filemode_t mode, bool in_head)
{
	struct update *up;

	if (AT_ARRAY_GROW(u->v, u->cap, u->n + 1) < 0)
		return -1;
	up = &u->v[u->n];
	memset(up, 0, sizeof(*up));
	up->up.action = action;
	up->up.path = path;
	if (id)
		git_oid_cpy(&up->up.id, id);
	up->up.filemode = mode;
	up->seq = u->n++;
	up->in_head = in_head;
	return 0;
}

static char *own(struct updates *u, const char *path)
{
	if (AT_ARRAY_GROW(u->owned, u->capowned, u->nowned + 1) < 0 ||
	    !(u->owned[u->nowned] = strdup(path)))
		return NULL;
	return u->owned[u->nowned++];
}

static void updates_free(struct updates *u)
{
	size_t i;

	for (i = 0; i < u->nowned; i++)
		free(u->owned[i]);
	free(u->owned);
	free(u->v);
}

/* ---- staged: HEAD's tree against the index ------------------------------ */

struct staged {
	const struct at_index *idx;
	size_t next;             /* the first index entry not yet matched */
	struct updates *u;
	char path[PATH_MAX];
	bool failed;
};

static int upsert_entry(struct updates *u, const git_index_entry *e, bool in_head)
{
	return add_update(u, GIT_TREE_UPDATE_UPSERT, e->path, &e->id, (git_filemode_t)e->mode,
			  in_head);
}

static bool has_prefix(const char *path, const char *dir, size_t len)
{
	return strncmp(path, dir, len) == 0 && path[len] == '/';
}

/*
 * A directory whose cache-tree entry is valid and is HEAD's tree: its
 * index entries (count of them, from next on) are HEAD's, nothing staged.
 */
static size_t unchanged_dir(struct staged *s, const git_tree_entry *te, size_t len)
{
	const struct at_index *idx = s->idx;
	const struct at_cache_tree *ct = at_cache_tree_find(idx->trees, idx->ntrees, s->path, len);
	size_t count;

	if (!ct || !git_oid_equal(&ct->id, git_tree_entry_id(te)) || ct->count <= 0)
		return 0;
	count = (size_t)ct->count;
	if (s->next + count <= idx->n && has_prefix(idx->v[s->next].path, s->path, len) &&
	    has_prefix(idx->v[s->next + count - 1].path, s->path, len) &&
	    (s->next + count == idx->n || !has_prefix(idx->v[s->next + count].path, s->path, len)))
		return count;
	return 0;
}

static int staged_entry(const char *root, const git_tree_entry *te, void *payload)
{
	struct staged *s = payload;
	const struct at_index *idx = s->idx;
	int cmp = 1;
	char *path;

	if (at_fmt(s->path, sizeof(s->path), "%s%s", root, git_tree_entry_name(te)) < 0)
		goto failed;
	if (git_tree_entry_type(te) == GIT_OBJECT_TREE) {
		size_t len = strlen(s->path), skip;

		if (!idx->trees || len + 2 > sizeof(s->path))
			return 0;
		/* What the index added before "dir/", then skip dir if unchanged. */
		memcpy(s->path + len, "/", 2);
		while (s->next < idx->n && strcmp(idx->v[s->next].path, s->path) < 0)
			if (upsert_entry(s->u, &idx->v[s->next++], false) < 0)
				goto failed;
		s->path[len] = '\0';
		if (!(skip = unchanged_dir(s, te, len)))
			return 0;
		s->next += skip;
		return 1;   /* git_tree_walk: do not enter */
	}
	/* Index entries before this path: added to the index. */
	while (s->next < idx->n && (cmp = strcmp(idx->v[s->next].path, s->path)) < 0)
		if (upsert_entry(s->u, &idx->v[s->next++], false) < 0)
			goto failed;
	if (s->next < idx->n && cmp == 0) {
		const git_index_entry *e = &idx->v[s->next++];

		if ((git_filemode_t)e->mode == git_tree_entry_filemode(te) &&
		    git_oid_equal(&e->id, git_tree_entry_id(te)))
			return 0;
		return upsert_entry(s->u, e, true) < 0 ? -1 : 0;
	}
	/* In HEAD, not in the index: removed from it. */
	if (!(path = own(s->u, s->path)) ||
	    add_update(s->u, GIT_TREE_UPDATE_REMOVE, path, NULL, 0, true) < 0)
		goto failed;
	return 0;
failed:
	s->failed = true;
	return -1;
}

static int staged_changes(git_tree *head, const struct at_index *idx, struct updates *u)
{
	struct staged s;

	const struct at_cache_tree *root = at_cache_tree_find(idx->trees, idx->ntrees, "", 0);

	if (root && git_oid_equal(&root->id, git_tree_id(head)) && (size_t)root->count == idx->n)
		return 0;   /* the index is HEAD's tree */
	memset(&s, 0, sizeof(s));
	s.idx = idx;
	s.u = u;
	if (git_tree_walk(head, GIT_TREEWALK_PRE, staged_entry, &s) < 0 || s.failed)
		return -1;
	while (s.next < idx->n)
		if (upsert_entry(u, &idx->v[s.next++], false) < 0)
			return -1;
	return 0;
}

/* ---- the worktree's changes, hashed --------------------------------------- */

static const git_index_entry *find_entry(const struct at_index *idx, const char *path)
{
	size_t lo = 0, hi = idx->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(idx->v[mid].path, path);

		if (c == 0)
			return &idx->v[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/*
 * After the index's updates, the worktree's. Whether a path is in HEAD is
 * decided by its first update: a path of HEAD that the index lacks has the
 * walk's removal first; a path the index added, the walk's upsert (not in
 * HEAD). With no update from the walk, a path the index holds is HEAD's.
 */
static int worktree_changes(const struct at_snap *s, const struct at_index *idx,
			    const struct at_scan *scan, struct updates *u, struct at_error *err)
{
	struct at_wt_hasher h;
	size_t i;
	int rc;

	if ((rc = at_git_hasher_init(&h, s, scan, err)) < 0)
		return rc;
	for (i = 0; rc == 0 && i < scan->n; i++) {
		const char *path = scan->v[i].path;
		const git_index_entry *e = find_entry(idx, path);
		git_filemode_t mode;
		struct stat st;
		git_oid id;

		if (scan->v[i].kind != AT_SCAN_DELETED &&
		    (rc = at_wt_hash(&h, path, &id, &mode, &st, err)) < 0)
			break;
		if (scan->v[i].kind == AT_SCAN_DELETED || rc == 1) {
			if (add_update(u, GIT_TREE_UPDATE_REMOVE, path, NULL, 0, e != NULL) < 0)
				rc = -1;
			else
				rc = 0;
			continue;
		}
		/* Stat data changed, bytes did not: the index's entry stands. */
		if (e && git_oid_equal(&e->id, &id) && (git_filemode_t)e->mode == mode)
			continue;
		if (add_update(u, GIT_TREE_UPDATE_UPSERT, path, &id, mode, e != NULL) < 0)
			rc = -1;
	}
	if (rc == -1)
		rc = at_error_set(err, AT_ESYS, "out of memory");
	at_git_hasher_release(&h);
	return rc;
}

static int update_cmp(const void *a, const void *b)
{
	const struct update *x = a, *y = b;
	int c = strcmp(x->up.path, y->up.path);

	return c ? c : (x->seq > y->seq) - (x->seq < y->seq);
}

/*
 * One update a path, the last added. A path the index added and the
 * worktree deleted was never in HEAD: nothing to remove.
 */
static git_tree_update *final_updates(struct updates *u, size_t *n_out)
{
	git_tree_update *v = calloc(u->n ? u->n : 1, sizeof(*v));
	size_t i, j, n = 0;

	if (!v)
		return NULL;
	if (u->n > 1)
		qsort(u->v, u->n, sizeof(*u->v), update_cmp);
	for (i = 0; i < u->n; i = j) {
		/* The updates of one path: the first knows HEAD, the last wins. */
		for (j = i + 1; j < u->n && strcmp(u->v[j].up.path, u->v[i].up.path) == 0; j++)
			;
		if (u->v[j - 1].up.action == GIT_TREE_UPDATE_REMOVE && !u->v[i].in_head)
			continue;
		v[n++] = u->v[j - 1].up;
	}
	*n_out = n;
	return v;
}

/*
 * The tree of the index (what is staged applied to HEAD's), for a rewind
 * (git/checkpoint.c) to know which entries to change without reading the
 * index again; zero when it cannot be made (a file staged where HEAD has
 * a directory: git_tree_create_updated refuses).
 */
static int index_tree(git_repository *wt, git_tree *head, struct updates *u, git_oid *out)
{
	git_tree_update *staged;
	size_t n;

	if (u->n == 0) {
		git_oid_cpy(out, git_tree_id(head));
		return 0;
	}
	if (!(staged = final_updates(u, &n)))
		return -1;
	if (git_tree_create_updated(out, wt, head, n, staged) < 0) {
		git_error_clear();
		memset(out, 0, sizeof(*out));
	}
	free(staged);
	return 0;
}

int at_git_snapshot_fast(const struct at_snap *s, git_oid *tree_out, git_oid *index_out,
			 struct at_error *err)
{
	struct at_index idx = AT_INDEX_INIT;
	struct at_scan scan = AT_SCAN_INIT;
	git_tree_update *final = NULL;
	struct updates u;
	git_object *head = NULL;
	size_t nfinal = 0;
	char path[PATH_MAX];
	int rc;

	memset(&u, 0, sizeof(u));
	if (!at_git_config_bool(s->wt, "core.symlinks", true) ||
	    !at_git_config_bool(s->wt, "core.filemode", true) ||
	    at_fmt(path, sizeof(path), "%sindex", git_repository_path(s->wt)) < 0)
		return AT_SNAPSHOT_DECLINED;
	if ((rc = at_index_read(path, &idx, err)) != 0)
		return rc == AT_INDEX_DECLINED ? AT_SNAPSHOT_DECLINED : rc;
	if (git_revparse_single(&head, s->wt, "HEAD^{tree}") < 0) {
		git_error_clear();
		rc = AT_SNAPSHOT_DECLINED;
		goto out;
	}
	at_trace("scan", s->t->path);
	if ((rc = at_scan_entries(s->wt, s->t->path, idx.v, idx.n, &idx.mtime, s->cache_path, &scan,
				  err)) < 0)
		goto out;
	if (staged_changes((git_tree *)head, &idx, &u) < 0) {
		rc = at_git_error(err, AT_EGIT, "cannot compare the index with HEAD");
		goto out;
	}
	if (index_out && index_tree(s->wt, (git_tree *)head, &u, index_out) < 0) {
		rc = at_error_set(err, AT_ESYS, "out of memory");
		goto out;
	}
	if ((rc = worktree_changes(s, &idx, &scan, &u, err)) < 0)
		goto out;
	if (!(final = final_updates(&u, &nfinal))) {
		rc = at_error_set(err, AT_ESYS, "out of memory");
		goto out;
	}
	if (git_tree_create_updated(tree_out, s->wt, (git_tree *)head, nfinal, final) < 0) {
		git_error_clear();
		rc = AT_SNAPSHOT_DECLINED;
	}
out:
	free(final);
	updates_free(&u);
	at_scan_free(&scan);
	at_index_free(&idx);
	git_object_free(head);
	return rc;
}
