#include "git/diff_internal.h"

#include <stdlib.h>

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
