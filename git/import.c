/*
 * import.c - the task's objects validated and copied in, its branch moved
 * (import.h has the rules).
 */
#include "git/import.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/array.h"
#include "core/esc.h"
#include "core/fs.h"
#include "core/trace.h"
#include "core/util.h"
#include "git/index_update.h"
#include "git/internal.h"
#include "gitfmt/index_file.h"
#include "gitfmt/packscan.h"

#define PACK_MAX ((uint64_t)4 << 30)   /* one pack of the task's, as read from its layer */
/*
 * What indexing one pack may write (gitfmt/packscan.h): its objects' sizes,
 * each delta's counted with its chain's, as libgit2 applies a chain again
 * for each object in it. Seconds of copying; a bomb of deltas declaring
 * more is refused before the indexer allocates any of it.
 */
#define PACK_WORK_MAX ((uint64_t)16 << 30)

/* ---- the ids seen, with their state (open addressing; ids are uniformly random) ---- */

enum seen_state { UNSEEN, PENDING, EXPANDING, DONE };

struct oidset {
	git_oid *slot;
	unsigned char *state;     /* enum seen_state; UNSEEN: the slot is free */
	uint32_t *height;         /* a tree's, once DONE (tree_height) */
	size_t cap, n;
};

static size_t slot_of(const git_oid *id, size_t cap)
{
	size_t h;

	memcpy(&h, id->id, sizeof(h));
	return h & (cap - 1);
}

static size_t oidset_find(const struct oidset *s, const git_oid *id)
{
	size_t j;

	if (!s->cap)
		return SIZE_MAX;
	for (j = slot_of(id, s->cap); s->state[j]; j = (j + 1) & (s->cap - 1))
		if (git_oid_equal(&s->slot[j], id))
			return j;
	return SIZE_MAX;
}

static int oidset_grow(struct oidset *s)
{
	struct oidset big = { NULL, NULL, NULL, s->cap ? s->cap * 2 : 256, 0 };
	size_t i;

	big.slot = calloc(big.cap, sizeof(*big.slot));
	big.state = calloc(big.cap, 1);
	big.height = calloc(big.cap, sizeof(*big.height));
	if (!big.slot || !big.state || !big.height) {
		free(big.slot);
		free(big.state);
		free(big.height);
		return -1;
	}
	for (i = 0; i < s->cap; i++) {
		size_t j;

		if (!s->state[i])
			continue;
		for (j = slot_of(&s->slot[i], big.cap); big.state[j]; j = (j + 1) & (big.cap - 1))
			;
		big.slot[j] = s->slot[i];
		big.state[j] = s->state[i];
		big.height[j] = s->height[i];
		big.n++;
	}
	free(s->slot);
	free(s->state);
	free(s->height);
	*s = big;
	return 0;
}

/* id's slot, added as PENDING when new: SIZE_MAX when out of memory. */
static size_t oidset_add(struct oidset *s, const git_oid *id)
{
	size_t j = oidset_find(s, id);

	if (j != SIZE_MAX)
		return j;
	if ((s->n + 1) * 2 > s->cap && oidset_grow(s) < 0)
		return SIZE_MAX;
	for (j = slot_of(id, s->cap); s->state[j]; j = (j + 1) & (s->cap - 1))
		;
	s->slot[j] = *id;
	s->state[j] = PENDING;
	s->height[j] = 0;
	s->n++;
	return j;
}

static void oidset_free(struct oidset *s)
{
	free(s->slot);
	free(s->state);
	free(s->height);
}

/* ---- the quarantine: the task's bytes copied where agenttask alone writes ---- */

struct quar {
	git_odb *odb;             /* reads the quarantine only */
	git_repository *repo;     /* wraps odb, for libgit2's parsers */
	char objects[PATH_MAX];   /* <quarantine>/objects */
	int task_objects;         /* the task's upper's objects/, or -1 */
	bool packs_done;
	uint64_t max;             /* the object size limit */
	struct at_import_stats *stats;
};

