/*
 * hasher.c - the hasher (git/wtread.h) a snapshot hashes a scan's files
 * with, for the fast path (git/snapshot_fast.c) and the general one
 * (git/snapshot.c) alike: one file for both, so that neither calls the
 * other back.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"
#include "git/internal.h"
#include "git/scan.h"
#include "git/wtread.h"

int at_git_hasher_init(struct at_wt_hasher *h, const struct at_snap *s, const struct at_scan *scan,
		       struct at_error *err)
{
	AT_AUTOFREE const char **paths = calloc(scan->n ? scan->n : 1, sizeof(*paths));
	git_oid base, *basep = NULL;
	size_t i, n = 0;
	bool any = false;
	int rc;

	memset(h, 0, sizeof(*h));
	h->root = -1;
	if (!paths)
		return at_error_set(err, AT_ESYS, "out of memory");
	for (i = 0; i < scan->n; i++)
		if (scan->v[i].kind != AT_SCAN_DELETED)
			paths[n++] = scan->v[i].path;
	if (n == 0)
		return 0;   /* nothing to hash: at_wt_hash is not called */
	if (git_oid_fromstr(&base, s->t->base_commit) == 0)
		basep = &base;
	h->repo = s->wt;
	h->max_size = s->max_file_size;
	if ((rc = at_git_attrs_from_base(s->wt, basep, paths, n, &any, err)) < 0)
		return rc;
	h->filters = any || at_git_filters_configured(s->wt);
	if (git_repository_odb(&h->odb, s->wt) < 0)
		return at_git_error(err, AT_EGIT, "cannot open the object database");
	if ((h->root = at_wt_open_root(s->t->path, err)) < 0) {
		at_git_hasher_release(h);
		return err->code;
	}
	return 0;
}

void at_git_hasher_release(struct at_wt_hasher *h)
{
	git_odb_free(h->odb);
	h->odb = NULL;
	if (h->root >= 0)
		close(h->root);
	h->root = -1;
}
