/*
 * layerstate.c - a layered task's state from its overlay's upper (git/layerstate.h).
 *
 * Four steps, none of which reads the lower's files:
 *
 *   1. the upper is walked into a plan, in pre-order: for each directory it
 *      holds, which lower tree it merges with (none when opaque, new, or in
 *      a file's place), and for each name in it what git add -A records
 *      there (a file to hash, a gitlink kept, or nothing: a whiteout, an
 *      ignored untracked file, a fifo nobody tracks);
 *   2. the plan's files are hashed (git/wtread.c, below the upper's
 *      descriptor) with the base's .gitattributes on the way to exactly
 *      those paths;
 *   3. the plan is replayed on lower_tree, one tree builder a directory:
 *      every directory the upper does not name keeps lower_tree's subtree
 *      as it is, by id;
 *   4. with an index, the paths of lower_tree it no longer tracks (found by
 *      comparing the two where the index's cache-tree does not vouch for a
 *      directory) are dropped where the merged view shows the lower's file
 *      and the ignore rules now ignore it.
 *
 * The ignore rules see the .gitignore files of the merged view: the upper's
 * where it names one (a whiteout: none), else the lower's where no opaque
 * directory or file of the upper hides it.
 */
#include "git/layerstate.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <dirent.h>

#include "core/fs.h"
#include "core/strlist.h"
#include "core/util.h"
#include "git/index_read.h"
#include "git/internal.h"
#include "git/tree_changes.h"
#include "git/wtignore.h"
#include "git/wtread.h"

enum op_kind {
	OP_DIR,     /* a directory of the upper begins: id, when base, is the lower tree it merges */
	OP_END,     /* ... and ends */
	OP_FILE,    /* a file or link to hash and record (mode 0 once hashed: gone meanwhile) */
	OP_ID,      /* an entry recorded as it is (a submodule's commit) */
	OP_REMOVE,  /* nothing recorded by that name */
};

struct op {
	enum op_kind kind;
	char *path;          /* relative to the worktree; the root's OP_DIR: "" */
	const char *name;    /* its last component, inside path */
	git_oid id;
	unsigned int mode;
	bool base;
};

struct layer {
	git_repository *repo;         /* the common directory, bare: objects, attributes */
	git_tree *lower_tree;
	int upper, lower;
	struct at_index idx;          /* the task's index, as parsed here, */
	git_index *gidx;              /* ... or as libgit2 reads what the parser declines */
	git_index_entry *gv;          /* ... then its entries, copied in order */
	const git_index_entry *ents;  /* the tracked paths, sorted; NULL: lower_tree's */
	size_t nents;
	const struct at_cache_tree *trees;
	size_t ntrees;
	struct at_wt_ignore *ign;
	git_tree *walked;             /* step 3's tree, for step 4 */
	struct op *ops;
	size_t nops, capops;
	git_tree_update *drops;       /* step 4's removals */
	size_t ndrops, capdrops;
	char path[PATH_MAX];          /* the walk's current path */
	char workdir[PATH_MAX];       /* the task's path with a '/', or "": where ... */
	char modules[2][PATH_MAX];    /* ... a submodule's .git may point ("" none) */
	struct at_strlist repos;      /* the embedded repositories the walk found */
};

static int too_long(const char *dir, const char *name, struct at_error *err)
{
	char e[100], f[100];

	return at_error_set(err, AT_EUNSAFE, "path too long in the worktree: '%s%s'",
			    at_esc(e, sizeof(e), dir), at_esc(f, sizeof(f), name));
}

static int push_op(struct layer *l, enum op_kind kind, const char *path, struct at_error *err)
{
	struct op *op;
	const char *slash;

	if (l->nops == l->capops) {
		size_t cap = l->capops ? l->capops * 2 : 64;
		struct op *v = reallocarray(l->ops, cap, sizeof(*v));

		if (!v)
			return at_error_set(err, AT_ESYS, "out of memory");
		l->ops = v;
		l->capops = cap;
	}
	op = &l->ops[l->nops];
	memset(op, 0, sizeof(*op));
	op->kind = kind;
	if (path && !(op->path = strdup(path)))
		return at_error_set(err, AT_ESYS, "out of memory");
	if (op->path) {
		slash = strrchr(op->path, '/');
		op->name = slash ? slash + 1 : op->path;
	}
	l->nops++;
	return 0;
}

