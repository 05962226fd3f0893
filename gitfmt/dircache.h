/*
 * dircache.h - what the last scan of a task's worktree found in each
 * directory, so that the next one need not list it again.
 *
 * `git diff` stats every tracked file; `agenttask diff` must also list every
 * directory to find untracked files, and on tmpfs that listing was most of
 * the difference between the two. A directory's entries can change only
 * with its ctime: creating, removing or renaming a name in it sets the
 * directory's mtime and ctime to the current time, and nothing can set a
 * ctime back (utimensat() sets it to now too). So a directory whose inode,
 * device, ctime and mtime are those recorded holds the names it held then:
 * its tracked files (from the index, each still stat'ed) and the untracked
 * names recorded. This is git's untracked cache, with ctime added because
 * the worktree belongs to an agent who can set mtimes.
 *
 * A record is trusted only if its ctime is more than a second older than
 * the start of the scan that wrote it: a change in the same clock tick as
 * that scan's listing could leave the ctime as it was. Only on local file
 * systems whose directories keep these times (ext2/3/4, xfs, btrfs, tmpfs,
 * f2fs): elsewhere the scan lists every directory.
 *
 * The cache lives in agenttask's state directory (<common>/agenttask/
 * cache/NAME.scan), which the sandbox hides: the agent cannot write it. A
 * missing, damaged or foreign file is ignored; it is rewritten atomically
 * after a scan that had to list a directory (git/dircache_store.h). Here,
 * the records and their file format, bytes in and out.
 */
#ifndef AT_GITFMT_DIRCACHE_H
#define AT_GITFMT_DIRCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>

/* One directory as a scan found it. */
struct at_dircache_dir {
	char *prefix;               /* "" for the root, else "a/b/" */
	struct timespec ctime, mtime;
	uint64_t ino, dev;
	char *names;                /* untracked names: each 'f' or 'd', the name, a NUL */
	size_t names_len;
};

struct at_dircache {
	struct timespec scanned;    /* when the scan that wrote it began (CLOCK_REALTIME) */
	struct at_dircache_dir *v;  /* sorted by prefix */
	size_t n;
};

#define AT_DIRCACHE_INIT { { 0, 0 }, NULL, 0 }

/* The record of prefix, if st (the directory now) matches it and it is trusted. */
const struct at_dircache_dir *at_dircache_trusted(const struct at_dircache *c,
						  const char *prefix, const struct stat *st);

/*
 * Parse a cache file's bytes into *out. false: missing parts, damaged or
 * foreign (nothing kept: *out is an empty cache).
 */
bool at_dircache_parse(const char *buf, size_t len, struct at_dircache *out);

/* Write n directories (any order, written sorted) and the scan's start to f: 0, or -1. */
int at_dircache_write(FILE *f, const struct timespec *scanned, const struct at_dircache_dir *v,
		      size_t n);

void at_dircache_dir_free(struct at_dircache_dir *d);
void at_dircache_free(struct at_dircache *c);

#endif
