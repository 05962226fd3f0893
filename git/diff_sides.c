#include "git/diff_internal.h"

#include <stdio.h>
#include <string.h>

/* ---- the two sides of a file, as text --------------------------------- */

static int side_text(struct at_diff *d, const git_diff_file *f, struct at_diff_side_text *t)
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

int at_diff_sides_patch(struct at_diff *d, const git_diff_file *a, const git_diff_file *b,
			struct at_diff_side_text *ta, struct at_diff_side_text *tb, git_patch **out)
{
	memset(ta, 0, sizeof(*ta));
	memset(tb, 0, sizeof(*tb));
	if ((a && side_text(d, a, ta) < 0) || (b && side_text(d, b, tb) < 0))
		return -1;
	return git_patch_from_buffers(out, ta->buf, ta->len, a ? a->path : NULL, tb->buf, tb->len,
				      b ? b->path : NULL, &d->opts);
}

void at_diff_side_text_release(struct at_diff_side_text *t)
{
	git_blob_free(t->blob);
	t->blob = NULL;
}

bool at_diff_own_patch(const struct at_diff_entry *e)
{
	return e->status == GIT_DELTA_TYPECHANGE || e->old_idx != AT_DIFF_NO_DELTA;
}
