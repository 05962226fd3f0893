/*
 * hostfiles.h - the files that tools on the host execute or obey, by path.
 *
 * A task's change to one of them is run (or obeyed) by something on the
 * person's machine once it is accepted, without anyone typing a command:
 * an editor's tasks, an agent's settings and MCP servers, direnv, git hooks
 * and attributes, CI. The gate flags such a change with or without a
 * policy (core/policy.h, rule "host_files"), and an agent can never accept
 * one through MCP. Pure: no libgit2, no I/O.
 *
 * Where a name counts (matched ASCII case-insensitively, as a checkout on
 * a case-insensitive file system would read it):
 *
 *   at any depth   .vscode/ .idea/ .claude/ .cursor/ .codex/ .gemini/
 *                  .mcp.json .envrc .husky/ .githooks/ .gitattributes,
 *                  and the "scripts" of any package.json (at_hostfiles_
 *                  scripts_changed): an editor or agent opened on a
 *                  subdirectory of a monorepo reads its own, direnv and
 *                  npm act in any directory, git reads .gitattributes in
 *                  every directory, and husky lives where its package is;
 *   at the root    .github/workflows/ .gitlab-ci.yml .gitmodules
 *                  .worktreeinclude .agenttask/ and the hooks directory
 *                  the person's core.hooksPath names: what GitHub, GitLab,
 *                  git and agenttask only read there.
 *
 * A directory name matches the entry itself (a symlink or submodule named
 * ".vscode") and everything below it. A symlink or submodule that is an
 * ancestor of a root-only directory (".github" for ".github/workflows")
 * counts too, since it brings that directory into the checkout.
 */
#ifndef AT_CORE_HOSTFILES_H
#define AT_CORE_HOSTFILES_H

#include <stdbool.h>
#include <stddef.h>

#include "core/change.h"
#include "core/error.h"
#include "core/strlist.h"

#define AT_HOSTFILES_PACKAGE_MAX ((size_t)8 * 1024 * 1024)   /* a package.json read whole */

/*
 * The hooks directory core.hooksPath names, as a repository-relative path
 * into out: raw is the config value, relative to the worktree's root, or
 * absolute (workdir, the main worktree, is then stripped; NULL: none).
 * "." and empty components dropped, ".." resolved. False when it lies
 * outside the repository (nothing a task changes is there), or when it
 * does not fit. The root itself gives "".
 */
bool at_hostfiles_hooks_dir(const char *raw, const char *workdir, char *out, size_t size);

/*
 * True when path is a host file by its name alone. hooks_dir is what
 * at_hostfiles_hooks_dir gave (NULL: none). redirect: the entry is a
 * symlink or a submodule in the new tree (see above).
 */
bool at_hostfiles_path(const char *path, const char *hooks_dir, bool redirect);

/* True when path's last component is package.json (any depth, any case). */
bool at_hostfiles_is_package_json(const char *path);

/*
 * Whether a package.json's "scripts" differ between the old and the new
 * content (NULL: absent on that side), compared as parsed JSON. Conservative
 * where a reader may differ from npm: a new side that does not parse (a NUL,
 * duplicate keys, bad JSON) counts as changed, a BOM is skipped as npm
 * skips it. An old side that does not parse has no scripts (npm ran none).
 */
bool at_hostfiles_scripts_changed(const char *old, size_t old_len, const char *new_,
				  size_t new_len);

/*
 * Read a package.json of the change on one side (old: the merge base; new:
 * the tree judged) into *text and *len (malloc'd, NUL-terminated). 0, or
 * AT_ENOTFOUND when absent there, AT_EUSAGE when it is there but is not a
 * regular file or is too large (it counts as changed), AT_ESYS when out of
 * memory; any other error is returned as it is.
 */
typedef int (*at_hostfiles_read_fn)(void *payload, bool new_side, const char *path, char **text,
				    size_t *len, struct at_error *err);

/*
 * The host files cs changes, appended to out (new path, or the old path of
 * a rename out of one), sorted and unique. A package.json is read on both
 * sides with read and counts when its scripts changed (or cannot be
 * compared: read gave AT_EUSAGE). An error of read other than those is
 * returned.
 */
int at_hostfiles_changed(const struct at_change_set *cs, const char *hooks_dir,
			 at_hostfiles_read_fn read, void *payload, struct at_strlist *out,
			 struct at_error *err);

#endif
