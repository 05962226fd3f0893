#include "git/diff.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"
#include "gitfmt/diff_format.h"
#include "git/diff_entries.h"
#include "git/internal.h"
#include "git/snapshot.h"
#include "git/tree_changes.h"
#include "git/wtread.h"

/* git reads at most this much of a file to call it binary (a NUL in it). */
#define BINARY_CHECK_BYTES 8000
#define NO_NEWLINE "\\ No newline at end of file"

struct at_diff {
	git_repository *repo;      /* no worktree, the base's attributes in its index: a task's
				      (w's, borrowed) or the common directory's (owned) */
	git_repository *owned;     /* repo, when it is the diff's own */
	struct at_worktree *w;     /* whose repository it borrowed, or NULL */
	git_odb *odb;
	git_diff *diff;
	git_diff_options opts;     /* also for the halves of a type change */
	struct at_diff_entry *ent; /* the files in git's output order (git/diff_entries.h) */
	size_t n;
	bool quote_high;           /* core.quotepath */
	int abbrev;                /* fewest hex digits on an index line */
	bool have_files;           /* cs.files worked out */
	struct at_change_set cs;
};

/* ---- opening ---------------------------------------------------------- */

static const char *delta_path(const git_diff_delta *d)
{
	return d->new_file.path ? d->new_file.path : d->old_file.path;
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The object count in a pack index's header (version 1 or 2), 0 if unreadable. */
static unsigned long idx_objects(int dirfd, const char *name)
{
	unsigned char hdr[8 + 256 * 4];
	AT_AUTOCLOSE int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	ssize_t got;

	if (fd < 0)
		return 0;
	got = read(fd, hdr, sizeof(hdr));
	if (got >= (ssize_t)sizeof(hdr) && memcmp(hdr, "\377tOc", 4) == 0)
		return be32(hdr + 8 + 255 * 4);
	if (got >= 256 * 4 && memcmp(hdr, "\377tOc", 4) != 0)
		return be32(hdr + 255 * 4);
	return 0;
}

/*
 * git's default abbreviation: about half the bits of the number of packed
 * objects, in hex digits, never fewer than 7 (loose objects do not count).
 */
static int auto_abbrev(const char *common_dir)
{
	char path[PATH_MAX];
	unsigned long count = 0;
	struct dirent *de;
	int bits = 0, len;
	DIR *dir;

	if (at_fmt(path, sizeof(path), "%s/objects/pack", common_dir) < 0 ||
	    !(dir = opendir(path)))
		return 7;
	while ((de = readdir(dir)) != NULL) {
		size_t l = strlen(de->d_name);
		if (l > 4 && strcmp(de->d_name + l - 4, ".idx") == 0)
			count += idx_objects(dirfd(dir), de->d_name);
	}
	closedir(dir);
	while (count >>= 1)
		bits++;
	len = (bits + 2) / 2;
	return len < 7 ? 7 : len;
}

static void read_config(struct at_diff *d)
{
	git_config *cfg = NULL;
	int32_t abbrev;
	int v;

	d->quote_high = true;
	d->abbrev = 0;
	if (git_repository_config_snapshot(&cfg, d->repo) == 0) {
		if (git_config_get_bool(&v, cfg, "core.quotepath") == 0)
			d->quote_high = v != 0;
		if (git_config_get_int32(&abbrev, cfg, "core.abbrev") == 0)
			d->abbrev = abbrev < 4 ? 4 : abbrev > 40 ? 40 : abbrev;
		else if (git_config_get_bool(&v, cfg, "core.abbrev") == 0 && !v)
			d->abbrev = 40;
	}
	git_config_free(cfg);
	git_error_clear();
	if (!d->abbrev)
		d->abbrev = auto_abbrev(git_repository_commondir(d->repo));
}

/*
 * The tree-to-tree diff, restricted to the paths that differ (an exact
 * pathspec, git/tree_changes.h) when there are at most this many: the
 * same deltas, without reading every unchanged subtree.
 */
#define MAX_PATHSPEC 4096

static int diff_trees(struct at_diff *d, git_tree *old, git_tree *new)
{
	git_diff_options opts = d->opts;
	git_strarray paths = { NULL, 0 };
	int rc;

	rc = at_tree_changed_paths(d->repo, old, new, MAX_PATHSPEC, &paths);
	if (rc < 0)
		return -1;
	if (rc == 0 && paths.count > 0) {
		opts.pathspec = paths;
		opts.flags |= GIT_DIFF_DISABLE_PATHSPEC_MATCH;
	}
	rc = git_diff_tree_to_tree(&d->diff, d->repo, old, new, &opts);
	at_tree_paths_free(&paths);
	return rc;
}

static int compare_trees(struct at_diff *d, const git_oid *base, const git_oid *tree_id,
			 struct at_error *err)
{
	char bhex[AT_OID_HEXSZ + 1], thex[AT_OID_HEXSZ + 1];
	git_commit *commit = NULL;
	git_tree *old = NULL, *new = NULL;
	int rc = 0;

	at_git_oid_hex(bhex, base);
	at_git_oid_hex(thex, tree_id);
	if (git_commit_lookup(&commit, d->repo, base) < 0 || git_commit_tree(&old, commit) < 0)
		rc = at_git_error(err, AT_EGIT, "cannot read the base commit '%s'", bhex);
	else if (git_tree_lookup(&new, d->repo, tree_id) < 0)
		rc = at_git_error(err, AT_EGIT, "cannot read the tree '%s'", thex);
	else if (diff_trees(d, old, new) < 0)
		rc = at_git_error(err, AT_EGIT, "cannot compare '%s' with '%s'", bhex, thex);
	git_tree_free(new);
	git_tree_free(old);
	git_commit_free(commit);
	return rc;
}

/* The paths of both sides of every delta, for the attributes that apply to them. */
static int delta_paths(git_diff *diff, const char ***out, size_t *n)
{
	size_t i, count = git_diff_num_deltas(diff);
	const char **v = calloc(2 * count + 1, sizeof(*v));

	if (!v)
		return -1;
	*n = 0;
	for (i = 0; i < count; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);

		v[(*n)++] = d->old_file.path;
		if (strcmp(d->old_file.path, d->new_file.path) != 0)
			v[(*n)++] = d->new_file.path;
	}
	*out = v;
	return 0;
}