/* Is the xattr name set on the file pathfd (an O_PATH descriptor) is, to "y" when want_y? */
static bool has_xattr(int pathfd, const char *name, bool want_y)
{
	char proc[64], v[2];
	ssize_t n;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pathfd);
	n = getxattr(proc, name, v, sizeof(v));
	if (n < 0 && errno == ERANGE)
		return !want_y;
	return n >= 0 && (!want_y || (n == 1 && v[0] == 'y'));
}

/* An opaque directory of the overlay: the lower's of that name is hidden whole. */
static bool is_opaque(int pathfd)
{
	return has_xattr(pathfd, "user.overlay.opaque", true) ||
	       has_xattr(pathfd, "trusted.overlay.opaque", true);
}

/*
 * A whiteout: a character device 0/0, or (newer kernels, and an overlay's
 * upper that was itself a layer) an empty file with the whiteout xattr.
 * Recognised by its inode's type and attributes: never opened for reading.
 */
static bool is_whiteout(int dfd, const char *name, const struct stat *st)
{
	AT_AUTOCLOSE int fd = -1;
	struct stat again;

	if (S_ISCHR(st->st_mode))
		return st->st_rdev == 0;
	if (!S_ISREG(st->st_mode) || st->st_size != 0)
		return false;
	fd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &again) < 0 || !S_ISREG(again.st_mode))
		return false;
	return has_xattr(fd, "user.overlay.whiteout", false) ||
	       has_xattr(fd, "trusted.overlay.whiteout", false);
}

/*
 * Where the merged view's path comes from: 1 the upper (whatever it is
 * there, a whiteout too), 2 the lower, 0 nowhere (an ancestor is a file,
 * a whiteout or a link in the upper, or the lower's is hidden by an opaque
 * directory).
 */
static int locate(struct layer *l, const char *path)
{
	char p[PATH_MAX];
	const char *s = path;
	bool lower = true;

	for (;;) {
		AT_AUTOCLOSE int fd = -1;
		size_t n;
		struct stat st;

		s = strchr(s, '/');
		n = s ? (size_t)(s - path) : strlen(path);
		if (n >= sizeof(p))
			return 0;
		memcpy(p, path, n);
		p[n] = '\0';
		fd = at_open_beneath(l->upper, p, O_PATH | O_NOFOLLOW);
		if (fd < 0)
			return errno == ENOENT && lower ? 2 : 0;
		if (fstat(fd, &st) < 0)
			return 0;
		if (!s)
			return 1;
		if (!S_ISDIR(st.st_mode))
			return 0;
		if (is_opaque(fd))
			lower = false;
		s++;
	}
}

/* The merged view's .gitignore at path, for git/wtignore.c. */
static int read_merged(void *payload, const char *path, char **buf, size_t *len,
		       struct at_error *err)
{
	struct layer *l = payload;
	int where = locate(l, path);

	*buf = NULL;
	*len = 0;
	if (where == 0)
		return 0;
	return at_wt_read_small(where == 1 ? l->upper : l->lower, path, AT_SPECIAL_FILE_MAX, buf,
				len, err);
}

static int ent_cmp(const char *key, const git_index_entry *e)
{
	return strcmp(key, e->path);
}

/* The first tracked entry not before key. */
static size_t lower_bound(const struct layer *l, const char *key, size_t lo, size_t hi)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ent_cmp(key, &l->ents[mid]) > 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The mode path is tracked with (0: untracked), and its id. */
static unsigned int tracked(struct layer *l, const char *path, git_oid *id)
{
	git_tree_entry *te = NULL;
	unsigned int mode = 0;
	size_t i;

	if (l->ents) {
		i = lower_bound(l, path, 0, l->nents);
		if (i == l->nents || strcmp(l->ents[i].path, path) != 0)
			return 0;
		git_oid_cpy(id, &l->ents[i].id);
		return l->ents[i].mode;
	}
	if (git_tree_entry_bypath(&te, l->lower_tree, path) < 0) {
		git_error_clear();
		return 0;
	}
	if (git_tree_entry_type(te) != GIT_OBJECT_TREE) {
		mode = (unsigned int)git_tree_entry_filemode(te);
		git_oid_cpy(id, git_tree_entry_id(te));
	}
	git_tree_entry_free(te);
	return mode;
}

