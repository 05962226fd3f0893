/*
 * ls_tree.h - the paths a tree holds (git ls-tree -r --name-only), for a
 * front end that lists a task's files: the tree of its full state is what
 * git would record, so ignored files are not in it and tracked ones are.
 */
#ifndef AT_GIT_LS_TREE_H
#define AT_GIT_LS_TREE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "core/oid.h"
#include "core/strlist.h"
#include "git/repo.h"

/*
 * Every file and symbolic link (and submodule) of tree below dir ("" for
 * all; no trailing '/'), in git's order, at most max of them (*truncated
 * says whether more were left out). AT_ENOTFOUND when dir is not a
 * directory of the tree.
 */
int at_git_ls_tree(struct at_repo *r, const struct at_oid *tree, const char *dir, size_t max,
		   struct at_strlist *out, bool *truncated, struct at_error *err);

#endif