/*
 * What the review may read of the new side, checked before it reads it: no
 * blob over the limit (a sparse 2 GB file, or one in a pushed commit), no
 * symlinked or oversized .gitattributes, .gitignore or .gitmodules, no path
 * inside a ".git" (git/wtread.h).
 */
static int check_new_side(struct at_diff *d, uint64_t max, struct at_error *err)
{
	size_t i, n = git_diff_num_deltas(d->diff), size;
	git_object_t type;
	char e[200];
	int rc = 0;

	for (i = 0; rc == 0 && i < n; i++) {
		const git_diff_file *f = &git_diff_get_delta(d->diff, i)->new_file;

		size = 0;
		if (git_oid_is_zero(&f->id) || f->mode == 0)
			continue;
		if ((f->mode == GIT_FILEMODE_BLOB || f->mode == GIT_FILEMODE_BLOB_EXECUTABLE ||
		     f->mode == GIT_FILEMODE_LINK) &&
		    git_odb_read_header(&size, &type, d->odb, &f->id) < 0)
			return at_git_error(err, AT_EGIT, "cannot read the object of '%s'",
					    at_esc(e, sizeof(e), f->path));
		rc = at_git_check_entry(f->path, f->mode, size, max, err);
	}
	return rc;
}

/* The base's attributes for every path of the diff: the only ones that apply. */
static int base_attributes(struct at_diff *d, const git_oid *base, struct at_error *err)
{
	AT_AUTOFREE const char **paths = NULL;
	size_t n = 0;
	bool any;

	if (delta_paths(d->diff, &paths, &n) < 0)
		return at_error_set(err, AT_ESYS, "out of memory");
	return at_git_attrs_from_base(d->repo, base, paths, n, &any, err);
}

/*
 * Compare base (a commit) with tree_id in repo (opened without a worktree);
 * owned: repo is the diff's, freed with it (on failure too).
 */