/* Is anything tracked below the directory dir ("a/b")? */
static bool tracked_below(struct layer *l, const char *dir)
{
	git_tree_entry *te = NULL;
	char key[PATH_MAX + 1];
	size_t len = strlen(dir), i;
	bool yes;

	if (l->ents) {
		if (len + 2 > sizeof(key))
			return false;
		memcpy(key, dir, len);
		memcpy(key + len, "/", 2);
		i = lower_bound(l, key, 0, l->nents);
		return i < l->nents && strncmp(l->ents[i].path, key, len + 1) == 0;
	}
	if (git_tree_entry_bypath(&te, l->lower_tree, dir) < 0) {
		git_error_clear();
		return false;
	}
	yes = git_tree_entry_type(te) == GIT_OBJECT_TREE;
	git_tree_entry_free(te);
	return yes;
}

static int ignored(struct layer *l, const char *path, bool is_dir, bool parent_ok, bool *out,
		   struct at_error *err)
{
	return at_wt_ignored(l->ign, path, is_dir, parent_ok, out, err);
}

struct upper_entry {
	char *name;
	struct stat st;
	bool whiteout;
};

static int entry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct upper_entry *)a)->name, ((const struct upper_entry *)b)->name);
}

static void entries_free(struct upper_entry *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

/*
 * The names in the upper's directory at l->path (plen bytes: "" or "a/b/"),
 * each lstat'ed, sorted; *opaque: the directory hides the lower's. One
 * descriptor open at a time, whatever the depth. Gone meanwhile: empty.
 */
static int list_upper(struct layer *l, size_t plen, struct upper_entry **out, size_t *count,
		      bool *opaque, struct at_error *err)
{
	struct upper_entry *v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	char e[200];
	DIR *d;
	int fd;

	*out = NULL;
	*count = 0;
	*opaque = false;
	l->path[plen] = '\0';
	fd = at_open_beneath(l->upper, plen ? l->path : ".", O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
	if (fd < 0 && (errno == ENOENT || errno == ENOTDIR || errno == ELOOP || errno == EXDEV))
		return 0;
	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return at_error_sys(err, AT_ESYS, "cannot read '%s'", at_esc(e, sizeof(e), l->path));
	}
	*opaque = is_opaque(fd);
	while ((de = readdir(d))) {
		struct stat st;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;   /* gone meanwhile */
		if (n == cap) {
			struct upper_entry *nv = reallocarray(v, cap ? cap * 2 : 16, sizeof(*nv));

			if (!nv)
				goto oom;
			v = nv;
			cap = cap ? cap * 2 : 16;
		}
		if (!(v[n].name = strdup(de->d_name)))
			goto oom;
		v[n].st = st;
		v[n].whiteout = is_whiteout(fd, de->d_name, &st);
		n++;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), entry_cmp);
	*out = v;
	*count = n;
	return 0;
oom:
	closedir(d);
	entries_free(v, n);
	return at_error_set(err, AT_ESYS, "out of memory");
}

static int walk(struct layer *l, size_t plen, const git_tree *tsub, bool lower, bool dir_ignored,
		struct at_error *err);

/*
 * A directory holding a '.git' (l->path: "a/b"): kept, to be refused with
 * the others once the walk is done (the one line the scan gives, git/scan.h).
 */
static int embedded(struct layer *l, struct at_error *err)
{
	return at_strlist_push(&l->repos, l->path) < 0 ? at_error_set(err, AT_ESYS, "out of memory")
						       : 0;
}

/* The walk's embedded repositories, if any, refused in one line. */
static int refuse_embedded(struct layer *l, struct at_error *err)
{
	char list[200];

	if (l->repos.n == 0)
		return 0;
	at_strlist_sort_unique(&l->repos);
	at_wt_path_list(list, sizeof(list), (const char *const *)l->repos.v, l->repos.n);
	return at_wt_embedded_error(list, err);
}

/*
 * The upper's directory at l->path, a submodule's: no .git, or git's own
 * (git/wtread.h). The lower's never holds one (a submodule is checked out
 * as an empty directory).
 */
static bool submodule_git_ok(struct layer *l)
{
	const char *modules[2] = { l->modules[0], l->modules[1] };
	AT_AUTOCLOSE int sub = at_open_beneath(l->upper, l->path, O_PATH | O_DIRECTORY | O_NOFOLLOW);

	return sub < 0 || at_wt_submodule_git_ok(sub, l->workdir, l->path, modules);
}