/* A regular file of the task's layer, opened without following links, its size checked. */
static int open_task_file(int dirfd, const char *rel, uint64_t max, struct stat *st)
{
	int fd;

	/* A device (a whiteout is one) or a fifo is not even opened. */
	if (fstatat(dirfd, rel, st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st->st_mode)) {
		errno = S_ISCHR(st->st_mode) && st->st_rdev == 0 ? ENOENT : EFBIG;
		return -1;
	}
	fd = at_open_beneath(dirfd, rel, O_RDONLY | O_NONBLOCK | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode) || (uint64_t)st->st_size > max) {
		close(fd);
		errno = EFBIG;
		return -1;
	}
	return fd;
}

static int copy_fd(int from, const char *to, struct at_error *err)
{
	char buf[65536];
	int out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0444);
	ssize_t n;

	if (out < 0)
		return errno == EEXIST ? 0 : at_error_sys(err, AT_ESYS, "cannot write '%s'", to);
	while ((n = read(from, buf, sizeof(buf))) > 0)
		if (at_write_all(out, buf, (size_t)n) < 0)
			break;
	if (n != 0 || close(out) < 0) {
		unlink(to);
		return at_error_sys(err, AT_ESYS, "cannot copy the task's object to '%s'", to);
	}
	return 0;
}

/* The loose object id, if the task's layer has one, copied in. 1 when it has none. */
static int fetch_loose(struct quar *q, const git_oid *id, struct at_error *err)
{
	char hex[GIT_OID_HEXSZ + 1], rel[GIT_OID_HEXSZ + 2], dir[PATH_MAX], dst[PATH_MAX];
	struct stat st;
	/* zlib may grow incompressible data a little; a header's worth more. */
	uint64_t bound = q->max + q->max / 64 + 4096;
	int fd, rc;

	if (q->task_objects < 0)
		return 1;
	git_oid_tostr(hex, sizeof(hex), id);
	snprintf(rel, sizeof(rel), "%.2s/%s", hex, hex + 2);
	fd = open_task_file(q->task_objects, rel, bound, &st);
	if (fd < 0 && errno == EFBIG)
		return at_error_set(err, AT_EUNSAFE, "the task's object %s: not a regular file or "
				    "over the size limit (%llu bytes)", hex,
				    (unsigned long long)q->max);
	/* ENOTDIR: the fan-out directory removed inside is a whiteout in the upper. */
	if (fd < 0)
		return errno == ENOENT || errno == ENOTDIR
			       ? 1
			       : at_error_sys(err, AT_EUNSAFE, "cannot read the task's object %s",
					      hex);
	rc = at_fmt(dir, sizeof(dir), "%s/%.2s", q->objects, hex) < 0 ||
	     at_fmt(dst, sizeof(dst), "%s/%s", dir, hex + 2) < 0
		     ? at_error_set(err, AT_ESYS, "path too long '%s'", q->objects)
		     : 0;
	if (rc == 0 && mkdir(dir, 0700) < 0 && errno != EEXIST)
		rc = at_error_sys(err, AT_ESYS, "cannot make '%s'", dir);
	if (rc == 0)
		rc = copy_fd(fd, dst, err);
	close(fd);
	return rc;
}