static int diff_new(struct at_diff **out, git_repository *repo, git_repository *owned,
		    uint64_t max, const git_oid *base, const git_oid *tree_id, struct at_error *err)
{
	struct at_diff *d = calloc(1, sizeof(*d));
	int rc;

	if (!d) {
		git_repository_free(owned);
		return at_error_set(err, AT_ESYS, "out of memory");
	}
	d->repo = repo;
	d->owned = owned;
	at_oid_from_git(&d->cs.base, base);
	at_oid_from_git(&d->cs.tree, tree_id);
	git_diff_options_init(&d->opts, GIT_DIFF_OPTIONS_VERSION);
	/* git's defaults: type changes seen as such, the indent heuristic on. */
	d->opts.flags = GIT_DIFF_INCLUDE_TYPECHANGE | GIT_DIFF_INDENT_HEURISTIC;
	if (git_repository_odb(&d->odb, d->repo) < 0)
		rc = at_git_error(err, AT_EGIT, "cannot open the object database");
	else
		rc = compare_trees(d, base, tree_id, err);
	if (rc == 0)
		rc = check_new_side(d, max, err);
	if (rc == 0)
		rc = base_attributes(d, base, err);
	if (rc == 0 && at_diff_entries(d->repo, d->diff, &d->ent, &d->n) < 0)
		rc = at_git_error(err, AT_EGIT, "cannot find the renames");
	if (rc < 0) {
		at_diff_free(d);
		return rc;
	}
	read_config(d);
	*out = d;
	return 0;
}

/* The merge base of the task's tip and its base branch, else base_commit. */
static int task_base(git_repository *repo, const struct at_task *t, const git_oid *tip,
		     git_oid *out, struct at_error *err)
{
	git_oid base_tip, mb;

	if (git_oid_fromstr(out, t->base_commit) < 0)
		return at_error_set(err, AT_ECORRUPT, "task '%s' has an invalid base commit '%s'",
				    t->name, t->base_commit);
	/* A base branch that is gone or shares no history leaves base_commit. */
	if (t->base_branch[0] && git_reference_name_to_id(&base_tip, repo, t->base_branch) == 0 &&
	    git_merge_base(&mb, repo, tip, &base_tip) == 0)
		git_oid_cpy(out, &mb);
	git_error_clear();
	return 0;
}

/*
 * The diff is made in the task's repository opened without its worktree,
 * its index replaced by the base's attributes: the patch's attribute
 * lookups (binary, diff drivers) never see the task's .gitattributes,
 * committed, untracked or ignored (git/attrs.c).
 */
int at_diff_open_state(struct at_diff **out, struct at_repo *r, struct at_worktree *w,
		       const struct at_task_state *st, struct at_error *err)
{
	git_oid base, tip, tree;
	uint64_t max_size;
	int rc;

	at_oid_to_git(&tip, &st->tip);
	at_oid_to_git(&tree, &st->tree);
	if ((rc = task_base(r->repo, &w->task, &tip, &base, err)) < 0 ||
	    (rc = at_repo_max_file_size(r, &max_size, err)) < 0 ||
	    (rc = diff_new(out, w->repo, NULL, max_size, &base, &tree, err)) < 0)
		return rc;
	/* w's repository holds this diff's attributes until it is freed. */
	(*out)->w = w;
	w->diffs++;
	return 0;
}

int at_diff_open_commits(struct at_diff **out, struct at_repo *r, const struct at_oid *base,
			 const struct at_oid *head, struct at_error *err)
{
	char bhex[AT_OID_HEXSZ + 1], hhex[AT_OID_HEXSZ + 1];
	git_oid b, h, mb;
	git_commit *commit = NULL;
	git_repository *bare = NULL;
	uint64_t max_size;
	int rc;

	at_oid_to_git(&b, base);
	at_oid_to_git(&h, head);
	at_oid_fmt(bhex, base);
	at_oid_fmt(hhex, head);
	if ((rc = at_repo_max_file_size(r, &max_size, err)) < 0)
		return rc;
	if (git_merge_base(&mb, r->repo, &b, &h) < 0)
		return at_git_error(err, AT_ENOTFOUND, "'%.12s' and '%.12s' have no common ancestor",
				    bhex, hhex);
	if (git_commit_lookup(&commit, r->repo, &h) < 0)
		return at_git_error(err, AT_EGIT, "cannot read commit '%s'", hhex);
	/* Not r->repo: its worktree is the CI checkout of the head, the agent's. */
	if ((rc = at_git_open_bare(&bare, r, err)) == 0)
		rc = diff_new(out, bare, bare, max_size, &mb, git_commit_tree_id(commit), err);
	git_commit_free(commit);
	return rc;
}

void at_diff_free(struct at_diff *d)
{
	if (!d)
		return;
	at_change_set_release(&d->cs);
	free(d->ent);
	git_diff_free(d->diff);
	git_odb_free(d->odb);
	git_repository_free(d->owned);
	if (d->w)
		d->w->diffs--;
	free(d);
}

/* ---- the change set --------------------------------------------------- */

