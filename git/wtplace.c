/*
 * wtplace.c - where new tasks' worktrees go: <base>/<repo>-<id>, outside
 * the git directory. base is agenttask.worktreeDir from the configuration
 * git reads for the main repository (system, global, the repository's own:
 * never a task's, whose config the sandbox keeps read-only and hides), else
 * ${XDG_DATA_HOME:-~/.local/share}/agenttask/worktrees. <repo> is the
 * repository's directory name (for a person reading the path), <id> a hash
 * of its git common dir, so two clones named alike never share a directory.
 */
#include "git/internal.h"

#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"


static const char *home_dir(void)
{
	const char *home = getenv("HOME");
	struct passwd *pw;

	if (home && home[0] == '/')
		return home;
	pw = getpwuid(getuid());
	return pw && pw->pw_dir && pw->pw_dir[0] == '/' ? pw->pw_dir : NULL;
}

static int default_base(char *buf, size_t size, struct at_error *err)
{
	const char *xdg = getenv("XDG_DATA_HOME"), *home;

	/* The XDG rule: a relative XDG_DATA_HOME is invalid and ignored. */
	if (xdg && xdg[0] == '/')
		return at_fmt(buf, size, "%s/agenttask/worktrees", xdg) < 0
			       ? at_error_set(err, AT_EUSAGE, "XDG_DATA_HOME too long") : 0;
	if (!(home = home_dir()))
		return at_error_set(err, AT_EUSAGE,
				    "no home directory: set HOME, or agenttask.worktreeDir");
	if (at_fmt(buf, size, "%s/.local/share/agenttask/worktrees", home) < 0)
		return at_error_set(err, AT_EUSAGE, "HOME too long");
	return 0;
}

static int configured_base(git_repository *repo, char *buf, size_t size, bool *found,
			   struct at_error *err)
{
	git_buf b = GIT_BUF_INIT;
	git_config *cfg = NULL;
	int rc = 0, grc;

	*found = false;
	if (git_repository_config_snapshot(&cfg, repo) < 0)
		return at_git_error(err, AT_EGIT, "cannot read the repository's configuration");
	grc = git_config_get_path(&b, cfg, "agenttask.worktreeDir");
	if (grc == 0 && b.ptr && b.ptr[0]) {
		*found = true;
		if (b.ptr[0] != '/')
			rc = at_error_set(err, AT_EUSAGE,
					  "agenttask.worktreeDir '%s' is not an absolute path", b.ptr);
		else if (at_fmt(buf, size, "%s", b.ptr) < 0)
			rc = at_error_set(err, AT_EUSAGE, "agenttask.worktreeDir too long");
	} else if (grc < 0 && grc != GIT_ENOTFOUND) {
		rc = at_git_error(err, AT_EUSAGE, "cannot read agenttask.worktreeDir");
	}
	git_buf_dispose(&b);
	git_config_free(cfg);
	git_error_clear();
	return rc;
}

int at_repo_worktree_home(struct at_repo *r, struct at_error *err)
{
	char base[PATH_MAX], home[PATH_MAX];
	bool found;
	int rc;

	if (r->paths.worktree_home[0])
		return 0;
	if ((rc = configured_base(r->repo, base, sizeof(base), &found, err)) < 0)
		return rc;
	if (!found && (rc = default_base(base, sizeof(base), err)) < 0)
		return rc;
	if (at_fmt(home, sizeof(home), "%s/%s", base, r->paths.worktree_leaf) < 0)
		return at_error_set(err, AT_EUSAGE, "worktree directory too long '%.80s...'", base);
	return at_paths_set_worktree_home(&r->paths, home, err);
}

bool at_repo_layered_default(struct at_repo *r)
{
	git_config *cfg = NULL;
	int on = 0;

	if (git_repository_config_snapshot(&cfg, r->repo) == 0 &&
	    git_config_get_bool(&on, cfg, "agenttask.layered") < 0)
		on = 0;
	git_config_free(cfg);
	git_error_clear();
	return on != 0;
}
