/*
 * ignore.h - git's ignore rules (gitignore(5)), matched in memory.
 *
 * The host never lets libgit2 read a task's .gitignore files: libgit2 opens
 * them by path, following links, blocking on a fifo, and reading as much as
 * the file claims to hold. The scan (git/scan.c) reads each one itself, with
 * a bound and without following anything, and hands the bytes here.
 *
 * The rules are git's (dir.c), not libgit2's (which drops a negation its own
 * file does not need and ignores the parent-directory rule in places):
 *
 *   - a line is a pattern; blank lines and lines starting with '#' are
 *     skipped, unescaped trailing spaces dropped, a UTF-8 BOM skipped;
 *   - '!' negates; a trailing '/' matches directories only;
 *   - a pattern with no '/' but a trailing one matches the base name of a
 *     path at any depth below the file's directory; any other is matched
 *     against the path relative to that directory (a leading '/' anchors);
 *   - wildmatch: '*' and '?' never match '/' in a path pattern, '**' between
 *     slashes (or at either end) matches any number of directories, classes
 *     "[a-z]", "[!...]", "[[:alpha:]]", '\' escapes;
 *   - precedence: the deepest .gitignore first, then the global files (the
 *     last added first: info/exclude before core.excludesFile); in one file
 *     the last matching line decides;
 *   - a path below an excluded directory is excluded, whatever a later
 *     negation says.
 *
 * Case is significant (core.ignorecase is refused before this is reached).
 * Nothing here reads a file, allocates per match, or recurses more deeply
 * than a pattern's stars; the lists of the directories above a path are
 * found once per question, in time linear in its length.
 */
#ifndef AT_CORE_IGNORE_H
#define AT_CORE_IGNORE_H

#include <stdbool.h>
#include <stddef.h>

struct at_ignore;

/* An empty rule set; NULL when out of memory. */
struct at_ignore *at_ignore_new(void);
void at_ignore_free(struct at_ignore *ig);

/*
 * The patterns of dir's .gitignore (text of len bytes, not NUL-terminated);
 * dir is "" for the root, else "a/b/" with its slash. A directory whose file
 * is absent is added with len 0, so that at_ignore_has() knows it was looked
 * at. 0, or -1 when out of memory.
 */
int at_ignore_add_dir(struct at_ignore *ig, const char *dir, const char *text, size_t len);

/* Was dir's .gitignore added (present or not)? */
bool at_ignore_has_dir(const struct at_ignore *ig, const char *dir);

/* A global file (core.excludesFile, then info/exclude): weaker than every .gitignore. */
int at_ignore_add_global(struct at_ignore *ig, const char *text, size_t len);

/*
 * Is path (relative to the worktree, no trailing '/') ignored, as a
 * directory or not: does it match, or does a directory above it?
 */
bool at_ignore_excluded(const struct at_ignore *ig, const char *path, bool is_dir);

/* Does path itself match (the directories above it not considered)? */
bool at_ignore_match(const struct at_ignore *ig, const char *path, bool is_dir);

/* git's wildmatch: with pathname, '*', '?' and classes never match '/'. */
bool at_wildmatch(const char *pattern, const char *text, bool pathname);

#endif