/* The directory of the upper at l->path, named there from byte plen on, nlen bytes. */
static int walk_dir(struct layer *l, size_t plen, size_t nlen, const git_tree *tsub, bool lower,
		    bool dir_ignored, struct at_error *err)
{
	const git_tree_entry *te = NULL;
	size_t len = plen + nlen;
	git_tree *child = NULL;
	bool ign = dir_ignored;
	git_oid id;
	unsigned int mode;
	int rc;

	/*
	 * A submodule's directory: its recorded commit stays the index's, never
	 * read in it; a .git in it other than git's own is a repository the
	 * agent made there, refused as the scan refuses it (git/scan.h).
	 */
	if ((mode = tracked(l, l->path, &id)) == GIT_FILEMODE_COMMIT) {
		if (!submodule_git_ok(l))
			return embedded(l, err);
		if ((rc = push_op(l, OP_ID, l->path, err)) == 0) {
			git_oid_cpy(&l->ops[l->nops - 1].id, &id);
			l->ops[l->nops - 1].mode = mode;
		}
		return rc;
	}
	if (!ign && (rc = ignored(l, l->path, true, true, &ign, err)) < 0)
		return rc;
	/* An ignored directory nobody tracks anything in is not entered, as git does not. */
	if (ign && !tracked_below(l, l->path))
		return push_op(l, OP_REMOVE, l->path, err);
	if (tsub && (te = git_tree_entry_byname(tsub, l->path + plen)) &&
	    git_tree_entry_type(te) == GIT_OBJECT_TREE &&
	    git_tree_lookup(&child, l->repo, git_tree_entry_id(te)) < 0)
		return at_git_error(err, AT_EGIT, "cannot read the lower's tree");
	l->path[len] = '/';
	l->path[len + 1] = '\0';
	rc = walk(l, len + 1, child, lower && child, ign, err);
	git_tree_free(child);
	return rc;
}

/* A file or link of the upper, at l->path. */
static int plan_file(struct layer *l, bool dir_ignored, struct at_error *err)
{
	git_oid id;
	bool ign = dir_ignored;
	int rc;

	if (tracked(l, l->path, &id))
		return push_op(l, OP_FILE, l->path, err);
	if (!ign && (rc = ignored(l, l->path, false, true, &ign, err)) < 0)
		return rc;
	return push_op(l, ign ? OP_REMOVE : OP_FILE, l->path, err);
}

/* A fifo, socket or device (not a whiteout): refused where tracked, else unseen, as git. */
static int plan_special(struct layer *l, mode_t mode, struct at_error *err)
{
	char e[200];
	git_oid id;

	if (tracked(l, l->path, &id))
		return at_error_set(err, AT_EUNSAFE,
				    "'%s' is %s: git records only files, symbolic links and "
				    "submodules",
				    at_esc(e, sizeof(e), l->path), at_wt_kind(mode));
	return push_op(l, OP_REMOVE, l->path, err);
}

/*
 * The directory of the upper at l->path (plen bytes: "" or "a/b/"), into
 * the plan: tsub is lower_tree's tree there (NULL: none); lower, whether the
 * lower's directory shows through (unless this one is opaque); dir_ignored,
 * whether the directory is ignored.
 */
static int walk(struct layer *l, size_t plen, const git_tree *tsub, bool lower, bool dir_ignored,
		struct at_error *err)
{
	struct upper_entry *v = NULL;
	size_t n = 0, i;
	bool opaque;
	int rc;

