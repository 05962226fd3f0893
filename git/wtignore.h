/*
 * wtignore.h - a worktree's ignore rules, read by the host without trusting
 * the worktree.
 *
 * The .gitignore files of the worktree are read by at_wt_read_small() (no
 * link followed, no fifo opened, none over AT_SPECIAL_FILE_MAX), each the
 * first time a path below its directory is asked about, and matched by
 * core/ignore.c. The user's own files, core.excludesFile (by default
 * $XDG_CONFIG_HOME/git/ignore or ~/.config/git/ignore) and the repository's
 * info/exclude, are read with the same bound; links are followed there
 * (they are the user's), fifos still are not opened.
 */
#ifndef AT_GIT_WTIGNORE_H
#define AT_GIT_WTIGNORE_H

#include <stdbool.h>

#include <git2.h>

#include "core/error.h"

struct at_wt_ignore;

/* The rules of repo (its config, its common directory) for the worktree at root. */
int at_wt_ignore_open(struct at_wt_ignore **out, git_repository *repo, int root,
		      struct at_error *err);
void at_wt_ignore_free(struct at_wt_ignore *wi);

/*
 * Reads the .gitignore at path (relative) as at_wt_read_small() does: *buf
 * NULL when there is none, AT_EUNSAFE beyond AT_SPECIAL_FILE_MAX.
 */
typedef int (*at_wt_ignore_read_fn)(void *payload, const char *path, char **buf, size_t *len,
				    struct at_error *err);

/*
 * The same rules, with the .gitignore files read by read (a worktree that is
 * not one directory: a layered task's merged view, git/layerstate.c).
 */
int at_wt_ignore_open_reader(struct at_wt_ignore **out, git_repository *repo,
			     at_wt_ignore_read_fn read, void *payload, struct at_error *err);

/*
 * Is path (relative, no trailing '/') ignored? parent_ok: its directory is
 * known not to be ignored (a walk that descends only into such directories
 * sets it), so only path itself is matched. 0 with *ignored set, or
 * AT_EUNSAFE for an ignore file over the bound.
 */
int at_wt_ignored(struct at_wt_ignore *wi, const char *path, bool is_dir, bool parent_ok,
		  bool *ignored, struct at_error *err);

#endif
