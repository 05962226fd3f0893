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