	if ((rc = list_upper(l, plen, &v, &n, &opaque, err)) < 0)
		return rc;
	lower = lower && tsub && !opaque;
	l->path[plen ? plen - 1 : 0] = '\0';
	rc = push_op(l, OP_DIR, l->path, err);
	if (rc == 0 && lower) {
		l->ops[l->nops - 1].base = true;
		git_oid_cpy(&l->ops[l->nops - 1].id, git_tree_id(tsub));
	}
	if (plen)
		l->path[plen - 1] = '/';
	for (i = 0; rc == 0 && i < n; i++) {
		size_t nlen = strlen(v[i].name);

		if (plen + nlen + 2 > sizeof(l->path)) {
			l->path[plen] = '\0';
			rc = too_long(l->path, v[i].name, err);
			break;
		}
		memcpy(l->path + plen, v[i].name, nlen + 1);
		if (v[i].whiteout)
			rc = push_op(l, OP_REMOVE, l->path, err);
		else if (strcmp(v[i].name, ".git") == 0 && plen == 0)
			continue;   /* the worktree's own link to its repository */
		else if (strcmp(v[i].name, ".git") == 0) {
			l->path[plen - 1] = '\0';
			rc = embedded(l, err);
			l->path[plen - 1] = '/';
		} else if (S_ISDIR(v[i].st.st_mode))
			rc = walk_dir(l, plen, nlen, tsub, lower, dir_ignored, err);
		else if (S_ISREG(v[i].st.st_mode) || S_ISLNK(v[i].st.st_mode))
			rc = plan_file(l, dir_ignored, err);
		else
			rc = plan_special(l, v[i].st.st_mode, err);
	}
	entries_free(v, n);
	if (rc == 0)
		rc = push_op(l, OP_END, NULL, err);
	return rc;
}

/* The task's index: its entries sorted, no conflict; the parser's, else libgit2's. */
static int load_index(struct layer *l, const char *index_path, struct at_error *err)
{
	char e[200];
	size_t i, n;
	int rc = at_index_read(index_path, &l->idx, err);

	if (rc < 0)
		return rc;
	if (rc == 0) {
		l->ents = l->idx.v;
		l->nents = l->idx.n;
		l->trees = l->idx.trees;
		l->ntrees = l->idx.ntrees;
	} else {
		if (git_index_open(&l->gidx, index_path) < 0)
			return at_git_error(err, AT_EGIT, "cannot read the index '%s'",
					    at_esc(e, sizeof(e), index_path));
		n = git_index_entrycount(l->gidx);
		if (!(l->gv = calloc(n ? n : 1, sizeof(*l->gv))))
			return at_error_set(err, AT_ESYS, "out of memory");
		for (i = 0; i < n; i++)
			l->gv[i] = *git_index_get_byindex(l->gidx, i);
		l->ents = l->gv;
		l->nents = n;
	}
	for (i = 0; i < l->nents; i++)
		if (GIT_INDEX_ENTRY_STAGE(&l->ents[i]) != 0)
			return at_error_set(err, AT_ECONFLICT,
					    "the worktree's index has an unresolved conflict in '%s': "
					    "resolve it with git first",
					    at_esc(e, sizeof(e), l->ents[i].path));
	return 0;
}

static int push_drop(struct layer *l, const char *path, struct at_error *err)
{
	git_tree_update *u;

	if (l->ndrops == l->capdrops) {
		size_t cap = l->capdrops ? l->capdrops * 2 : 16;
		git_tree_update *v = reallocarray(l->drops, cap, sizeof(*v));

		if (!v)
			return at_error_set(err, AT_ESYS, "out of memory");
		l->drops = v;
		l->capdrops = cap;
	}
	u = &l->drops[l->ndrops];
	memset(u, 0, sizeof(*u));
	u->action = GIT_TREE_UPDATE_REMOVE;
	if (!(u->path = strdup(path)))
		return at_error_set(err, AT_ESYS, "out of memory");
	l->ndrops++;
	return 0;
}

/*
 * A path of lower_tree the index does not track: dropped when the merged
 * view shows the lower's entry there and the rules ignore it (a submodule's
 * empty directory records nothing either).
 */
static int judge_untracked(struct layer *l, const char *path, git_filemode_t mode,
			   struct at_error *err)
{
	bool ign = mode == GIT_FILEMODE_COMMIT;
	int rc;

	git_tree_entry *te = NULL;

	if (locate(l, path) != 2)
		return 0;   /* the upper's, or hidden: the walk decided */
	/* Gone already with a directory the walk left out (ignored, nothing tracked in it). */
	if (git_tree_entry_bypath(&te, l->walked, path) < 0) {
		git_error_clear();
		return 0;
	}
	git_tree_entry_free(te);
	if (!ign && (rc = ignored(l, path, false, false, &ign, err)) < 0)
		return rc;
	return ign ? push_drop(l, path, err) : 0;
}

/*
 * The paths of the tree t (at dir, dlen bytes: "" or "a/b/") that the
 * index's entries [lo, hi) do not track, judged; a directory the index's
 * cache-tree holds with t's very id is skipped whole.
 */
