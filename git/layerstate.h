/*
 * layerstate.h - a layered task's full state, read from its overlay's upper
 * directory only, in time that grows with the change, not the repository.
 *
 * A layered worktree (issue 29) is the base commit's tree checked out once,
 * read-only, shared by the tasks of that base (the lower), and each task's
 * own files in an overlayfs upper directory, mounted over the worktree's
 * path inside the sandbox with userxattr and without redirect_dir. What the
 * upper holds is the kernel's record of what the agent changed:
 *
 *   - a file, link or directory: it replaces (a directory: merges with) the
 *     lower's entry of that name;
 *   - a whiteout (a character device 0/0, or a zero-size file carrying the
 *     xattr user.overlay.whiteout): the lower's entry is deleted;
 *   - an opaque directory (xattr user.overlay.opaque or
 *     trusted.overlay.opaque = "y"): the lower's directory of that name is
 *     hidden whole, only the upper's entries under it count;
 *   - a renamed directory is copied up (no redirect_dir), so it is an
 *     ordinary, opaque-less directory with all its files in upper.
 *
 * The upper is the agent's, as a full worktree is (git/wtread.h): it is read
 * one directory descriptor at a time, no link followed (openat2 with
 * RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS, O_NOFOLLOW), no fifo or device
 * opened (a whiteout is recognised by lstat alone), files hashed by
 * at_wt_hash with the base commit's attributes and the size bound, depth and
 * path length bounded as the scan bounds them. The lower is agenttask's own
 * checkout of lower_tree: its files are never hashed (they are lower_tree's
 * blobs), and it is read only for the .gitignore files of the directories
 * the upper names.
 */
#ifndef AT_GIT_LAYERSTATE_H
#define AT_GIT_LAYERSTATE_H

#include "core/change.h"
#include "core/error.h"
#include "core/oid.h"
#include "core/task.h"
#include "git/repo.h"

/*
 * The full state tree of a layered worktree (the same tree at_task_state
 * gives for a full checkout of the same files: tracked files and untracked
 * files that are not ignored, modes, links):
 *
 *   t           the task: its path (the worktree inside the sandbox) and
 *               its git dir say where the ".git" file of a submodule's
 *               directory may point (git/wtread.h's at_wt_submodule_git_ok:
 *               anything else there is an embedded repository); NULL:
 *               nowhere;
 *   lower_tree  the tree the lower holds (the base commit's; its
 *               .gitattributes files are the attributes files are hashed with);
 *   lower_fd    a directory holding exactly lower_tree's checkout (never read
 *               but for the .gitignore files of directories upper names);
 *   upper_fd    the overlay's upper directory;
 *   index_path  the task's index file: what is tracked (a path of lower_tree
 *               the index no longer has is judged by the ignore rules; one the
 *               index has stays even when ignored). NULL: lower_tree's paths.
 *
 * Blobs of changed files are written to r's object database, then the tree.
 * With changes (may be NULL), the paths whose entry differs from
 * lower_tree's are reported there, sorted: path, status (added, modified,
 * deleted, typechange), old_mode and new_mode; changes->tree is *tree; the
 * line counts and changes->base are left zero. Release with
 * at_change_set_release. AT_EUNSAFE (one line naming the path, escaped) for
 * what a full checkout's snapshot refuses: a device or fifo where git would
 * record something, a file over the size limit, a bad .gitignore,
 * .gitattributes or .gitmodules, an embedded repository, a path too long or
 * too deep. Nothing is written to *tree or *changes on failure.
 */
int at_layer_state(struct at_repo *r, const struct at_task *t, const struct at_oid *lower_tree,
		   int lower_fd, int upper_fd, const char *index_path, struct at_oid *tree,
		   struct at_change_set *changes, struct at_error *err);

#endif
