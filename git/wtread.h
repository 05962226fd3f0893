/*
 * wtread.h - what the host reads of a task's worktree, and what it records.
 *
 * Everything in a worktree is the agent's: a name may be a link to anything
 * on the host, a fifo that blocks whoever opens it, a device, a sparse file
 * of terabytes. The rules, for every host command that reads a worktree:
 *
 *   - libgit2 never reads the worktree: the task's repository is opened
 *     without one (at_git_open_task_repo), so its attribute, ignore and
 *     submodule lookups cannot reach a worktree file;
 *   - a worktree file is opened here only, below the worktree's descriptor
 *     with openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS), O_NOFOLLOW and
 *     O_NONBLOCK (a fifo swapped in cannot block the open), and its type and
 *     size are checked with fstat() on that descriptor before a byte is read;
 *   - no file larger than the limit is read (AT_MAX_FILE_SIZE_DEFAULT, the
 *     agenttask.maxFileSize setting, or --max-file-size); a .gitignore,
 *     .gitattributes or .gitmodules never beyond AT_SPECIAL_FILE_MAX, and
 *     one that is a symbolic link is never followed and never recorded (git
 *     refuses to follow one; a recorded one would be followed by libgit2 and
 *     older git in every later checkout);
 *   - blobs are the file's bytes through the filters the base commit's
 *     attributes ask for (git/attrs.h), never the worktree's attributes; no
 *     filter driver ever runs (libgit2 has only its built-in ones).
 *
 * Refusals are AT_EUNSAFE with one line naming the path, escaped.
 */
#ifndef AT_GIT_WTREAD_H
#define AT_GIT_WTREAD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include <git2.h>

#include "core/error.h"

#define AT_MAX_FILE_SIZE_DEFAULT ((uint64_t)100 << 20)   /* 100 MiB, GitHub's limit for a file */
#define AT_SPECIAL_FILE_MAX ((uint64_t)1 << 20)          /* .gitignore, .gitattributes, .gitmodules */

/* How one command hashes worktree files. */
struct at_wt_hasher {
	git_repository *repo;   /* opened without a worktree; its index: the base's attributes */
	git_odb *odb;
	int root;               /* the worktree's directory */
	uint64_t max_size;      /* larger files are refused unread */
	bool filters;           /* a filter could apply to some file (else: bytes as they are) */
};

/* The worktree's directory, never through a link: a descriptor, or -1 with err set. */
int at_wt_open_root(const char *path, struct at_error *err);

/*
 * Write the blob of the file or link at path (relative) into the object
 * database, as git add would record it, with its mode and its stat data.
 * 0; 1 when the path is no longer a file or link (gone, or a directory:
 * the caller takes it as deleted); AT_EUNSAFE for a special file, a file
 * over the limit, a bad .gitignore, .gitattributes or .gitmodules.
 */
int at_wt_hash(struct at_wt_hasher *h, const char *path, git_oid *id, git_filemode_t *mode,
	       struct stat *st, struct at_error *err);

/*
 * The bytes of the regular file at path below root, for the ignore rules:
 * *buf NULL when there is none (absent, a link, a fifo, a directory: git
 * does not follow an in-tree link either); AT_EUNSAFE beyond max.
 */
int at_wt_read_small(int root, const char *path, uint64_t max, char **buf, size_t *len,
		     struct at_error *err);

/*
 * May git record this entry: path's components, and for a .gitattributes,
 * .gitignore or .gitmodules its mode and size; a blob no larger than max.
 * AT_EUNSAFE, with the reason, when not.
 */
int at_git_check_entry(const char *path, unsigned int mode, uint64_t size, uint64_t max,
		       struct at_error *err);

/*
 * The ".git" in a submodule's directory (sub, a descriptor of it, at path
 * below the worktree workdir, which ends in '/') is git's own: none at all,
 * or a small file "gitdir: TARGET" (what `git submodule update` writes)
 * whose TARGET, taken lexically from workdir + path (only leading ".."
 * components), is inside one of modules ("<git dir>/modules/" each, ""
 * for none): the repository's own, which the sandbox cannot write.
 * Anything else is a repository the agent made there: false.
 */
bool at_wt_submodule_git_ok(int sub, const char *workdir, const char *path,
			    const char *const modules[2]);

/*
 * "'a', 'b', 'c' and N more": a list of n paths for a message, escaped, the
 * first three named (paths holds at least those), into buf.
 */
void at_wt_path_list(char *buf, size_t size, const char *const *paths, size_t n);

/* AT_EUNSAFE for the embedded repositories list names (at_wt_path_list's). */
int at_wt_embedded_error(const char *list, struct at_error *err);

/* "a fifo", "a socket", "a device", ... for a message. */
const char *at_wt_kind(mode_t mode);

#endif