static int untracked_lower(struct layer *l, const git_tree *t, char *dir, size_t dlen, size_t lo,
			   size_t hi, struct at_error *err)
{
	const struct at_cache_tree *ct =
	    l->trees ? at_cache_tree_find(l->trees, l->ntrees, dir, dlen ? dlen - 1 : 0) : NULL;
	size_t i, n = git_tree_entrycount(t);
	int rc = 0;

	if (ct && git_oid_equal(&ct->id, git_tree_id(t)))
		return 0;
	for (i = 0; rc == 0 && i < n; i++) {
		const git_tree_entry *te = git_tree_entry_byindex(t, i);
		const char *name = git_tree_entry_name(te);
		size_t nlen = strlen(name), a, b;
		git_tree *sub = NULL;

		if (dlen + nlen + 2 >= PATH_MAX)
			return too_long(dir, name, err);
		memcpy(dir + dlen, name, nlen + 1);
		if (git_tree_entry_type(te) != GIT_OBJECT_TREE) {
			a = lower_bound(l, dir, lo, hi);
			if (a == hi || strcmp(l->ents[a].path, dir) != 0)
				rc = judge_untracked(l, dir, git_tree_entry_filemode(te), err);
			continue;
		}
		memcpy(dir + dlen + nlen, "/", 2);
		a = lower_bound(l, dir, lo, hi);
		dir[dlen + nlen] = '0';   /* '/' + 1: past every "name/..." */
		b = lower_bound(l, dir, a, hi);
		dir[dlen + nlen] = '/';
		if (git_tree_lookup(&sub, l->repo, git_tree_entry_id(te)) < 0)
			return at_git_error(err, AT_EGIT, "cannot read the lower's tree");
		rc = untracked_lower(l, sub, dir, dlen + nlen + 1, a, b, err);
		git_tree_free(sub);
	}
	dir[dlen] = '\0';
	return rc;
}

/* Step 2: the plan's files hashed, with the base's attributes for exactly their paths. */
static int hash_files(struct layer *l, uint64_t max_size, struct at_error *err)
{
	AT_AUTOFREE const char **paths = calloc(l->nops ? l->nops : 1, sizeof(*paths));
	struct at_wt_hasher h;
	bool any = false;
	size_t i, n = 0;
	int rc;

	if (!paths)
		return at_error_set(err, AT_ESYS, "out of memory");
	for (i = 0; i < l->nops; i++)
		if (l->ops[i].kind == OP_FILE)
			paths[n++] = l->ops[i].path;
	if (n == 0)
		return 0;
	memset(&h, 0, sizeof(h));
	h.repo = l->repo;
	h.root = l->upper;
	h.max_size = max_size;
	if ((rc = at_git_attrs_from_base(l->repo, git_tree_id(l->lower_tree), paths, n, &any,
					 err)) < 0)
		return rc;
	h.filters = any || at_git_filters_configured(l->repo);
	if (git_repository_odb(&h.odb, l->repo) < 0)
		return at_git_error(err, AT_EGIT, "cannot open the object database");
	for (i = 0; rc == 0 && i < l->nops; i++) {
		struct op *op = &l->ops[i];
		git_filemode_t mode;
		struct stat st;

		if (op->kind != OP_FILE)
			continue;
		rc = at_wt_hash(&h, op->path, &op->id, &mode, &st, err);
		if (rc == 1)
			op->kind = OP_REMOVE;   /* gone, or a directory now: the next state's */
		else if (rc == 0)
			op->mode = mode;
		rc = rc < 0 ? rc : 0;
	}
	git_odb_free(h.odb);
	return rc;
}

