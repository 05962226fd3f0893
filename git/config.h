/*
 * config.h - the repository configuration a sandboxed command may see.
 *
 * Inside the sandbox the repository's real config is replaced: it can hold
 * credentials (remote URLs with tokens, http.extraHeader) and settings that
 * make git run programs (core.fsmonitor, core.hooksPath, filter drivers,
 * aliases). What remains is what git needs to read the repository at all.
 */
#ifndef AT_GIT_CONFIG_H
#define AT_GIT_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "core/strlist.h"
#include "git/repo.h"

/*
 * The text of a config file holding only the repository-format settings of
 * r's own config (core.repositoryformatversion, core.filemode, core.symlinks,
 * core.ignorecase, core.precomposeunicode, and every extensions.* entry) plus
 * core.bare = false, and the user's identity (user.name, user.email, from
 * any level) so that commits made inside are theirs. *out_text is the caller's to free().
 */
int at_git_sanitized_config(struct at_repo *r, char **out_text, struct at_error *err);

/*
 * The user's value of key (core.pager, say) as git reads it for r's main
 * repository: system, global and the repository's own config, never a
 * task's worktree. Into buf; false when unset (or too long for buf).
 */
bool at_git_user_config(struct at_repo *r, const char *key, char *buf, size_t size);

/* The same for a path setting (core.hooksPath): "~/" expanded as git does. */
bool at_git_user_config_path(struct at_repo *r, const char *key, char *buf, size_t size);

/*
 * The files the config file dir/name includes (include.path and
 * includeIf.*.path, as written: absolute, or relative to the directory of
 * the file naming it), and the files those include in turn (to git's depth,
 * 10), appended to out; "~/" ones are left out (the user's home, not the
 * repository's). Conditions are not evaluated: every file it may include
 * is named. 0
 * also when the file is absent or unreadable as config.
 */
int at_git_config_includes(const char *dir, const char *name, struct at_strlist *out,
			   struct at_error *err);

#endif
