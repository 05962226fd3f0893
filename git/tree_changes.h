/*
 * tree_changes.h - which paths differ between two trees, cheaply.
 *
 * libgit2's tree-to-tree diff reads every subtree of both trees, even where
 * the two hold the same subtree id: on 20,000 files in 200 directories that
 * is 400 tree reads for a change of five files. at_tree_changed_paths()
 * descends only where the ids differ, and lists every file path whose
 * entry is not the same in both (added, deleted, modified, mode or type
 * changed: all files under a directory that appears, disappears or turns
 * into a file). Given to the diff as its exact pathspec, they restrict it
 * to what changed, with the same result.
 */
#ifndef AT_GIT_TREE_CHANGES_H
#define AT_GIT_TREE_CHANGES_H

#include <stddef.h>

#include <git2.h>

/*
 * The differing paths into *out (release with at_tree_paths_free). 0, 1
 * when there are more than max (out empty: not worth a pathspec), -1 on a
 * libgit2 error.
 */
int at_tree_changed_paths(git_repository *repo, const git_tree *a, const git_tree *b, size_t max,
			  git_strarray *out);

void at_tree_paths_free(git_strarray *paths);

#endif