/* Step 3: the plan replayed on lower_tree, one tree builder a directory. */
static int replay(struct layer *l, git_oid *out, struct at_error *err)
{
	git_treebuilder **stack = calloc(l->nops ? l->nops : 1, sizeof(*stack));
	const char **names = calloc(l->nops ? l->nops : 1, sizeof(*names));
	size_t depth = 0, i;
	git_tree *base;
	git_oid id;
	int rc = 0;

	if (!stack || !names) {
		rc = at_error_set(err, AT_ESYS, "out of memory");
		goto out;
	}
	for (i = 0; rc == 0 && i < l->nops; i++) {
		struct op *op = &l->ops[i];
		git_treebuilder *top = depth ? stack[depth - 1] : NULL;

		switch (op->kind) {
		case OP_DIR:
			base = NULL;
			if (op->base && git_tree_lookup(&base, l->repo, &op->id) < 0) {
				rc = at_git_error(err, AT_EGIT, "cannot read the lower's tree");
				break;
			}
			if (git_treebuilder_new(&stack[depth], l->repo, base) < 0)
				rc = at_git_error(err, AT_EGIT, "cannot build a tree");
			else
				names[depth++] = op->name;
			git_tree_free(base);
			break;
		case OP_END:
			if (git_treebuilder_write(&id, top) < 0) {
				rc = at_git_error(err, AT_EGIT, "cannot write a tree");
				break;
			}
			if (depth == 1)
				git_oid_cpy(out, &id);
			else if (git_treebuilder_entrycount(top) == 0)
				git_treebuilder_remove(stack[depth - 2], names[depth - 1]);
			else if (git_treebuilder_insert(NULL, stack[depth - 2], names[depth - 1], &id,
							GIT_FILEMODE_TREE) < 0)
				rc = at_git_error(err, AT_EGIT, "cannot record '%s'", names[depth - 1]);
			git_treebuilder_free(top);
			stack[--depth] = NULL;
			break;
		case OP_FILE:
		case OP_ID:
			if (git_treebuilder_insert(NULL, top, op->name, &op->id,
						   (git_filemode_t)op->mode) < 0)
				rc = at_git_error(err, AT_EGIT, "cannot record '%s'", op->path);
			break;
		case OP_REMOVE:
			git_treebuilder_remove(top, op->name);   /* absent from the lower: fine */
			break;
		}
		git_error_clear();
	}
out:
	while (stack && depth)
		git_treebuilder_free(stack[--depth]);
	free(stack);
	free(names);
	return rc;
}

static int change_cmp(const void *a, const void *b)
{
	return strcmp(((const struct at_change_file *)a)->path,
		      ((const struct at_change_file *)b)->path);
}

/* Sort the files by path, each once. */
static void sort_unique(struct at_change_set *cs)
{
	size_t i, n = 0;

	if (cs->nfiles > 1)
		qsort(cs->files, cs->nfiles, sizeof(*cs->files), change_cmp);
	for (i = 0; i < cs->nfiles; i++) {
		if (n && strcmp(cs->files[n - 1].path, cs->files[i].path) == 0) {
			free(cs->files[i].path);
			continue;
		}
		cs->files[n++] = cs->files[i];
	}
	cs->nfiles = n;
}

/* What the new tree changes against lower_tree, path by path, sorted. */
static int list_changes(struct layer *l, git_tree *tree, struct at_change_set *cs,
			struct at_error *err)
{
	git_strarray paths = {NULL, 0};
	size_t i;
	int rc = 0;

	memset(cs, 0, sizeof(*cs));
	at_oid_from_git(&cs->tree, git_tree_id(tree));
	if (at_tree_changed_paths(l->repo, l->lower_tree, tree, SIZE_MAX, &paths) < 0)
		return at_git_error(err, AT_EGIT, "cannot compare the trees");
	if (paths.count && !(cs->files = calloc(paths.count, sizeof(*cs->files))))
		rc = at_error_set(err, AT_ESYS, "out of memory");
	for (i = 0; rc == 0 && i < paths.count; i++) {
		struct at_change_file *f = &cs->files[cs->nfiles];
		git_tree_entry *a = NULL, *b = NULL;

		if (git_tree_entry_bypath(&a, l->lower_tree, paths.strings[i]) < 0 ||
		    git_tree_entry_type(a) == GIT_OBJECT_TREE) {
			git_tree_entry_free(a);
			a = NULL;
		}
		if (git_tree_entry_bypath(&b, tree, paths.strings[i]) < 0 ||
		    git_tree_entry_type(b) == GIT_OBJECT_TREE) {
			git_tree_entry_free(b);
			b = NULL;
		}
		git_error_clear();
		/*
		 * at_tree_changed_paths lists a superset (a pathspec): a path can
		 * come twice, or unchanged, next to a file named like a directory
		 * plus a suffix ("x y" and "x y.log"). Only real changes count.
		 */
		if ((!a && !b) || (a && b && git_oid_equal(git_tree_entry_id(a), git_tree_entry_id(b)) &&
				   git_tree_entry_filemode(a) == git_tree_entry_filemode(b))) {
			git_tree_entry_free(a);
			git_tree_entry_free(b);
			continue;
		}
		f->old_mode = a ? (unsigned int)git_tree_entry_filemode(a) : 0;
		f->new_mode = b ? (unsigned int)git_tree_entry_filemode(b) : 0;
		f->status = !a ? AT_CHANGE_ADDED : !b ? AT_CHANGE_DELETED
			  : (f->old_mode & 0170000) != (f->new_mode & 0170000) ? AT_CHANGE_TYPECHANGE
									      : AT_CHANGE_MODIFIED;
		git_tree_entry_free(a);
		git_tree_entry_free(b);
		if (!(f->path = strdup(paths.strings[i])))
			rc = at_error_set(err, AT_ESYS, "out of memory");
		else
			cs->nfiles++;
	}
	at_tree_paths_free(&paths);
	if (rc < 0)
		at_change_set_release(cs);
	else
		sort_unique(cs);
	return rc;
}