static enum at_change_status change_status(git_delta_t s)
{
	switch (s) {
	case GIT_DELTA_ADDED:
		return AT_CHANGE_ADDED;
	case GIT_DELTA_DELETED:
		return AT_CHANGE_DELETED;
	case GIT_DELTA_RENAMED:
		return AT_CHANGE_RENAMED;
	case GIT_DELTA_COPIED:
		return AT_CHANGE_COPIED;
	case GIT_DELTA_TYPECHANGE:
		return AT_CHANGE_TYPECHANGE;
	default:
		return AT_CHANGE_MODIFIED;
	}
}

/* A NUL in the first `limit` bytes of the blob. */
static bool blob_has_nul(git_repository *repo, const git_oid *id, git_object_size_t limit)
{
	git_blob *blob = NULL;
	bool bin = false;

	if (!git_oid_is_zero(id) && git_blob_lookup(&blob, repo, id) == 0) {
		git_object_size_t size = git_blob_rawsize(blob);
		bin = memchr(git_blob_rawcontent(blob), 0, (size_t)(size < limit ? size : limit)) !=
		      NULL;
	}
	git_blob_free(blob);
	git_error_clear();
	return bin;
}

/* git's test: a NUL in the first 8000 bytes. */
static bool blob_is_binary(git_repository *repo, const git_oid *id)
{
	return blob_has_nul(repo, id, BINARY_CHECK_BYTES);
}

/*
 * The content of one side of a delta as git diffs it: a blob's bytes, or for
 * a gitlink the line "Subproject commit <id>" (git counts and shows that
 * line, so a submodule swapped for a file is not a change of no lines).
 * *blob holds the bytes of a blob until the caller frees it.
 */
struct side_text {
	git_blob *blob;
	const char *buf;
	size_t len;
	char line[64];
};

static int side_text(struct at_diff *d, const git_diff_file *f, struct side_text *t)
{
	memset(t, 0, sizeof(*t));
	if (f->mode == GIT_FILEMODE_COMMIT) {
		char hex[AT_OID_HEXSZ + 1];

		at_git_oid_hex(hex, &f->id);
		t->len = (size_t)snprintf(t->line, sizeof(t->line), "Subproject commit %s\n", hex);
		t->buf = t->line;
		return 0;
	}
	if (git_blob_lookup(&t->blob, d->repo, &f->id) < 0)
		return -1;
	t->buf = git_blob_rawcontent(t->blob);
	t->len = (size_t)git_blob_rawsize(t->blob);
	return 0;
}

/*
 * One side against the other (a missing side is empty), whatever their file
 * types. The patch points into ta and tb: release them after it.
 */
static int sides_patch(struct at_diff *d, const git_diff_file *a, const git_diff_file *b,
		       struct side_text *ta, struct side_text *tb, git_patch **out)
{
	memset(ta, 0, sizeof(*ta));
	memset(tb, 0, sizeof(*tb));
	if ((a && side_text(d, a, ta) < 0) || (b && side_text(d, b, tb) < 0))
		return -1;
	return git_patch_from_buffers(out, ta->buf, ta->len, a ? a->path : NULL, tb->buf, tb->len,
				      b ? b->path : NULL, &d->opts);
}

static void side_text_release(struct side_text *t)
{
	git_blob_free(t->blob);
	t->blob = NULL;
}

/* Lines added and deleted, and whether git would call the change binary. */
/*
 * A type change or a rename: made from the two sides here (libgit2 counts
 * nothing for the one and has no delta for the other), else libgit2's patch.
 */
static bool own_patch(const struct at_diff_entry *e)
{
	return e->status == GIT_DELTA_TYPECHANGE || e->old_idx != AT_DIFF_NO_DELTA;
}

static int line_stats(struct at_diff *d, const struct at_diff_entry *e, struct at_change_file *f,
		      struct at_error *err)
{
	const git_diff_file *a = at_diff_entry_old(d->diff, e), *b = at_diff_entry_new(d->diff, e);
	struct side_text ta = { 0 }, tb = { 0 };
	git_patch *p = NULL;
	int rc = 0;

	/* Same content (a pure rename or mode change): nothing to count. */
	if (git_oid_equal(&a->id, &b->id)) {
		f->binary = blob_is_binary(d->repo, &b->id);
		return 0;
	}
	/* libgit2 counts nothing for a type change; git counts old content against new. */
	if (own_patch(e) ? sides_patch(d, a, b, &ta, &tb, &p) < 0
			 : git_patch_from_diff(&p, d->diff, e->idx) < 0)
		rc = at_git_error(err, AT_EGIT, "cannot compare '%s'", f->path);
	else if (git_patch_line_stats(NULL, &f->additions, &f->deletions, p) < 0)
		rc = at_git_error(err, AT_EGIT, "cannot count the changes of '%s'", f->path);
	else
		f->binary = (git_patch_get_delta(p)->flags & GIT_DIFF_FLAG_BINARY) != 0;
	git_patch_free(p);
	side_text_release(&ta);
	side_text_release(&tb);
	return rc;
}

