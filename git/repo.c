#include "git/internal.h"

#include "core/fs.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/trace.h"
#include "git/wtread.h"

int at_git_error(struct at_error *err, int code, const char *fmt, ...)
{
	const git_error *ge = git_error_last();
	char what[192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (ge && ge->message)
		return at_error_set(err, code, "%s: %s", what, ge->message);
	return at_error_set(err, code, "%s", what);
}

void at_git_oid_hex(char *buf, const git_oid *id)
{
	git_oid_tostr(buf, AT_OID_HEXSZ + 1, id);
}

size_t at_git_count_between(git_repository *repo, const git_oid *tip, const git_oid *since)
{
	git_revwalk *walk = NULL;
	git_oid id;
	size_t n = 0;

	if (git_revwalk_new(&walk, repo) == 0 && git_revwalk_push(walk, tip) == 0 &&
	    git_revwalk_hide(walk, since) == 0)
		while (git_revwalk_next(&id, walk) == 0)
			n++;
	git_revwalk_free(walk);
	git_error_clear();
	return n;
}

int at_git_signature(git_signature **out, git_repository *repo, struct at_error *err)
{
	if (git_signature_default(out, repo) == 0)
		return 0;
	if (git_signature_now(out, "agenttask", "agenttask@localhost") == 0)
		return 0;
	return at_git_error(err, AT_EGIT, "cannot make a signature");
}

/*
 * A bare repository is refused only when opened as itself: in one of its
 * linked worktrees there is a HEAD to start from and a checkout to update.
 */
static int repo_check(git_repository *repo, bool via_worktree, const char *dir,
		      struct at_error *err)
{
	int unborn;

	if (git_repository_is_bare(repo) && !via_worktree)
		return at_error_set(err, AT_ENOREPO,
				    "'%s' is a bare repository: run agenttask in one of its "
				    "worktrees ('git worktree add'), or in a clone with a working tree",
				    dir);
	unborn = git_repository_head_unborn(repo);
	if (unborn == 1)
		return at_error_set(err, AT_ENOREPO,
				    "repository '%s' has no commit yet: make a first commit", dir);
	if (unborn < 0)
		return at_git_error(err, AT_ENOREPO, "cannot read HEAD of '%s'", dir);
	return 0;
}

/* A task's worktree has HEAD on agenttask/NAME: tasks are based on the main worktree's HEAD. */
static bool in_task_worktree(git_repository *repo)
{
	git_reference *head = NULL;
	bool task = false;

	if (git_reference_lookup(&head, repo, "HEAD") == 0 &&
	    git_reference_type(head) == GIT_REFERENCE_SYMBOLIC)
		task = strncmp(git_reference_symbolic_target(head), AT_REFS_HEADS AT_BRANCH_PREFIX,
			       strlen(AT_REFS_HEADS AT_BRANCH_PREFIX)) == 0;
	git_reference_free(head);
	git_error_clear();
	return task;
}

/*
 * libgit2 refuses, as git does, a repository owned by another user (its
 * config could run their code), with GIT_EOWNER, or (1.5, without a global
 * config) a "safe.directory not found". Either way, when the repository
 * that discovery finds belongs to someone else, say so with git's fix
 * rather than "not a git repository"; the directory to trust is the one git
 * names, the top of the working tree. 0 when that is not what happened.
 */
static int dubious_ownership(const char *dir, struct at_error *err)
{
	git_buf found = GIT_BUF_INIT;
	char top[PATH_MAX];
	struct stat st;
	size_t n;

	if (git_repository_discover(&found, dir, 0, NULL) < 0 || !found.ptr) {
		git_buf_dispose(&found);
		return 0;
	}
	snprintf(top, sizeof(top), "%s", found.ptr);
	git_buf_dispose(&found);
	n = strlen(top);
	if (n > 1 && top[n - 1] == '/')
		top[--n] = '\0';
	if (n > 5 && strcmp(top + n - 5, "/.git") == 0)
		top[n - 5] = '\0';
	if (stat(top, &st) < 0 || st.st_uid == geteuid())
		return 0;
	return at_error_set(err, AT_ENOREPO, "detected dubious ownership in repository at '%s' "
			    "(owned by another user); if you trust it: "
			    "git config --global --add safe.directory '%s'", top, top);
}

/*
 * Process-wide libgit2 settings, the same for every command:
 * - no hash check of every object read: git itself does not check on read
 *   (fsck does), and it was a quarter of the user time of `new` on 20,000
 *   files; the object database is read-only inside the sandbox, so no agent
 *   can plant an object whose content does not match its id;
 * - trees of any size cached: libgit2 caches only trees under 4 KiB by
 *   default, so a directory of 100 files was inflated again by every walk of
 *   one command (the attribute check of `new`, then its checkout).
 */
static void tune_libgit2(void)
{
	git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
	git_libgit2_opts(GIT_OPT_SET_CACHE_OBJECT_LIMIT, GIT_OBJECT_TREE, (size_t)1 << 20);
}

/* agenttask.maxFileSize (git's size suffixes: k, m, g), else the default. */
static int max_file_size(git_repository *repo, uint64_t *out, struct at_error *err)
{
	git_config *cfg = NULL;
	int64_t v = 0;
	int rc = 0, grc;

	*out = AT_MAX_FILE_SIZE_DEFAULT;
	if (git_repository_config_snapshot(&cfg, repo) < 0)
		rc = at_git_error(err, AT_EGIT, "cannot read the repository's configuration");
	else if ((grc = git_config_get_int64(&v, cfg, "agenttask.maxFileSize")) == 0 && v > 0)
		*out = (uint64_t)v;
	else if (grc != GIT_ENOTFOUND)
		rc = at_error_set(err, AT_EUSAGE, "agenttask.maxFileSize must be a positive size "
				  "(such as 200m)");
	git_config_free(cfg);
	git_error_clear();
	return rc;
}

void at_repo_set_max_file_size(struct at_repo *r, uint64_t bytes)
{
	r->max_file_size = bytes;
}

/* Read when a command needs it, not at every open: run and new never do. */
int at_repo_max_file_size(const struct at_repo *r, uint64_t *out, struct at_error *err)
{
	if (r->max_file_size) {
		*out = r->max_file_size;
		return 0;
	}
	return max_file_size(r->repo, out, err);
}

int at_repo_open(struct at_repo **out, const char *dir, struct at_error *err)
{
	git_repository *found = NULL, *main_repo = NULL;
	struct at_repo *r = NULL;
	int rc;

	git_libgit2_init();
	tune_libgit2();
	if (git_repository_open_ext(&found, dir, 0, NULL) < 0) {
		struct at_error why = AT_ERROR_INIT;

		/* libgit2's reason first: the ownership check below replaces it. */
		at_git_error(&why, AT_ENOREPO, "not a git repository '%s'", dir);
		rc = dubious_ownership(dir, err);
		if (rc == 0)
			rc = at_error_set(err, why.code, "%s", why.msg);
		goto out;
	}
	/* Inside a linked worktree (a task's, say): work on the main one. */
	if (git_repository_is_worktree(found)) {
		if (git_repository_open_ext(&main_repo, git_repository_commondir(found),
					    GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0) {
			rc = at_git_error(err, AT_ENOREPO, "cannot open the main repository of '%s'",
					  dir);
			goto out;
		}
	} else {
		main_repo = found;
		found = NULL;
	}
	rc = repo_check(main_repo, found != NULL, dir, err);
	if (rc < 0)
		goto out;
	r = calloc(1, sizeof(*r));
	if (!r) {
		rc = at_error_set(err, AT_ESYS, "out of memory");
		goto out;
	}
	rc = at_paths_init(&r->paths, git_repository_commondir(main_repo), err);
	if (rc < 0)
		goto out;
	r->repo = main_repo;
	main_repo = NULL;
	if (found && !in_task_worktree(found)) {
		r->here = found;
		found = NULL;
	}
	*out = r;
	r = NULL;
out:
	free(r);
	git_repository_free(main_repo);
	git_repository_free(found);
	return rc;
}

void at_repo_free(struct at_repo *r)
{
	if (!r)
		return;
	git_repository_free(r->repo);
	git_repository_free(r->here);
	free(r);
	git_libgit2_shutdown();
}

const struct at_paths *at_repo_paths(const struct at_repo *r)
{
	return &r->paths;
}

const char *at_repo_workdir(const struct at_repo *r)
{
	return git_repository_workdir(r->repo);
}

int at_git_open_worktree(git_repository **out, const struct at_task *t, struct at_error *err)
{
	at_trace("open", t->path);
	if (git_repository_open_ext(out, t->path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0) {
		if (!at_path_exists(t->path))
			return at_task_worktree_gone(t, err);
		return at_git_error(err, AT_EGIT, "cannot open the worktree of task '%s'", t->name);
	}
	return 0;
}

int at_git_open_task_repo(git_repository **out, const struct at_task *t, struct at_error *err)
{
	unsigned int flags = GIT_REPOSITORY_OPEN_NO_SEARCH | GIT_REPOSITORY_OPEN_BARE;

	at_trace("open", t->path);
	if (git_repository_open_ext(out, t->admin_dir, flags, NULL) < 0)
		return at_git_error(err, AT_EGIT, "cannot open the repository of task '%s'",
				    t->name);
	return 0;
}

int at_git_open_bare(git_repository **out, const struct at_repo *r, struct at_error *err)
{
	unsigned int flags = GIT_REPOSITORY_OPEN_NO_SEARCH | GIT_REPOSITORY_OPEN_BARE;

	if (git_repository_open_ext(out, git_repository_commondir(r->repo), flags, NULL) < 0)
		return at_git_error(err, AT_EGIT, "cannot open the repository");
	return 0;
}

/*
 * The replacements of libgit2 set-up steps agenttask never needs, each
 * linked with -Wl,--wrap when the libgit2 archive has the symbol (see
 * CMakeLists.txt, which defines AT_WRAP_<SYMBOL> for each one wrapped).
 */
#ifdef AT_WRAP_GIT_MBEDTLS_STREAM_GLOBAL_INIT
/*
 * libgit2's TLS set-up: agenttask never fetches or pushes, so the TLS
 * stream is never used, and this spares every command the parsing of the
 * system's CA bundle.
 */
int __wrap_git_mbedtls_stream_global_init(void);
int __wrap_git_mbedtls_stream_global_init(void)
{
	return 0;
}
#endif

#ifdef AT_WRAP_GIT_TRANSPORT_SSH_GLOBAL_INIT
/* Likewise libssh2's (and through it OpenSSL's) set-up: no SSH transport either. */
int __wrap_git_transport_ssh_global_init(void);
int __wrap_git_transport_ssh_global_init(void)
{
	return 0;
}
#endif

#ifdef AT_WRAP_GIT_HTTP_AUTH_NEGOTIATE
/*
 * And HTTP's Negotiate authentication (GSSAPI): never offered, since no
 * HTTP request is ever made; replacing it keeps libgit2's GSSAPI code, and
 * the Kerberos libraries, out of the binary.
 */
int __wrap_git_http_auth_negotiate(void **out, const void *url);
int __wrap_git_http_auth_negotiate(void **out, const void *url)
{
	(void)url;
	*out = NULL;
	git_error_set_str(GIT_ERROR_NET, "agenttask does not authenticate to remotes");
	return -1;
}
#endif

void at_git_version(char *buf, size_t size)
{
	int major = 0, minor = 0, rev = 0;

	git_libgit2_version(&major, &minor, &rev);
	snprintf(buf, size, "%d.%d.%d", major, minor, rev);
}
