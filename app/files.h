/*
 * files.h - an agent's file operations in its task's worktree, for a front
 * end that offers them as tools (the MCP server).
 *
 * The worktree is the agent's, but the host does the work, so every path
 * is checked twice: lexically (at_app_file_path: relative to the worktree,
 * or absolute inside it; no "..", no ".git" component in any letter case,
 * nothing longer than PATH_MAX) and then by the kernel: every open and
 * every parent directory goes through openat2(RESOLVE_BENEATH |
 * RESOLVE_NO_SYMLINKS) from the worktree's descriptor (core/fs.h), so a
 * symbolic link planted anywhere on the way is refused, never followed. A
 * fifo or device is never opened (O_NONBLOCK, then fstat: regular files
 * only). Sizes are bounded: no file larger than AT_APP_FILE_MAX is read or
 * written.
 *
 * A write is all or nothing: the bytes go to a new file beside the target,
 * which is renamed over it (a kill midway leaves at most a file named
 * .agenttask-write-* in that directory, never a half-written target). The
 * target's permission bits are kept (setuid and setgid dropped); a new
 * file is 0644, and missing parent directories are made 0755.
 *
 * None of these take the repository lock: they change the worktree, as a
 * command in the sandbox does, never agenttask's state. Each change (write,
 * edit, delete) is an entry "file" in the task's log (core/audit.h), as a
 * run is: what an agent did through these tools shows in `agenttask log`.
 */
#ifndef AT_APP_FILES_H
#define AT_APP_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "app/app.h"
#include "core/strlist.h"

#define AT_APP_FILE_MAX ((size_t)8 << 20)     /* bytes read or written at most */
#define AT_APP_READ_LINES 2000                /* lines read_file gives by default */
#define AT_APP_READ_MAX ((size_t)256 << 10)   /* bytes read_file gives at most */
#define AT_APP_LIST_MAX 10000                 /* paths list_files gives at most */

/*
 * path as a path relative to worktree into out (of size): "" for the
 * worktree itself. AT_EUSAGE naming the path when it leaves the worktree
 * or enters .git.
 */
int at_app_file_path(const char *worktree, const char *path, char *out, size_t size,
		     struct at_error *err);

struct at_app_file_read_opts {
	const char *name;         /* the task; NULL: the one holding app->dir */
	const char *path;
	uint64_t offset;          /* the first line given, from 1; 0: 1 */
	uint64_t limit;           /* lines given at most; 0: AT_APP_READ_LINES */
};

struct at_app_file_text {
	char task[AT_NAME_MAX + 1];
	char *data;               /* the lines asked for (NUL-terminated; may hold NULs) */
	size_t len;
	uint64_t size;            /* the whole file's bytes */
	uint64_t first_line, lines, total_lines;
	bool truncated;           /* lines were left out after those given (limit or bytes) */
};

int at_app_file_read(const struct at_app *app, const struct at_app_file_read_opts *o,
		     struct at_app_file_text *out, struct at_error *err);
void at_app_file_text_release(struct at_app_file_text *t);

struct at_app_file_change {
	char task[AT_NAME_MAX + 1];
	uint64_t bytes;           /* the file's size now (0 when deleted) */
	bool created;             /* it did not exist before */
	char warning[AT_ERROR_MSG_MAX + 32];  /* "" or why the change is not in the task's log */
};

/* Write data[0..len) as the whole file, made if missing. */
int at_app_file_write(const struct at_app *app, const char *name, const char *path,
		      const char *data, size_t len, struct at_app_file_change *out,
		      struct at_error *err);

/*
 * Replace the one occurrence of old (non-empty) with new. AT_ENOTFOUND when
 * there is none, AT_EUSAGE saying how many when there is more than one;
 * the file is unchanged then.
 */
int at_app_file_edit(const struct at_app *app, const char *name, const char *path,
		     const char *old, size_t old_len, const char *new, size_t new_len,
		     struct at_app_file_change *out, struct at_error *err);

/* Remove a file or symbolic link (never a directory). */
int at_app_file_delete(const struct at_app *app, const char *name, const char *path,
		       struct at_app_file_change *out, struct at_error *err);

struct at_app_file_list {
	char task[AT_NAME_MAX + 1];
	struct at_strlist paths;  /* relative to the worktree, in git's order */
	bool truncated;           /* more than AT_APP_LIST_MAX */
};

/*
 * The files of the task's full state below dir (NULL or "": all): what git
 * would record, so tracked files and untracked ones not ignored by
 * .gitignore. One scan of the worktree, as diff makes.
 */
int at_app_file_list(const struct at_app *app, const char *name, const char *dir,
		     struct at_app_file_list *out, struct at_error *err);
void at_app_file_list_release(struct at_app_file_list *l);

#endif