/* One of the task's packs through the indexer: every object hashed, its own .idx ignored. */
static int index_pack(struct quar *q, int packdir, const char *name, struct at_error *err)
{
	char pack[PATH_MAX], buf[65536];
	git_indexer_options opts = GIT_INDEXER_OPTIONS_INIT;
	git_indexer_progress prog;
	git_indexer *ix = NULL;
	struct at_packscan_limits lim;
	struct stat st;
	ssize_t n;
	int fd = open_task_file(packdir, name, PACK_MAX, &st), rc = 0;

	if (fd < 0)
		return at_error_sys(err, AT_EUNSAFE, "the task's pack '%s': not a regular file or "
				    "too large", name);
	lim.object_max = q->max;
	lim.total_max = PACK_WORK_MAX;
	if ((rc = at_packscan_check(fd, (uint64_t)st.st_size, name, &lim, err)) < 0) {
		close(fd);
		return rc;
	}
	if (at_fmt(pack, sizeof(pack), "%s/pack", q->objects) < 0 ||
	    (mkdir(pack, 0700) < 0 && errno != EEXIST) ||
	    git_indexer_new(&ix, pack, 0444, NULL, &opts) < 0)
		rc = at_git_error(err, AT_ESYS, "cannot index the task's pack '%s'", name);
	while (rc == 0 && (n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 || git_indexer_append(ix, buf, (size_t)n, &prog) < 0)
			rc = at_git_error(err, AT_EUNSAFE, "the task's pack '%s' is invalid", name);
	}
	if (rc == 0 && git_indexer_commit(ix, &prog) < 0)
		rc = at_git_error(err, AT_EUNSAFE, "the task's pack '%s' is invalid", name);
	git_indexer_free(ix);
	close(fd);
	if (rc == 0)
		q->stats->packs++;
	return rc;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Every pack of the task's layer, indexed once, then readable through q->odb. */
static int index_packs(struct quar *q, struct at_error *err)
{
	git_odb_backend *backend = NULL;
	struct dirent *de;
	DIR *d;
	int fd, rc = 0;

	q->packs_done = true;
	if (q->task_objects < 0)
		return 0;
	fd = at_open_beneath(q->task_objects, "pack", O_RDONLY | O_DIRECTORY);
	if (fd < 0)   /* ENOTDIR: objects/pack deleted inside, a whiteout */
		return errno == ENOENT || errno == ENOTDIR
			       ? 0
			       : at_error_sys(err, AT_EUNSAFE, "cannot open the task's objects/pack");
	if (!(d = fdopendir(fd))) {
		close(fd);
		return at_error_sys(err, AT_ESYS, "cannot list the task's objects/pack");
	}
	while (rc == 0 && (de = readdir(d)))
		if (de->d_name[0] != '.' && ends_with(de->d_name, ".pack"))
			rc = index_pack(q, dirfd(d), de->d_name, err);
	closedir(d);
	if (rc == 0 && q->stats->packs &&
	    (git_odb_backend_pack(&backend, q->objects) < 0 ||
	     git_odb_add_backend(q->odb, backend, 1) < 0))
		rc = at_git_error(err, AT_ESYS, "cannot read the task's packs");
	return rc;
}

/* The object from the quarantine, hash checked; its size checked before it is inflated. */
static int read_checked(struct quar *q, const git_oid *id, git_odb_object **out,
			struct at_error *err)
{
	char hex[GIT_OID_HEXSZ + 1];
	git_object_t type;
	git_oid actual;
	size_t len;
	int rc;

	git_oid_tostr(hex, sizeof(hex), id);
	if (!git_odb_exists(q->odb, id) && (rc = fetch_loose(q, id, err)) < 0)
		return rc;
	if (!git_odb_exists(q->odb, id) && !q->packs_done && (rc = index_packs(q, err)) < 0)
		return rc;
	if (!git_odb_exists(q->odb, id))
		return at_error_set(err, AT_EUNSAFE, "the task's commits need object %s, which is "
				    "nowhere: not imported", hex);
	if (git_odb_read_header(&len, &type, q->odb, id) < 0)
		return at_git_error(err, AT_EUNSAFE, "the task's object %s is corrupt", hex);
	if ((uint64_t)len > q->max)
		return at_error_set(err, AT_EUNSAFE, "the task's object %s is %zu bytes, over the "
				    "size limit of %llu", hex, len, (unsigned long long)q->max);
	if (git_odb_read(out, q->odb, id) < 0)
		return at_git_error(err, AT_EUNSAFE, "the task's object %s is corrupt", hex);
	if (git_odb_hash(&actual, git_odb_object_data(*out), git_odb_object_size(*out),
			 git_odb_object_type(*out)) < 0 || !git_oid_equal(&actual, id)) {
		git_odb_object_free(*out);
		*out = NULL;
		return at_error_set(err, AT_EUNSAFE, "the task's object %s does not match its id",
				    hex);
	}
	return 0;
}

/* ---- the strict parse: what each object points to ---- */

struct walk {
	struct quar q;
	git_repository *host_repo;   /* the repository: its trees' heights (host_height) */
	git_odb *host;
	struct oidset seen;
	struct wnode {
		git_oid id;
		size_t parent;      /* the entry that pushed it (a tree's subtree), else NO_PARENT */
		uint32_t height;    /* a tree's: 0 without subtrees, else 1 + its highest */
		bool expanded, tree;
	} *stack;
	size_t n, cap;
};

#define NO_PARENT SIZE_MAX

/*
 * git's own limit (max_allowed_tree_depth, core.maxTreeDepth: 2048 on
 * Linux): git refuses to walk a tree nested deeper, and older gits crash
 * on one. A tree's height is computed once per tree, as the walk writes it
 * (children first), so sharing subtrees costs nothing. A tree the
 * repository already has counts at its own height (host_height): else a
 * task could stack a deep tree on one an earlier import wrote, each under
 * the limit, together over it.
 */
#define TREE_HEIGHT_MAX 2048

static void raise_height(struct walk *w, size_t parent, uint32_t child)
{
	if (parent != NO_PARENT && w->stack[parent].height < child + 1)
		w->stack[parent].height = child + 1;
}

/* id's slot in w->seen, known and DONE with height h: SIZE_MAX when out of memory. */
static size_t seen_done(struct walk *w, const git_oid *id, uint32_t h)
{
	size_t j = oidset_find(&w->seen, id);

	if (j == SIZE_MAX && (j = oidset_add(&w->seen, id)) == SIZE_MAX)
		return SIZE_MAX;
	w->seen.state[j] = DONE;
	w->seen.height[j] = h;
	return j;
}

/*
 * The height of the tree id, which the repository has: its trees walked
 * without recursion, each once an import (w->seen keeps it, DONE). A walk
 * that goes deeper than the limit stops there: over it is all the caller
 * needs to know.
 */
static int host_height(struct walk *w, const git_oid *id, uint32_t *out, struct at_error *err)
{
	struct hnode {
		git_tree *tree;
		size_t next;
		uint32_t height;
	} *st = NULL;
	size_t n = 0, cap = 0, k;
	const git_oid *cid = id;
	int rc = 0;

	*out = 0;
	for (;;) {
		k = oidset_find(&w->seen, cid);
		if (k != SIZE_MAX && w->seen.state[k] == DONE) {
			if (n == 0) {
				*out = w->seen.height[k];
				break;
			}
			if (st[n - 1].height < w->seen.height[k] + 1)
				st[n - 1].height = w->seen.height[k] + 1;
		} else if (n > TREE_HEIGHT_MAX) {
			*out = TREE_HEIGHT_MAX + 1;
			break;
		} else if (AT_ARRAY_GROW(st, cap, n + 1) < 0) {
			rc = at_error_set(err, AT_ESYS, "out of memory");
			break;
		} else if (git_tree_lookup(&st[n].tree, w->host_repo, cid) < 0) {
			rc = at_git_error(err, AT_EGIT, "cannot read a tree of the repository");
			break;
		} else {
			st[n].next = 0;
			st[n++].height = 0;
		}
		/* The next subtree of the deepest tree open, or that tree done. */
		cid = NULL;
		while (n > 0 && !cid) {
			struct hnode *t = &st[n - 1];

			while (t->next < git_tree_entrycount(t->tree) && !cid) {
				const git_tree_entry *e = git_tree_entry_byindex(t->tree, t->next++);

				if (git_tree_entry_filemode(e) == GIT_FILEMODE_TREE)
					cid = git_tree_entry_id(e);
			}
			if (cid)
				break;
			if (seen_done(w, git_tree_id(t->tree), t->height) == SIZE_MAX) {
				rc = at_error_set(err, AT_ESYS, "out of memory");
				goto out;
			}
			if (n == 1)
				*out = t->height;
			else if (st[n - 2].height < t->height + 1)
				st[n - 2].height = t->height + 1;
			git_tree_free(t->tree);
			n--;
		}
		if (n == 0)
			break;
	}
out:
	while (n > 0)
		git_tree_free(st[--n].tree);
	free(st);
	return rc;
}

/* git's order of tree entries: a directory's name compares as if it ended in '/'. */
static int entry_cmp(const git_tree_entry *a, const git_tree_entry *b)
{
	const char *na = git_tree_entry_name(a), *nb = git_tree_entry_name(b);
	size_t la = strlen(na), lb = strlen(nb), n = la < lb ? la : lb;
	int c = memcmp(na, nb, n);
	unsigned char ca, cb;

	if (c)
		return c;
	ca = la > n ? (unsigned char)na[n] : git_tree_entry_type(a) == GIT_OBJECT_TREE ? '/' : 0;
	cb = lb > n ? (unsigned char)nb[n] : git_tree_entry_type(b) == GIT_OBJECT_TREE ? '/' : 0;
	return ca - cb;
}

static bool name_ok(const char *name, git_filemode_t mode)
{
	if (!name[0] || strchr(name, '/') || strcmp(name, ".") == 0 || strcmp(name, "..") == 0 ||
	    strcasecmp(name, ".git") == 0)
		return false;
	return !(mode == GIT_FILEMODE_LINK && strcasecmp(name, ".gitmodules") == 0);
}

static bool mode_ok(unsigned int raw)
{
	return raw == 0100644 || raw == 0100755 || raw == 0120000 || raw == 040000 ||
	       raw == 0160000 || raw == 0100664;
}

/*
 * id to validate and write, unless the repository has it. A subtree
 * (parent, a tree being expanded) that is still to be written elsewhere on
 * the stack is pushed again above its parent, so that it is written, and
 * its height known, before its parent is.
 */
static int push(struct walk *w, const git_oid *id, size_t parent, struct at_error *err)
{
	size_t j;

	if (git_odb_exists(w->host, id)) {
		uint32_t h;
		int rc;

		/* A subtree (parent set) the repository has: its height counts. */
		if (parent == NO_PARENT)
			return 0;
		if ((rc = host_height(w, id, &h, err)) < 0)
			return rc;
		raise_height(w, parent, h);
		return 0;
	}
	j = oidset_find(&w->seen, id);
	if (j != SIZE_MAX && w->seen.state[j] == DONE) {
		raise_height(w, parent, w->seen.height[j]);
		return 0;
	}
	if (j != SIZE_MAX && parent == NO_PARENT)
		return 0;
	if ((j == SIZE_MAX && oidset_add(&w->seen, id) == SIZE_MAX) ||
	    AT_ARRAY_GROW(w->stack, w->cap, w->n + 1) < 0)
		return at_error_set(err, AT_ESYS, "out of memory");
	w->stack[w->n].id = *id;
	w->stack[w->n].parent = parent;
	w->stack[w->n].height = 0;
	w->stack[w->n].expanded = false;
	w->stack[w->n++].tree = false;
	return 0;
}

static int push_tree(struct walk *w, size_t top, const git_oid *id, const char *hex,
		     struct at_error *err)
{
	git_tree *tree = NULL;
	size_t i, n;
	int rc = 0;

	if (git_tree_lookup(&tree, w->q.repo, id) < 0)
		return at_git_error(err, AT_EUNSAFE, "the task's tree %s is malformed", hex);
	n = git_tree_entrycount(tree);
	for (i = 0; rc == 0 && i < n; i++) {
		const git_tree_entry *e = git_tree_entry_byindex(tree, i);
		git_filemode_t mode = git_tree_entry_filemode(e);

		if (!mode_ok(git_tree_entry_filemode_raw(e)) || !name_ok(git_tree_entry_name(e), mode))
			rc = at_error_set(err, AT_EUNSAFE, "the task's tree %s has an invalid entry",
					  hex);
		else if (i > 0 && entry_cmp(git_tree_entry_byindex(tree, i - 1), e) >= 0)
			rc = at_error_set(err, AT_EUNSAFE, "the task's tree %s is not sorted or "
					  "repeats a name", hex);
		else if (mode != GIT_FILEMODE_COMMIT)   /* a submodule's commit is not ours */
			rc = push(w, git_tree_entry_id(e), mode == GIT_FILEMODE_TREE ? top : NO_PARENT,
				  err);
	}
	git_tree_free(tree);
	return rc;
}

static int push_commit(struct walk *w, const git_oid *id, const char *hex, struct at_error *err)
{
	git_commit *c = NULL;
	unsigned int i;
	int rc;

	if (git_commit_lookup(&c, w->q.repo, id) < 0)
		return at_git_error(err, AT_EUNSAFE, "the task's commit %s is malformed", hex);
	rc = push(w, git_commit_tree_id(c), NO_PARENT, err);
	for (i = 0; rc == 0 && i < git_commit_parentcount(c); i++)
		rc = push(w, git_commit_parent_id(c, i), NO_PARENT, err);
	git_commit_free(c);
	return rc;
}

static int push_tag(struct walk *w, const git_oid *id, const char *hex, struct at_error *err)
{
	git_tag *tag = NULL;
	int rc;

	if (git_tag_lookup(&tag, w->q.repo, id) < 0)
		return at_git_error(err, AT_EUNSAFE, "the task's tag %s is malformed", hex);
	rc = push(w, git_tag_target_id(tag), NO_PARENT, err);
	git_tag_free(tag);
	return rc;
}

/* Validate the object on top of the stack and push what it points to. */
static int expand(struct walk *w, size_t top, bool *leaf, struct at_error *err)
{
	git_oid id = w->stack[top].id;
	char hex[GIT_OID_HEXSZ + 1];
	git_odb_object *o = NULL;
	git_object_t type;
	int rc;

	git_oid_tostr(hex, sizeof(hex), &id);
	if ((rc = read_checked(&w->q, &id, &o, err)) < 0)
		return rc;
	type = git_odb_object_type(o);
	*leaf = type == GIT_OBJECT_BLOB;
	if (*leaf) {
		git_oid written;

		if (git_odb_write(&written, w->host, git_odb_object_data(o), git_odb_object_size(o),
				  type) < 0)
			rc = at_git_error(err, AT_ESYS, "cannot store the task's object %s", hex);
		else
			w->q.stats->objects++;
	}
	git_odb_object_free(o);
	if (rc < 0 || *leaf)
		return rc;
	w->stack[top].expanded = true;
	w->stack[top].tree = type == GIT_OBJECT_TREE;
	w->seen.state[oidset_find(&w->seen, &id)] = EXPANDING;
	if (type == GIT_OBJECT_TREE)
		return push_tree(w, top, &id, hex, err);
	if (type == GIT_OBJECT_COMMIT)
		return push_commit(w, &id, hex, err);
	if (type == GIT_OBJECT_TAG)
		return push_tag(w, &id, hex, err);
	return at_error_set(err, AT_EUNSAFE, "the task's object %s has an unknown type", hex);
}

/* Everything it points to is in the repository now: the object itself goes in. */
static int store(struct walk *w, size_t top, struct at_error *err)
{
	const struct wnode *e = &w->stack[top];
	char hex[GIT_OID_HEXSZ + 1];
	git_odb_object *o = NULL;
	git_oid written;
	size_t j = oidset_find(&w->seen, &e->id);
	int rc = 0;

	git_oid_tostr(hex, sizeof(hex), &e->id);
	if (e->tree && e->height > TREE_HEIGHT_MAX)
		return at_error_set(err, AT_EUNSAFE, "the task's tree %s nests directories more than "
				    "%d deep, which git refuses", hex, TREE_HEIGHT_MAX);
	if (git_odb_read(&o, w->q.odb, &e->id) < 0 ||
	    git_odb_write(&written, w->host, git_odb_object_data(o), git_odb_object_size(o),
			  git_odb_object_type(o)) < 0)
		rc = at_git_error(err, AT_ESYS, "cannot store the task's object %s", hex);
	else
		w->q.stats->objects++;
	git_odb_object_free(o);
	if (rc < 0)
		return rc;
	w->seen.state[j] = DONE;
	w->seen.height[j] = e->height;
	raise_height(w, e->parent, e->height);
	return 0;
}

static int walk_all(struct walk *w, const git_oid *tip, struct at_error *err)
{
	int rc = push(w, tip, NO_PARENT, err);

	while (rc == 0 && w->n > 0) {
		size_t top = w->n - 1, j = oidset_find(&w->seen, &w->stack[top].id);
		bool leaf = false;

		if (w->stack[top].expanded) {
			rc = store(w, top, err);
			w->n--;
		} else if (w->seen.state[j] == DONE) {
			/* pushed twice, written from its other place: its height only */
			raise_height(w, w->stack[top].parent, w->seen.height[j]);
			w->n--;
		} else if (w->seen.state[j] == EXPANDING) {
			rc = at_error_set(err, AT_EUNSAFE, "the task's objects form a cycle");
		} else if ((rc = expand(w, top, &leaf, err)) == 0 && leaf) {
			w->seen.state[j] = DONE;
			w->n--;   /* a blob, written as it was read: it pushed nothing */
		}
	}
	return rc;
}

static int quar_open(struct quar *q, struct at_repo *r, const char *dir, struct at_error *err)
{
	git_odb_backend *loose = NULL;
	int rc;

	if (at_fmt(q->objects, sizeof(q->objects), "%s/objects", dir) < 0)
		return at_error_set(err, AT_ESYS, "path too long '%s'", dir);
	if (mkdir(q->objects, 0700) < 0 && errno != EEXIST)
		return at_error_sys(err, AT_ESYS, "cannot make '%s'", q->objects);
	if ((rc = at_repo_max_file_size(r, &q->max, err)) < 0)
		return rc;
	if (git_odb_new(&q->odb) < 0 ||
	    git_odb_backend_loose(&loose, q->objects, -1, 0, 0700, 0444) < 0 ||
	    git_odb_add_backend(q->odb, loose, 2) < 0 ||
	    git_repository_wrap_odb(&q->repo, q->odb) < 0)
		return at_git_error(err, AT_ESYS, "cannot open the quarantine '%s'", dir);
	return 0;
}

int at_git_import_objects(struct at_repo *r, int objects_fd, const char *quarantine,
			  const struct at_oid *tip, struct at_import_stats *stats,
			  struct at_error *err)
{
	struct walk w;
	git_oid id;
	int rc;

	memset(&w, 0, sizeof(w));
	memset(stats, 0, sizeof(*stats));
	w.host_repo = r->repo;
	w.q.task_objects = objects_fd;
	w.q.stats = stats;
	at_oid_to_git(&id, tip);
	rc = quar_open(&w.q, r, quarantine, err);
	if (rc == 0 && git_repository_odb(&w.host, r->repo) < 0)
		rc = at_git_error(err, AT_EGIT, "cannot open the object database");
	if (rc == 0) {
		at_test_kill_point("import:quarantine");
		rc = walk_all(&w, &id, err);
	}
	if (rc == 0)
		at_test_kill_point("import:objects");
	git_odb_free(w.host);
	git_repository_free(w.q.repo);
	git_odb_free(w.q.odb);
	oidset_free(&w.seen);
	free(w.stack);
	return rc;
}

/* ---- the branch and the index ---- */

int at_git_branch_tip(struct at_repo *r, const struct at_task *t, struct at_oid *out,
		      struct at_error *err)
{
	git_oid id;

	if (git_reference_name_to_id(&id, r->repo, t->branch) < 0)
		return at_git_error(err, AT_ENOTFOUND, "the branch of '%s' is missing", t->name);
	at_oid_from_git(out, &id);
	return 0;
}

/* One path that differs between the two trees, set in the index as the new tree has it. */
static int index_one(git_index *idx, const git_diff_delta *d)
{
	const git_index_entry *cur;
	git_index_entry e;

	/* A path that is not in the index is not an error: it is gone all the same. */
	if (d->status == GIT_DELTA_DELETED) {
		git_index_remove(idx, d->old_file.path, 0);
		return 0;
	}
	if (d->status == GIT_DELTA_TYPECHANGE)
		git_index_remove(idx, d->old_file.path, 0);
	cur = git_index_get_bypath(idx, d->new_file.path, 0);
	if (cur && git_oid_equal(&cur->id, &d->new_file.id) && cur->mode == d->new_file.mode)
		return 0;   /* already so, and its stat data the host's own */
	memset(&e, 0, sizeof(e));
	e.mode = d->new_file.mode;
	e.id = d->new_file.id;
	e.path = d->new_file.path;
	return git_index_add(idx, &e);
}

/* libgit2's way, where the fast one declines. */
static int update_index_git2(const char *path, git_diff *diff, const struct at_task *t,
			     struct at_error *err)
{
	git_index *idx = NULL;
	size_t i;
	int rc = 0;

	if (git_index_open(&idx, path) < 0)
		rc = at_git_error(err, AT_EGIT, "cannot update the index of '%s'", t->name);
	for (i = 0; rc == 0 && i < git_diff_num_deltas(diff); i++)
		if (index_one(idx, git_diff_get_delta(diff, i)) < 0)
			rc = at_git_error(err, AT_EGIT, "cannot update the index of '%s'", t->name);
	if (rc == 0 && git_index_write(idx) < 0)
		rc = at_git_error(err, AT_EBUSY, "cannot write the index of '%s'", t->name);
	git_index_free(idx);
	return rc;
}

static int change_cmp(const void *a, const void *b)
{
	return strcmp(((const struct at_index_change *)a)->path,
		      ((const struct at_index_change *)b)->path);
}

/*
 * The diff's deltas as the paths of the new tree (git/index_update.h): a
 * type change is its new path; a deletion a removal. Sorted, each once.
 */
static int changes_of(git_diff *diff, struct at_index_change **out, size_t *n)
{
	size_t i, count = git_diff_num_deltas(diff);
	struct at_index_change *c = calloc(count ? count : 1, sizeof(*c));

	if (!c)
		return -1;
	for (i = 0; i < count; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);

		c[i].remove = d->status == GIT_DELTA_DELETED;
		c[i].path = c[i].remove ? d->old_file.path : d->new_file.path;
		c[i].mode = d->new_file.mode;
		c[i].id = d->new_file.id;
	}
	qsort(c, count, sizeof(*c), change_cmp);
	*out = c;
	*n = count;
	return 0;
}

