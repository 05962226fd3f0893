/*
 * cache_tree.h - the index's cache-tree extension ("TREE"), both ways.
 *
 * The extension records, for each directory of the index, how many entries
 * lie under it and, while it is valid, the id of the tree they make. git and
 * libgit2 keep it up to date (an update invalidates the directories above
 * the path) and skip whole valid subtrees when they write or compare trees.
 *
 * at_cache_tree_encode() makes it for an index that holds exactly a tree
 * (what `agenttask new` checks out), so that the first snapshot, `git
 * commit` or `git status` in the task can skip every unchanged directory.
 * at_cache_tree_decode() reads it back, for the fast snapshot's comparison
 * of the index with HEAD.
 *
 * Format (git's Documentation/technical/index-format.txt), depth first:
 * the directory's name (relative to its parent, "" for the root) and a NUL,
 * the entry count in ASCII (-1: invalid), a space, the number of
 * subdirectories, a newline, then the 20-byte tree id unless invalid. The
 * subdirectories follow, each the same way, in git's order (shorter names
 * first, then by bytes).
 */
#ifndef AT_GITFMT_CACHE_TREE_H
#define AT_GITFMT_CACHE_TREE_H

#include <stdbool.h>
#include <stddef.h>

#include <git2.h>

/* One entry of the checked-out tree, in the tree walk's (pre-)order. */
struct at_tree_item {
	const char *path;       /* "a/b/c", relative to the root */
	bool dir;
	const git_oid *id;      /* the directory's tree (unused for files) */
};

/* The extension's payload for an index of every item; malloc'd into *out. -1: no memory. */
int at_cache_tree_encode(const git_oid *root, const struct at_tree_item *items, size_t n,
			 unsigned char **out, size_t *len);

struct at_cache_tree {
	char *path;             /* "" for the root, else "a/b" */
	long count;             /* index entries under it; -1: invalid */
	git_oid id;             /* while valid */
};

/*
 * Parse a payload; *out sorted by path. false: malformed (nothing kept),
 * which includes a directory named twice and a name that is empty (but
 * the root's) or holds a '/'.
 */
bool at_cache_tree_decode(const unsigned char *data, size_t len, struct at_cache_tree **out,
			  size_t *n);

/* The valid directory at path[0..len), or NULL. */
const struct at_cache_tree *at_cache_tree_find(const struct at_cache_tree *v, size_t n,
					       const char *path, size_t len);

void at_cache_tree_free(struct at_cache_tree *v, size_t n);

#endif
