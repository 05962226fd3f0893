/*
 * internal.h - what the files of git/ share; never included outside git/.
 */
#ifndef AT_GIT_INTERNAL_H
#define AT_GIT_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
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
	uint64_t max_file_size;   /* --max-file-size, or 0: see at_repo_max_file_size */
};

/* What git/snapshot.h's handle holds. */
struct at_worktree {
	struct at_repo *r;
	git_repository *repo;      /* the task's repository without its worktree
				      (at_git_open_task_repo): HEAD, config, objects; its
				      index is the base's attributes, never the task's */
	struct at_task task;       /* a copy of the task it belongs to: task.path is the
				      worktree, read by the scan and git/wtread.c only */
	unsigned int diffs;        /* diffs open on repo (git/diff.c): its index holds their
				      attributes, so no state is taken meanwhile */
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
 * The size over which no file is hashed or diffed (git/wtread.h): the
 * command's --max-file-size, else agenttask.maxFileSize, else the default.
 */
int at_repo_max_file_size(const struct at_repo *r, uint64_t *out, struct at_error *err);

/*
 * Translate libgit2's last error, once, at the boundary: the message is
 * "<what>: <libgit2 message>". git_error_last() can be NULL on libgit2 1.5.
 */
int at_git_error(struct at_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Open the task's worktree as a repository of its own, worktree and all:
 * only for writing files into a worktree agenttask just made (restore).
 */
int at_git_open_worktree(git_repository **out, const struct at_task *t, struct at_error *err);

/*
 * The task's repository without its worktree: its admin directory, opened
 * bare (HEAD, index and config are the task's). Every read of the task
 * goes through this, so that libgit2 never opens a worktree file: its
 * attribute and ignore lookups would follow links and block on fifos.
 * Traced as "open" of the worktree (core/trace.h).
 */
int at_git_open_task_repo(git_repository **out, const struct at_task *t, struct at_error *err);

/* The repository at r's common directory, without a worktree (CI mode's diff). */
int at_git_open_bare(git_repository **out, const struct at_repo *r, struct at_error *err);

/*
 * Make repo's index (repo has no worktree) an in-memory one with the
 * .gitattributes files that base's tree holds on the way to each of the
 * paths (base: a commit, or a tree itself; none without base): the only attributes files libgit2 then reads
 * (git/attrs.c). *any: whether there was one. AT_EUNSAFE for one over
 * AT_SPECIAL_FILE_MAX.
 */
int at_git_attrs_from_base(git_repository *repo, const git_oid *base, const char *const *paths,
			   size_t n, bool *any, struct at_error *err);

/* What a snapshot reads, and how (git/snapshot.c, git/snapshot_fast.c). */
struct at_snap {
	git_repository *wt;        /* at_git_open_task_repo() */
	const struct at_task *t;
	const char *cache_path;    /* the scan's directory cache (gitfmt/dircache.h), or NULL */
	uint64_t max_file_size;
};

/*
 * The tree of t's full state (git/snapshot.h), in its repository wt
 * (at_git_open_task_repo), already open. With index, the tree of its index
 * too (struct at_task_state's index; zero when not known).
 */
int at_git_snapshot_tree(const struct at_repo *r, git_repository *wt, const struct at_task *t,
			 git_oid *tree, git_oid *index, struct at_error *err);

/*
 * Could a filter (CRLF conversion, ident, a filter driver) apply to some
 * file through the configuration (core.autocrlf, core.eol crlf,
 * core.attributesFile) or an attributes file outside the tree (the
 * repository's info/attributes, the user's, the system's)? When not, and no
 * .gitattributes of the base applies, a file's blob is its bytes as they are.
 */
bool at_git_filters_configured(git_repository *repo);

/* Could a checkout filter touch base's files (attributes, core.autocrlf, core.eol)? */
bool at_git_filters_may_apply(git_repository *repo, const git_commit *base);

/*
 * The tree of the snapshot without libgit2's index (git/snapshot_fast.c);
 * AT_SNAPSHOT_DECLINED where it cannot.
 */
#define AT_SNAPSHOT_DECLINED 1
int at_git_snapshot_fast(const struct at_snap *s, git_oid *tree, git_oid *index,
			 struct at_error *err);

struct at_scan;
struct at_wt_hasher;

/*
 * A hasher (git/wtread.h; made in git/hasher.c) for the files of scan:
 * the worktree opened, the base commit's attributes for those paths in
 * s->wt's index, whether a filter can apply at all. Release with
 * at_git_hasher_release.
 */
int at_git_hasher_init(struct at_wt_hasher *h, const struct at_snap *s, const struct at_scan *scan,
		       struct at_error *err);
void at_git_hasher_release(struct at_wt_hasher *h);

/* A boolean setting of repo's configuration; dflt when unset or not a boolean. */
bool at_git_config_bool(git_repository *repo, const char *key, bool dflt);

/* Commits reachable from tip but not from since (0 when they cannot be walked). */
size_t at_git_count_between(git_repository *repo, const git_oid *tip, const git_oid *since);

/* Commit id -> hex (buf of AT_OID_HEXSZ + 1). */
void at_git_oid_hex(char *buf, const git_oid *id);

/* Author/committer from the repository's configuration, else agenttask <agenttask@localhost>. */
int at_git_signature(git_signature **out, git_repository *repo, struct at_error *err);

/*
 * path in idx as it is in the tree from: its entry taken from there, or
 * removed from idx when from has none (a directory there is not staged).
 */
int at_git_index_take(git_index *idx, git_tree *from, const char *path, struct at_error *err);

#endif