static int link_target(git_repository *repo, const git_oid *id, char **out, struct at_error *err)
{
	git_blob *blob = NULL;

	if (git_blob_lookup(&blob, repo, id) < 0)
		return at_git_error(err, AT_EGIT, "cannot read a symbolic link's target");
	*out = strndup(git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));
	git_blob_free(blob);
	return *out ? 0 : at_error_set(err, AT_ESYS, "out of memory");
}

static int fill_file(struct at_diff *d, const struct at_diff_entry *e, struct at_change_file *f,
		     struct at_error *err)
{
	const git_diff_file *a = at_diff_entry_old(d->diff, e), *b = at_diff_entry_new(d->diff, e);

	f->status = change_status(e->status);
	f->old_mode = a->mode;
	f->new_mode = b->mode;
	f->path = strdup(b->path ? b->path : a->path);
	f->old_path = strdup(a->path ? a->path : f->path ? f->path : "");
	if (!f->path || !f->old_path)
		return at_error_set(err, AT_ESYS, "out of memory");
	if (f->new_mode == GIT_FILEMODE_LINK &&
	    link_target(d->repo, &b->id, &f->link_target, err) < 0)
		return err->code;
	if (line_stats(d, e, f, err) < 0)
		return err->code;
	/* The policy's test, which 8000 bytes of text in front cannot fool. */
	f->has_nul = f->binary || ((f->new_mode == GIT_FILEMODE_BLOB ||
				    f->new_mode == GIT_FILEMODE_BLOB_EXECUTABLE) &&
				   blob_has_nul(d->repo, &b->id, UINT64_MAX));
	return 0;
}

static int fill_files(struct at_diff *d, struct at_error *err)
{
	struct at_change_set *cs = &d->cs;
	size_t i;

	cs->files = calloc(d->n ? d->n : 1, sizeof(*cs->files));
	if (!cs->files)
		return at_error_set(err, AT_ESYS, "out of memory");
	for (i = 0; i < d->n; i++) {
		struct at_change_file *f = &cs->files[i];

		cs->nfiles = i + 1;   /* so that a release frees a half-filled entry */
		if (fill_file(d, &d->ent[i], f, err) < 0)
			return err->code;
		cs->additions += f->additions;
		cs->deletions += f->deletions;
	}
	d->have_files = true;
	return 0;
}

/* Forget the files of a change set, keeping its base and tree. */
static void drop_files(struct at_change_set *cs)
{
	struct at_change_set keep;

	memset(&keep, 0, sizeof(keep));
	keep.base = cs->base;
	keep.tree = cs->tree;
	at_change_set_release(cs);
	*cs = keep;
}

int at_diff_changes(struct at_diff *d, const struct at_change_set **out, struct at_error *err)
{
	if (!d->have_files && fill_files(d, err) < 0) {
		drop_files(&d->cs);
		return err->code;
	}
	*out = &d->cs;
	return 0;
}

/* ---- the patch -------------------------------------------------------- */

struct out {
	at_diff_line_cb cb;
	void *payload;
	struct at_error *err;
};

static int put(struct out *o, char origin, const char *s, size_t len)
{
	if (o->cb(origin, s, len, o->payload) == 0)
		return 0;
	return at_error_sys(o->err, AT_ESYS, "cannot write the diff");
}