static void layer_release(struct layer *l)
{
	size_t i;

	for (i = 0; i < l->nops; i++)
		free(l->ops[i].path);
	free(l->ops);
	for (i = 0; i < l->ndrops; i++)
		free((char *)l->drops[i].path);
	free(l->drops);
	at_wt_ignore_free(l->ign);
	at_index_free(&l->idx);
	git_tree_free(l->walked);
	free(l->gv);
	git_index_free(l->gidx);
	git_tree_free(l->lower_tree);
	git_repository_free(l->repo);
	at_strlist_release(&l->repos);
}

int at_layer_state(struct at_repo *r, const struct at_task *t, const struct at_oid *lower_tree,
		   int lower_fd, int upper_fd, const char *index_path, struct at_oid *tree,
		   struct at_change_set *changes, struct at_error *err)
{
	struct layer l;
	git_tree *result = NULL;
	git_oid id, final;
	uint64_t max_size;
	char dir[PATH_MAX] = "";
	int rc;

	memset(&l, 0, sizeof(l));
	l.upper = upper_fd;
	l.lower = lower_fd;
	at_oid_to_git(&id, lower_tree);
	if ((rc = at_repo_max_file_size(r, &max_size, err)) < 0 ||
	    (rc = at_git_open_bare(&l.repo, r, err)) < 0)
		goto out;
	/* Where git's own .git of a submodule points: as git/scan.c's walk_init has it. */
	if (t && (at_fmt(l.workdir, sizeof(l.workdir), "%s/", t->path) < 0 ||
		  at_fmt(l.modules[0], sizeof(l.modules[0]), "%smodules/",
			 git_repository_commondir(l.repo)) < 0 ||
		  at_fmt(l.modules[1], sizeof(l.modules[1]), "%s/modules/", t->admin_dir) < 0))
		memset(l.modules, 0, sizeof(l.modules));
	if (git_tree_lookup(&l.lower_tree, l.repo, &id) < 0) {
		rc = at_git_error(err, AT_EGIT, "cannot read the lower's tree");
		goto out;
	}
	if ((index_path && (rc = load_index(&l, index_path, err)) < 0) ||
	    (rc = at_wt_ignore_open_reader(&l.ign, l.repo, read_merged, &l, err)) < 0 ||
	    (rc = walk(&l, 0, l.lower_tree, true, false, err)) < 0 ||
	    (rc = refuse_embedded(&l, err)) < 0 ||
	    (rc = hash_files(&l, max_size, err)) < 0 || (rc = replay(&l, &final, err)) < 0)
		goto out;
	if (l.ents && git_tree_lookup(&l.walked, l.repo, &final) < 0) {
		rc = at_git_error(err, AT_EGIT, "cannot read the new tree");
		goto out;
	}
	if (l.ents && (rc = untracked_lower(&l, l.lower_tree, dir, 0, 0, l.nents, err)) < 0)
		goto out;
	if (l.ndrops &&
	    git_tree_create_updated(&final, l.repo, l.walked, l.ndrops, l.drops) < 0) {
		rc = at_git_error(err, AT_EGIT, "cannot write a tree");
		goto out;
	}
	if (changes) {
		if (git_tree_lookup(&result, l.repo, &final) < 0) {
			rc = at_git_error(err, AT_EGIT, "cannot read the new tree");
			goto out;
		}
		if ((rc = list_changes(&l, result, changes, err)) < 0)
			goto out;
	}
	at_oid_from_git(tree, &final);
out:
	git_tree_free(result);
	layer_release(&l);
	return rc;
}
