#include "cmd/sandbox_run.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "git/config.h"

int at_cli_sandbox_target(struct at_repo *r, const struct at_task *t,
			  struct at_sandbox_target *out, struct at_error *err)
{
	const struct at_paths *p = at_repo_paths(r);
	struct at_sandbox_target st;
	int rc;

	memset(&st, 0, sizeof(st));
	if (!realpath(t->path, st.worktree)) {
		if (errno == ENOENT)
			return at_task_worktree_gone(t, err);
		return at_error_sys(err, AT_ENOTFOUND, "the worktree of '%s' is missing '%s'",
				    t->name, t->path);
	}
	if (!realpath(p->common_dir, st.common))
		return at_error_sys(err, AT_ESYS, "cannot resolve '%s'", p->common_dir);
	if (at_fmt(st.state, sizeof(st.state), "%s/agenttask", st.common) < 0 ||
	    at_fmt(st.pointer, sizeof(st.pointer), "%s/.git", st.worktree) < 0)
		return at_error_sys(err, AT_ESYS, "path too long '%s'", st.common);
	if (!realpath(t->admin_dir, st.admin))
		return at_error_sys(err, AT_ECORRUPT, "the git admin dir of '%s' is missing '%s'",
				    t->name, t->admin_dir);
	if ((rc = at_git_sanitized_config(r, &st.config, err)) < 0)
		return rc;
	*out = st;
	return 0;
}

void at_cli_sandbox_target_release(struct at_sandbox_target *st)
{
	if (!st)
		return;
	free(st->config);
	st->config = NULL;
}

void at_cli_sandbox_opts(const struct at_sandbox_target *st, struct at_sandbox_opts *o)
{
	o->worktree = st->worktree;
	o->git_pointer_file = st->pointer;
	o->common_dir = st->common;
	o->state_dir = st->state;
	o->admin_dir = st->admin;
	o->sanitized_config = st->config;
}
