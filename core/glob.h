/*
 * glob.h - the path patterns of a policy's protected_paths.
 *
 * A pattern is matched against a repository-relative path ("src/main.c"),
 * component by component, anchored at the repository root:
 *   *    any run of characters within one component (dot files included)
 *   ?    exactly one character (one UTF-8 sequence) within one component
 *   **   a whole component on its own: zero or more components, so that
 *        "docs" followed by a slash and "**" holds everything below docs
 * Every other character stands for itself. '[', '{', '\' and a leading '!'
 * belong to other glob dialects and are refused, so that a pattern never
 * silently means something else than its author thought.
 *
 * This is not git's wildmatch (core/ignore.h, for .gitignore), on purpose,
 * though a normalized pattern is valid wildmatch and '*' and '**' mean the
 * same in both: here '?' is one character, not one byte ("caf?" holds
 * "caf\xc3\xa9"), and the policy asks two questions wildmatch has no
 * answer for: does the pattern hold a directory above the path (a
 * protected directory), and could it hold a path below it (a symlink or a
 * submodule put where a protected path would appear). One engine serving
 * both would put a UTF-8 mode and two prefix modes into the matcher that
 * must stay git's byte for byte; each has its fuzz harness instead
 * (fuzz_glob against a reference by dynamic programming, fuzz_ignore
 * against fnmatch).
 */
#ifndef AT_CORE_GLOB_H
#define AT_CORE_GLOB_H

#include <stdbool.h>
#include <stddef.h>

#define AT_GLOB_MAX 4096

/*
 * Check a pattern's syntax and write its normal form into buf (a leading
 * and a trailing '/' dropped). 0, or -1 with *why set to a static reason.
 */
int at_glob_normalize(const char *pattern, char *buf, size_t size, const char **why);

/* True when the (normalized) pattern matches the whole path. */
bool at_glob_match(const char *pattern, const char *path);

/* True when the pattern matches path or one of its leading directories. */
bool at_glob_match_under(const char *pattern, const char *path);

/*
 * True when the pattern could match a path below path ("path/..."): its
 * leading components match all of path's, and it has more (or a '**').
 */
bool at_glob_match_below(const char *pattern, const char *path);

#endif
