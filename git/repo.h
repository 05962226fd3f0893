/*
 * repo.h - opening the repository agenttask works on.
 *
 * struct at_repo is opaque outside git/: it holds the libgit2 repository of
 * the main worktree (even when opened from inside a task's worktree) and the
 * paths of agenttask's state (core/paths.h).
 */
#ifndef AT_GIT_REPO_H
#define AT_GIT_REPO_H

#include <stddef.h>
#include <stdint.h>

#include "core/task.h"

struct at_repo;

/*
 * Discover the repository containing dir (like git -C dir). Refuses with
 * AT_ENOREPO: no repository, a bare repository ("needs a working tree"),
 * and a repository with no commit yet.
 */
int at_repo_open(struct at_repo **out, const char *dir, struct at_error *err);
void at_repo_free(struct at_repo *r);

const struct at_paths *at_repo_paths(const struct at_repo *r);

/*
 * Fill the paths' worktree_home (git/wtplace.c) when it is not yet: read when
 * a command makes or removes tasks, not at every open.
 */
int at_repo_worktree_home(struct at_repo *r, struct at_error *err);

/* Whether new tasks are layered (core/task.h): the person's agenttask.layered (git/wtplace.c). */
bool at_repo_layered_default(struct at_repo *r);

/*
 * No file larger than bytes is hashed from a worktree or diffed: such a
 * file is refused, unread, naming it (git/wtread.h). The default is the
 * repository's agenttask.maxFileSize, else 100 MiB; --max-file-size sets it.
 */
void at_repo_set_max_file_size(struct at_repo *r, uint64_t bytes);

/* The main worktree's directory, with a trailing '/'. */
const char *at_repo_workdir(const struct at_repo *r);

/* The version of the libgit2 linked in, "MAJOR.MINOR.PATCH", into buf. */
void at_git_version(char *buf, size_t size);

#endif
