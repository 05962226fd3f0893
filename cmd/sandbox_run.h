/*
 * sandbox_run.h - what the sandbox needs to know about a worktree, gathered
 * from the repository once: real paths (the sandbox refuses symlinks on the
 * way) and the sanitized config. The same setup `agenttask run` makes, in a
 * form other commands can reuse (the review gate runs its checks this way).
 */
#ifndef AT_CMD_SANDBOX_RUN_H
#define AT_CMD_SANDBOX_RUN_H

#include <limits.h>

#include "core/task.h"
#include "git/repo.h"
#include "sandbox/sandbox.h"

struct at_sandbox_target {
	char worktree[PATH_MAX];
	char common[PATH_MAX];
	char state[PATH_MAX];
	char admin[PATH_MAX];
	char pointer[PATH_MAX + 8];
	char *config;              /* the sanitized config text (owned) */
};

/* Resolve the paths of t's worktree (a task's, or a scratch worktree's). */
int at_cli_sandbox_target(struct at_repo *r, const struct at_task *t,
			  struct at_sandbox_target *out, struct at_error *err);
void at_cli_sandbox_target_release(struct at_sandbox_target *st);

/* Point opts at the target (worktree, .git pointer, common, state and admin dirs, config). */
void at_cli_sandbox_opts(const struct at_sandbox_target *st, struct at_sandbox_opts *opts);

#endif