static int putf(struct out *o, char origin, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int putf(struct out *o, char origin, const char *fmt, ...)
{
	char *s = NULL;
	va_list ap;
	int n, rc;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return at_error_set(o->err, AT_ESYS, "out of memory");
	rc = put(o, origin, s, (size_t)n);
	free(s);
	return rc;
}

/* The shortest unique abbreviation of at least d->abbrev digits, like git's. */
static void abbrev_id(struct at_diff *d, const git_oid *id, char buf[AT_OID_HEXSZ + 1])
{
	int len = d->abbrev;
	git_oid found;

	if (!git_oid_is_zero(id))
		while (len < AT_OID_HEXSZ &&
		       git_odb_exists_prefix(&found, d->odb, id, (size_t)len) == GIT_EAMBIGUOUS)
			len++;
	git_error_clear();
	git_oid_tostr(buf, (size_t)len + 1, id);
}

struct side {
	const char *path;
	unsigned int mode;         /* 0: this side does not exist */
	git_oid id;
};

struct file_hdr {
	struct side a, b;
	git_delta_t status;
	int similarity;
	bool binary;
	bool hunks;
};

static void side_of(struct side *s, const git_diff_file *f)
{
	s->path = f->path;
	s->mode = f->mode;
	git_oid_cpy(&s->id, &f->id);
}

/* The mode lines and the rename lines, in git's order. */
static int emit_meta(struct at_diff *d, struct out *o, const struct file_hdr *h)
{
	const char *kind = h->status == GIT_DELTA_COPIED ? "copy" : "rename";
	AT_AUTOFREE char *from = NULL, *to = NULL;
	int rc = 0;

	if (!h->a.mode)
		rc = putf(o, 'F', "new file mode %06o", h->b.mode);
	else if (!h->b.mode)
		rc = putf(o, 'F', "deleted file mode %06o", h->a.mode);
	else if (h->a.mode != h->b.mode && (rc = putf(o, 'F', "old mode %06o", h->a.mode)) == 0)
		rc = putf(o, 'F', "new mode %06o", h->b.mode);
	if (rc < 0 || (h->status != GIT_DELTA_RENAMED && h->status != GIT_DELTA_COPIED))
		return rc;
	from = at_diff_quote("", h->a.path, d->quote_high);
	to = at_diff_quote("", h->b.path, d->quote_high);
	if (!from || !to)
		return at_error_set(o->err, AT_ESYS, "out of memory");
	if ((rc = putf(o, 'F', "similarity index %d%%", h->similarity)) == 0 &&
	    (rc = putf(o, 'F', "%s from %s", kind, from)) == 0)
		rc = putf(o, 'F', "%s to %s", kind, to);
	return rc;
}

static int emit_index(struct at_diff *d, struct out *o, const struct file_hdr *h)
{
	char a[AT_OID_HEXSZ + 1], b[AT_OID_HEXSZ + 1];

	if (git_oid_equal(&h->a.id, &h->b.id))
		return 0;
	abbrev_id(d, &h->a.id, a);
	abbrev_id(d, &h->b.id, b);
	if (h->a.mode == h->b.mode)
		return putf(o, 'F', "index %s..%s %06o", a, b, h->a.mode);
	return putf(o, 'F', "index %s..%s", a, b);
}

/* "--- a/x" / "+++ b/x", or the binary notice; git adds a tab after a name with a space. */
static int emit_labels(struct out *o, const struct file_hdr *h, const char *qa, const char *qb)
{
	const char *la = h->a.mode ? qa : "/dev/null", *lb = h->b.mode ? qb : "/dev/null";
	int rc;

	if (git_oid_equal(&h->a.id, &h->b.id))
		return 0;
	if (h->binary)
		return putf(o, 'B', "Binary files %s and %s differ", la, lb);
	if (!h->hunks)
		return 0;
	rc = putf(o, 'F', "--- %s%s", la, strchr(la, ' ') ? "\t" : "");
	return rc < 0 ? rc : putf(o, 'F', "+++ %s%s", lb, strchr(lb, ' ') ? "\t" : "");
}

static int emit_header(struct at_diff *d, struct out *o, const struct file_hdr *h)
{
	AT_AUTOFREE char *qa = at_diff_quote("a/", h->a.path, d->quote_high);
	AT_AUTOFREE char *qb = at_diff_quote("b/", h->b.path, d->quote_high);
	int rc;

	if (!qa || !qb)
		return at_error_set(o->err, AT_ESYS, "out of memory");
	if ((rc = putf(o, 'F', "diff --git %s %s", qa, qb)) < 0 || (rc = emit_meta(d, o, h)) < 0 ||
	    (rc = emit_index(d, o, h)) < 0)
		return rc;
	return emit_labels(o, h, qa, qb);
}

static size_t chomp(const char *s, size_t len)
{
	return len > 0 && s[len - 1] == '\n' ? len - 1 : len;
}

static int emit_line(struct out *o, const git_diff_line *line)
{
	switch (line->origin) {
	case GIT_DIFF_LINE_CONTEXT_EOFNL:
	case GIT_DIFF_LINE_ADD_EOFNL:
	case GIT_DIFF_LINE_DEL_EOFNL:
		return put(o, line->origin, NO_NEWLINE, strlen(NO_NEWLINE));
	default:
		return put(o, line->origin, line->content, chomp(line->content, line->content_len));
	}
}

static int emit_hunks(struct out *o, git_patch *p)
{
	size_t h, l, nlines, nh = git_patch_num_hunks(p);
	const git_diff_hunk *hunk;
	const git_diff_line *line;
	int rc = 0;

	for (h = 0; rc == 0 && h < nh; h++) {
		if (git_patch_get_hunk(&hunk, &nlines, p, h) < 0)
			return at_git_error(o->err, AT_EGIT, "cannot read a hunk");
		rc = put(o, 'H', hunk->header, chomp(hunk->header, hunk->header_len));
		for (l = 0; rc == 0 && l < nlines; l++) {
			if (git_patch_get_line_in_hunk(&line, p, h, l) < 0)
				return at_git_error(o->err, AT_EGIT, "cannot read a line");
			rc = emit_line(o, line);
		}
	}
	return rc;
}

static int emit_patch(struct at_diff *d, struct out *o, git_patch *p, struct file_hdr *h)
{
	int rc;

	h->binary = (git_patch_get_delta(p)->flags & GIT_DIFF_FLAG_BINARY) != 0;
	h->hunks = git_patch_num_hunks(p) > 0;
	rc = emit_header(d, o, h);
	return rc < 0 ? rc : emit_hunks(o, p);
}

/* One side of a type change as a whole file deleted (old) or added (new). */
static int emit_half(struct at_diff *d, struct out *o, const git_diff_delta *delta, bool old)
{
	const git_diff_file *f = old ? &delta->old_file : &delta->new_file;
	struct file_hdr h = { .status = old ? GIT_DELTA_DELETED : GIT_DELTA_ADDED };
	struct side_text ta, tb;
	git_patch *p = NULL;
	int rc;

	side_of(old ? &h.a : &h.b, f);
	(old ? &h.b : &h.a)->path = f->path;
	if (sides_patch(d, old ? f : NULL, old ? NULL : f, &ta, &tb, &p) < 0)
		rc = at_git_error(o->err, AT_EGIT, "cannot compare '%s'", f->path);
	else
		rc = emit_patch(d, o, p, &h);
	git_patch_free(p);
	side_text_release(&ta);
	side_text_release(&tb);
	return rc;
}

static int emit_entry(struct at_diff *d, struct out *o, const struct at_diff_entry *e)
{
	const git_diff_delta *delta = git_diff_get_delta(d->diff, e->idx);
	const git_diff_file *a = at_diff_entry_old(d->diff, e), *b = at_diff_entry_new(d->diff, e);
	struct file_hdr h = { .status = e->status, .similarity = e->similarity };
	struct side_text ta = { 0 }, tb = { 0 };
	git_patch *p = NULL;
	int rc;

	/* git shows a file <-> symlink change as a deletion, then an addition. */
	if (e->status == GIT_DELTA_TYPECHANGE) {
		rc = emit_half(d, o, delta, true);
		return rc < 0 ? rc : emit_half(d, o, delta, false);
	}
	side_of(&h.a, a);
	side_of(&h.b, b);
	if (own_patch(e) ? sides_patch(d, a, b, &ta, &tb, &p) < 0
			 : git_patch_from_diff(&p, d->diff, e->idx) < 0)
		rc = at_git_error(o->err, AT_EGIT, "cannot compare '%s'", delta_path(delta));
	else
		rc = emit_patch(d, o, p, &h);
	git_patch_free(p);
	side_text_release(&ta);
	side_text_release(&tb);
	return rc;
}

int at_diff_patch(struct at_diff *d, at_diff_line_cb cb, void *payload, struct at_error *err)
{
	struct out o = { cb, payload, err };
	size_t i;
	int rc = 0;

	for (i = 0; rc == 0 && i < d->n; i++)
		rc = emit_entry(d, &o, &d->ent[i]);
	return rc;
}

/* ---- --stat and --name-only ------------------------------------------- */

static uint64_t blob_size(struct at_diff *d, const git_oid *id)
{
	git_object_t type;
	size_t len = 0;

	if (git_oid_is_zero(id) || git_odb_read_header(&len, &type, d->odb, id) < 0)
		len = 0;
	git_error_clear();
	return len;
}

static int stat_item(struct at_diff *d, size_t i, struct at_diff_stat_item *it)
{
	const struct at_change_file *f = &d->cs.files[i];
	const git_diff_file *a = at_diff_entry_old(d->diff, &d->ent[i]);
	const git_diff_file *b = at_diff_entry_new(d->diff, &d->ent[i]);
	char *name;

	if (f->status == AT_CHANGE_RENAMED || f->status == AT_CHANGE_COPIED)
		name = at_diff_rename_name(f->old_path, f->path, d->quote_high);
	else
		name = at_diff_quote("", f->path, d->quote_high);
	it->name = name;
	it->additions = f->additions;
	it->deletions = f->deletions;
	it->binary = f->binary;
	/* Binary with the same content on both sides (a pure rename): just "Bin". */
	if (f->binary && !git_oid_equal(&a->id, &b->id)) {
		it->old_size = blob_size(d, &a->id);
		it->new_size = blob_size(d, &b->id);
	}
	return name ? 0 : -1;
}

static void stat_items_free(struct at_diff_stat_item *items, size_t n)
{
	size_t i;

	for (i = 0; items && i < n; i++)
		free((char *)items[i].name);
	free(items);
}

static int write_stat(struct at_diff *d, const struct at_diff_stat_style *style, FILE *f)
{
	struct at_diff_stat_item *items = calloc(d->n ? d->n : 1, sizeof(*items));
	size_t i;
	int rc = items ? 0 : -1;

	for (i = 0; rc == 0 && i < d->n; i++)
		rc = stat_item(d, i, &items[i]);
	if (rc == 0)
		rc = at_diff_stat_write(f, items, d->n, style);
	stat_items_free(items, d->n);
	return rc;
}

/* Run a writer on a memory stream; the text to *out. */
static int to_text(struct at_diff *d, const struct at_diff_stat_opts *opts, char **out,
		   struct at_error *err, bool stat)
{
	struct at_diff_stat_style style = { 0, "", "", "" };
	const struct at_change_set *cs;
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f;
	int rc;

	if ((rc = at_diff_changes(d, &cs, err)) < 0)
		return rc;
	if (opts) {
		style.width = opts->width;
		style.add = opts->add_color ? opts->add_color : "";
		style.del = opts->del_color ? opts->del_color : "";
		if (opts->reset && (opts->add_color || opts->del_color))
			style.reset = opts->reset;
	}
	if (!(f = open_memstream(&buf, &len)))
		return at_error_sys(err, AT_ESYS, "cannot make the diff text");
	if (stat) {
		rc = write_stat(d, &style, f);
	} else {
		for (i = 0; i < cs->nfiles; i++) {
			AT_AUTOFREE char *q = at_diff_quote("", cs->files[i].path, d->quote_high);
			if (!q || fprintf(f, "%s\n", q) < 0)
				rc = -1;
		}
	}
	if (fclose(f) != 0 || rc < 0) {
		free(buf);
		return at_error_set(err, AT_ESYS, "out of memory making the diff text");
	}
	*out = buf;
	return 0;
}

int at_diff_stat(struct at_diff *d, const struct at_diff_stat_opts *opts, char **out,
		 struct at_error *err)
{
	return to_text(d, opts, out, err, true);
}

int at_diff_names(struct at_diff *d, char **out, struct at_error *err)
{
	return to_text(d, NULL, out, err, false);
}

/* ---- limiting ---------------------------------------------------------- */

static bool entry_matches(struct at_diff *d, const struct at_diff_entry *e, git_pathspec *ps)
{
	const git_diff_file *a = at_diff_entry_old(d->diff, e), *b = at_diff_entry_new(d->diff, e);

	return (a && a->path && git_pathspec_matches_path(ps, 0, a->path) == 1) ||
	       (b && b->path && git_pathspec_matches_path(ps, 0, b->path) == 1);
}

int at_diff_limit(struct at_diff *d, char *const *paths, size_t n, struct at_error *err)
{
	git_strarray spec = { (char **)paths, n };
	git_pathspec *ps = NULL;
	size_t i, kept = 0;

	if (n == 0)
		return 0;
	if (d->have_files)
		return at_error_set(err, AT_ESYS, "the diff is limited before it is read");
	if (git_pathspec_new(&ps, &spec) < 0)
		return at_git_error(err, AT_EUSAGE, "invalid pathspec");
	for (i = 0; i < d->n; i++)
		if (entry_matches(d, &d->ent[i], ps))
			d->ent[kept++] = d->ent[i];
	d->n = kept;
	git_pathspec_free(ps);
	return 0;
}
