/*
 * hostfiles.c - the host files a change set changes (core/hostfiles.h),
 * with the person's core.hooksPath and a package.json read on both sides.
 */
#include <limits.h>

#include "app/internal.h"
#include "core/hostfiles.h"
#include "git/blob.h"
#include "git/config.h"

struct sides {
	struct at_repo *r;
	const struct at_change_set *cs;
};

static int read_side(void *payload, bool new_side, const char *path, char **text, size_t *len,
		     struct at_error *err)
{
	struct sides *s = payload;

	if (new_side)
		return at_git_read_file_in_tree(s->r, &s->cs->tree, path, AT_HOSTFILES_PACKAGE_MAX,
						text, len, err);
	return at_git_read_file_at(s->r, &s->cs->base, path, AT_HOSTFILES_PACKAGE_MAX, text, len,
				   err);
}

int at_app_host_files(struct at_repo *r, const struct at_change_set *cs, struct at_strlist *out,
		      struct at_error *err)
{
	char raw[PATH_MAX], hooks[PATH_MAX];
	struct sides s = { r, cs };
	bool has_hooks;

	/* The person's setting (system, global, the repository's), never the task's. */
	has_hooks = at_git_user_config_path(r, "core.hooksPath", raw, sizeof(raw)) &&
		    at_hostfiles_hooks_dir(raw, at_repo_workdir(r), hooks, sizeof(hooks));
	return at_hostfiles_changed(cs, has_hooks ? hooks : NULL, read_side, &s, out, err);
}