/*
 * The embedded-repository rule (git/scan.h) through the import: a gitlink
 * the base lacks, or one it has moved to another commit, would enter the
 * host's index, and the user's next `git status` in the worktree would run
 * the settings (core.fsmonitor) of whatever repository the task planted at
 * that path. The base's gitlinks, unchanged, are not in the diff.
 */
static int refuse_new_gitlinks(git_diff *diff, const git_oid *tip, struct at_error *err)
{
	char hex[GIT_OID_HEXSZ + 1], e[200];
	size_t i;

	for (i = 0; i < git_diff_num_deltas(diff); i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);

		if (d->status == GIT_DELTA_DELETED || d->new_file.mode != GIT_FILEMODE_COMMIT)
			continue;
		git_oid_tostr(hex, sizeof(hex), tip);
		return at_error_set(err, AT_EUNSAFE, "the task's commit %.12s records a repository "
				    "at '%s' (a gitlink the base does not have): embedded "
				    "repositories are not imported; add the submodule on the host "
				    "yourself", hex, at_esc(e, sizeof(e), d->new_file.path));
	}
	return 0;
}

static int update_index(git_repository *repo, const struct at_task *t, const git_oid *old,
			const git_oid *tip, struct at_error *err)
{
	char path[PATH_MAX];
	git_commit *a = NULL, *b = NULL;
	git_tree *ta = NULL, *tb = NULL;
	git_diff *diff = NULL;
	struct at_index_change *changes = NULL;
	size_t n = 0;
	int rc = 0;

	if (at_fmt(path, sizeof(path), "%s/index", t->admin_dir) < 0)
		return at_error_set(err, AT_ESYS, "path too long '%s'", t->admin_dir);
	if (git_commit_lookup(&a, repo, old) < 0 || git_commit_lookup(&b, repo, tip) < 0 ||
	    git_commit_tree(&ta, a) < 0 || git_commit_tree(&tb, b) < 0 ||
	    git_diff_tree_to_tree(&diff, repo, ta, tb, NULL) < 0)
		rc = at_git_error(err, AT_EGIT, "cannot update the index of '%s'", t->name);
	else if ((rc = refuse_new_gitlinks(diff, tip, err)) < 0)
		;
	else if (changes_of(diff, &changes, &n) < 0)
		rc = at_error_set(err, AT_ESYS, "out of memory");
	else if ((rc = at_index_update(path, changes, n, err)) == AT_INDEX_DECLINED)
		rc = update_index_git2(path, diff, t, err);
	free(changes);
	git_diff_free(diff);
	git_tree_free(ta);
	git_tree_free(tb);
	git_commit_free(a);
	git_commit_free(b);
	return rc;
}

int at_git_import_move(struct at_repo *r, const struct at_task *t, const struct at_oid *old,
		       const struct at_oid *tip, struct at_error *err)
{
	git_reference *ref = NULL;
	git_oid o, n;
	int rc;

	at_oid_to_git(&o, old);
	at_oid_to_git(&n, tip);
	if ((rc = update_index(r->repo, t, &o, &n, err)) < 0)
		return rc;
	rc = git_reference_create_matching(&ref, r->repo, t->branch, &n, 1, &o, "agenttask import");
	git_reference_free(ref);
	if (rc == GIT_EMODIFIED)
		return at_error_set(err, AT_ESTALE, "the branch of '%s' moved meanwhile: not "
				    "imported", t->name);
	if (rc < 0)
		return at_git_error(err, AT_EGIT, "cannot move the branch of '%s'", t->name);
	return 0;
}
