#include "git/diff_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "gitfmt/diff_format.h"

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
