#include "git/diff_internal.h"

#include <stdlib.h>
#include <string.h>

/* git reads at most this much of a file to call it binary (a NUL in it). */
#define BINARY_CHECK_BYTES 8000

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

/* Lines added and deleted, and whether git would call the change binary. */
static int line_stats(struct at_diff *d, const struct at_diff_entry *e, struct at_change_file *f,
		      struct at_error *err)
{
	const git_diff_file *a = at_diff_entry_old(d->diff, e), *b = at_diff_entry_new(d->diff, e);
	struct at_diff_side_text ta = { 0 }, tb = { 0 };
	git_patch *p = NULL;
	int rc = 0;

	/* Same content (a pure rename or mode change): nothing to count. */
	if (git_oid_equal(&a->id, &b->id)) {
		f->binary = blob_is_binary(d->repo, &b->id);
		return 0;
	}
	/* libgit2 counts nothing for a type change; git counts old content against new. */
	if (at_diff_own_patch(e) ? at_diff_sides_patch(d, a, b, &ta, &tb, &p) < 0
			 : git_patch_from_diff(&p, d->diff, e->idx) < 0)
		rc = at_git_error(err, AT_EGIT, "cannot compare '%s'", f->path);
	else if (git_patch_line_stats(NULL, &f->additions, &f->deletions, p) < 0)
		rc = at_git_error(err, AT_EGIT, "cannot count the changes of '%s'", f->path);
	else
		f->binary = (git_patch_get_delta(p)->flags & GIT_DIFF_FLAG_BINARY) != 0;
	git_patch_free(p);
	at_diff_side_text_release(&ta);
	at_diff_side_text_release(&tb);
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
