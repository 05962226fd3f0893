/*
 * internal.h - what the files of git/ share; never included outside git/.
 */
#ifndef AT_GIT_INTERNAL_H
#define AT_GIT_INTERNAL_H

#include <string.h>

#include <git2.h>

#include "core/oid.h"
#include "core/task.h"
#include "git/repo.h"
#include "git/snapshot.h"

struct at_repo {
	git_repository *repo;     /* the main worktree's repository */
	git_repository *here;     /* the user's linked worktree the command runs in, or NULL
				     (main worktree, or a task's): HEAD and the base come from it */
	struct at_paths paths;
};

/* What git/snapshot.h's handle holds. */
struct at_worktree {
	struct at_repo *r;
	git_repository *repo;      /* opened on the worktree: its index, attributes, HEAD */
	struct at_task task;       /* a copy of the task it belongs to */
	bool fast;                 /* the last at_task_state() took the fast path */
	bool index_replaced;       /* a diff set an empty index on repo: never stage it */
	git_index *staged;         /* at_worktree_stage()'s index, kept for the commit */
	git_oid staged_tip;        /* HEAD when it was staged */
	git_oid staged_tree;
};

_Static_assert(sizeof(((git_oid *)0)->id) == AT_OID_RAWSZ, "a git_oid is an at_oid");

/* The id as libgit2 and as the rest of agenttask hold it. */
static inline void at_oid_to_git(git_oid *out, const struct at_oid *id)
{
	memcpy(out->id, id->id, AT_OID_RAWSZ);
}

static inline void at_oid_from_git(struct at_oid *out, const git_oid *id)
{
	memcpy(out->id, id->id, AT_OID_RAWSZ);
}

/*
 * Translate libgit2's last error, once, at the boundary: the message is
 * "<what>: <libgit2 message>". git_error_last() can be NULL on libgit2 1.5.
 */
int at_git_error(struct at_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Open the task's worktree as a repository of its own. */
int at_git_open_worktree(git_repository **out, const struct at_task *t, struct at_error *err);

/*
 * The tree of the task's full state in its worktree repository wt, already open.
 * *fast: the tree came from at_git_snapshot_fast() (so no attributes file
 * exists anywhere), and wt's index was not read.
 */
int at_git_snapshot_tree(git_repository *wt, const struct at_task *t, git_oid *tree, bool *fast,
			 struct at_error *err);

/*
 * Could a filter (CRLF conversion, ident, a filter driver) apply to some
 * file through the configuration (core.autocrlf, core.eol crlf,
 * core.attributesFile) or an attributes file outside the tree (the
 * repository's info/attributes, the user's, the system's)? When not, and no
 * .gitattributes is in the tree, a file's blob is its bytes as they are.
 */
bool at_git_filters_configured(git_repository *repo);

/*
 * The same tree without libgit2's index (git/snapshot_fast.c), where blobs
 * are a file's bytes as they are; AT_SNAPSHOT_DECLINED where it cannot.
 * cache_path: the task's directory cache (git/dircache.h), or NULL.
 */
#define AT_SNAPSHOT_DECLINED 1
int at_git_snapshot_fast(git_repository *wt, const char *cache_path, git_oid *tree,
			 struct at_error *err);

/* A boolean setting of repo's configuration; dflt when unset or not a boolean. */
bool at_git_config_bool(git_repository *repo, const char *key, bool dflt);

/* Commits reachable from tip but not from since (0 when they cannot be walked). */
size_t at_git_count_between(git_repository *repo, const git_oid *tip, const git_oid *since);

/* Commit id -> hex (buf of AT_OID_HEXSZ + 1). */
void at_git_oid_hex(char *buf, const git_oid *id);

/* Author/committer from the repository's configuration, else agenttask <agenttask@localhost>. */
int at_git_signature(git_signature **out, git_repository *repo, struct at_error *err);

#endif
