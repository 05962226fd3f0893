/*
 * gitview.c - the task's own git inside the sandbox, and the import of
 * what it did there (issue 10).
 *
 * Inside, the common dir is an overlay: the repository read-only below, the
 * task's upper directory above, <state>/git/NAME/upper, where everything git
 * writes goes (objects, refs, the worktree's HEAD and index, the config,
 * hooks). The host never runs or reads any of it as configuration: only
 * the worktree's HEAD, one ref and the objects it needs are read, by the
 * import, through core/gitlayer.h and git/import.h.
 *
 * <state>/git/NAME/
 *     upper/ work/     the overlay's layers
 *     work.1/          its other work dir, mounted while work holds the
 *                      scratch a run left (at_sandbox_overlay_pick)
 *     lock             flock(2)'d by the run whose sandbox has them mounted,
 *                      and by an import: one at a time
 *     imported         the commit the task's branch and its HEAD inside
 *                      last agreed on (hex), written by the host only
 *     quarantine/      an import's copy of the task's objects, while it runs
 *     masked           the identity of the upper's packed-refs when it is the
 *                      host's copy without agenttask's refs (gitview_open.c)
 *     dropped/SECS.PID upper/ as it was when `agenttask repair` set it aside
 *                      (at_app_gitview_drop): kept until the task is removed
 *
 * The rule: after each run, and before diff, status, gate, accept and
 * discard look at the task, the host's branch follows the commit HEAD
 * names inside (on the task's branch, another branch or detached alike),
 * once it is validated. Other branches and tags stay in the upper, for the
 * task's later runs. When the branch moved on the host instead (agenttask
 * commit, a commit in the worktree on the host), the next run starts from
 * there: the branch, HEAD (back on the task's branch) and the index inside
 * are set to the host's. When both moved, nothing is imported, and the
 * import says so.
 */
#include "app/gitview.h"
#include "app/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/audit.h"
#include "core/fs.h"
#include "core/gitlayer.h"
#include "core/lock.h"
#include "core/trace.h"
#include "core/util.h"
#include "git/config.h"
#include "git/import.h"

int at_app_gitview_paths(struct at_repo *r, const struct at_task *t, struct at_app_gitview *v,
		      struct at_error *err)
{
	const struct at_paths *p = at_repo_paths(r);

	if (at_paths_view(p, t->name, v->dir, sizeof(v->dir), NULL) < 0 ||
	    at_fmt(v->upper, sizeof(v->upper), "%s/upper", v->dir) < 0 ||
	    at_fmt(v->work, sizeof(v->work), "%s/work", v->dir) < 0 ||
	    at_fmt(v->spare, sizeof(v->spare), "%s/work.1", v->dir) < 0)
		return at_error_set(err, AT_ESYS, "path too long '%s'", p->state_dir);
	return 0;
}

void at_app_gitview_init(struct at_app_gitview *v)
{
	memset(v, 0, sizeof(*v));
	v->lock = -1;
}

void at_app_gitview_close(struct at_app_gitview *v)
{
	if (v->lock >= 0)
		close(v->lock);
	v->lock = -1;
}

/* 0 taken, 1 held by another run of the task, or an error. */
int at_app_gitview_lock(struct at_app_gitview *v, struct at_error *err)
{
	char path[PATH_MAX];

	if (at_fmt(path, sizeof(path), "%s/lock", v->dir) < 0)
		return at_error_set(err, AT_ESYS, "path too long '%s'", v->dir);
	return at_lock_try_file(path, &v->lock, err);
}

/* The commit last agreed on: 0, 1 when none is recorded. */
int at_app_gitview_agreed(const struct at_app_gitview *v, struct at_oid *out)
{
	char path[PATH_MAX], hex[AT_OID_HEXSZ + 1];
	AT_AUTOFREE char *text = NULL;
	size_t len = 0;

	if (at_fmt(path, sizeof(path), "%s/imported", v->dir) < 0 ||
	    !(text = at_read_file(path, 128, &len)) || len < AT_OID_HEXSZ)
		return 1;
	memcpy(hex, text, AT_OID_HEXSZ);
	hex[AT_OID_HEXSZ] = '\0';
	return at_oid_parse(out, hex) == 0 ? 0 : 1;
}

/*
 * Not fsync'd: the branch's ref, which the import moved first, is not
 * either (git does not sync refs), and a record that outlived its ref in a
 * crash would make the host's old tip look like the host's own move, which
 * the next run follows, dropping the task's commit from its view. A record
 * lost or left empty is recovered: with none, the host's tip is taken as
 * agreed, and the rule of the header then imports again or agrees.
 */
int at_app_gitview_agree(const struct at_app_gitview *v, const struct at_oid *id,
			  struct at_error *err)
{
	char path[PATH_MAX], hex[AT_OID_HEXSZ + 2];

	at_oid_fmt(hex, id);
	hex[AT_OID_HEXSZ] = '\n';
	hex[AT_OID_HEXSZ + 1] = '\0';
	if (at_fmt(path, sizeof(path), "%s/imported", v->dir) < 0 ||
	    at_write_replace(path, hex, AT_OID_HEXSZ + 1, 0600) < 0)
		return at_error_sys(err, AT_ESYS, "cannot write '%s/imported'", v->dir);
	return 0;
}

int at_app_gitview_head(const struct at_repo *r, const struct at_task *t,
			const struct at_app_gitview *v, struct at_oid *out, struct at_error *err)
{
	struct at_gitlayer g;
	char admin[PATH_MAX], ref[1100];
	int rc;

	g.upper = open(v->upper, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (g.upper < 0)
		return errno == ENOENT ? 1 : at_error_sys(err, AT_ESYS, "cannot open '%s'", v->upper);
	g.lower = open(at_repo_paths(r)->common_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (g.lower < 0) {
		close(g.upper);
		return at_error_sys(err, AT_ESYS, "cannot open the git directory");
	}
	rc = at_fmt(admin, sizeof(admin), "worktrees/%s", t->worktree_name) < 0
		     ? at_error_set(err, AT_ESYS, "name too long")
		     : at_gitlayer_head(&g, admin, out, ref, sizeof(ref), err);
	close(g.upper);
	close(g.lower);
	return rc;
}

/* The task's objects validated and copied in, the branch moved from host to tip. */
static int bring_in(struct at_repo *r, const struct at_task *t, const struct at_app_gitview *v,
		    const struct at_oid *host, const struct at_oid *tip,
		    struct at_app_import *res, struct at_error *err)
{
	char quar[PATH_MAX];
	struct at_import_stats stats;
	struct at_error aerr = AT_ERROR_INIT;
	int upper, objects, rc;

	if (at_fmt(quar, sizeof(quar), "%s/quarantine", v->dir) < 0)
		return at_error_set(err, AT_ESYS, "path too long '%s'", v->dir);
	/* A killed import's leftovers first; then an empty quarantine of our own. */
	if ((rc = at_rmtree(quar, err)) < 0)
		return rc;
	if (mkdir(quar, 0700) < 0)
		return at_error_sys(err, AT_ESYS, "cannot make '%s'", quar);
	upper = open(v->upper, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	objects = upper >= 0 ? at_open_beneath(upper, "objects", O_RDONLY | O_DIRECTORY) : -1;
	rc = at_git_import_objects(r, objects, quar, tip, &stats, err);
	if (objects >= 0)
		close(objects);
	if (upper >= 0)
		close(upper);
	if (rc == 0)
		rc = at_git_import_move(r, t, host, tip, err);
	at_rmtree(quar, &aerr);
	if (rc < 0)
		return rc;
	res->imported = true;
	res->old = *host;
	res->new_tip = *tip;
	res->objects = stats.objects;
	if (at_audit_import(at_repo_paths(r), t->name, host, tip, stats.objects, &aerr) < 0)
		at_strlist_pushf(&res->warnings, "the import was not logged: %s", aerr.msg);
	return at_app_gitview_agree(v, tip, err);
}

/* Under the view's lock: the rule of the file's header. */
static int import_locked(struct at_repo *r, const struct at_task *t, struct at_app_gitview *v,
			 struct at_app_import *res, struct at_error *err)
{
	struct at_oid tip, host, agreed;
	char hex[AT_OID_HEXSZ + 1];
	int rc;

	if ((rc = at_app_gitview_head(r, t, v, &tip, err)) != 0)
		return rc < 0 ? rc : 0;
	if ((rc = at_git_branch_tip(r, t, &host, err)) < 0)
		return rc;
	if (at_app_gitview_agreed(v, &agreed) != 0)
		agreed = host;
	/*
	 * Equal because HEAD inside resolves through the lower to the host's
	 * moved branch (the task never wrote its own): the host moved, and the
	 * index inside is still the task's old one. Not agreed here, so that
	 * the next run's follow_host resets it (app/gitview_open.c).
	 */
	if (at_oid_equal(&tip, &host))
		return 0;
	if (at_oid_equal(&tip, &agreed))
		return 0;   /* the host moved, the task did not: its next run starts there */
	at_oid_fmt(hex, &tip);
	if (!at_oid_equal(&host, &agreed))
		return at_error_set(err, AT_ESTALE, "the branch of '%s' moved both on the host and "
				    "inside the sandbox (to %.12s): not imported", t->name, hex);
	return bring_in(r, t, v, &host, &tip, res, err);
}

int at_app_import(struct at_repo *r, const struct at_task *t, struct at_app_gitview *held,
		  struct at_app_import *res, struct at_error *err)
{
	struct at_app_gitview own;
	struct stat st;
	int rc;

	if (held && held->lock >= 0)
		return import_locked(r, t, held, res, err);
	at_app_gitview_init(&own);
	if ((rc = at_app_gitview_paths(r, t, &own, err)) < 0)
		return rc;
	if (stat(own.upper, &st) < 0)
		return 0;   /* never run with a git view: nothing to import */
	rc = at_app_gitview_lock(&own, err);
	if (rc == 1) {
		res->busy = true;   /* a run has it: its commits come in when it ends */
		return 0;
	}
	if (rc == 0)
		rc = import_locked(r, t, &own, res, err);
	at_app_gitview_close(&own);
	return rc;
}

void at_app_import_release(struct at_app_import *res)
{
	if (res)
		at_strlist_release(&res->warnings);
}

/* AT_ESYS is the host's (a disk, a descriptor): resetting the task's git would not help. */
static bool repairable(const struct at_error *ierr)
{
	return ierr->code != AT_ESYS;
}

int at_app_import_before(struct at_repo *r, const struct at_task *t, struct at_strlist *warnings,
			 struct at_error *err)
{
	struct at_error ierr = AT_ERROR_INIT;
	struct at_app_import res;
	size_t i;
	int rc;

	memset(&res, 0, sizeof(res));
	rc = at_app_import(r, t, NULL, &res, &ierr);
	for (i = 0; warnings && i < res.warnings.n; i++)
		at_strlist_push(warnings, res.warnings.v[i]);
	at_app_import_release(&res);
	if (rc == 0)
		return 0;
	if (!warnings) {
		*err = ierr;
		if (repairable(&ierr))
			at_error_append(err, " ('agenttask repair %s' sets the task's git inside back "
					"to the host's)", t->name);
		return rc;
	}
	at_app_import_warn(warnings, t, &ierr);
	return 0;
}

void at_app_import_warn(struct at_strlist *warnings, const struct at_task *t,
			const struct at_error *ierr)
{
	at_strlist_pushf(warnings, "the task's commits were not imported: %s", ierr->msg);
	if (repairable(ierr))
		at_strlist_pushf(warnings, "'agenttask repair %s' sets the task's git inside back "
				 "to its branch as the host has it (what it drops is kept aside)",
				 t->name);
}

/*
 * One rename is the whole change: before it the old layer is the view,
 * after it there is none, which the next run makes afresh (its HEAD, refs
 * and index then show through from the host's). A kill on either side
 * leaves one or the other. The rename never follows a link: both names
 * are entries of agenttask's own directories (the sandbox never sees
 * them), opened O_NOFOLLOW.
 */
int at_app_gitview_drop(const struct at_app_gitview *v, char *kept, size_t size,
			struct at_error *err)
{
	char name[64];
	int dir, dropped = -1, rc = 0;

	dir = open(v->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dir < 0)
		return errno == ENOENT ? 1 : at_error_sys(err, AT_ESYS, "cannot open '%s'", v->dir);
	if (faccessat(dir, "upper", F_OK, AT_SYMLINK_NOFOLLOW) < 0) {
		rc = errno == ENOENT ? 1 : at_error_sys(err, AT_ESYS, "cannot open '%s'", v->upper);
		goto out;
	}
	snprintf(name, sizeof(name), "%lld.%ld", (long long)time(NULL), (long)getpid());
	if ((mkdirat(dir, "dropped", 0700) < 0 && errno != EEXIST) ||
	    (dropped = openat(dir, "dropped", O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			      O_CLOEXEC)) < 0) {
		rc = at_error_sys(err, AT_ESYS, "cannot make '%s/dropped'", v->dir);
		goto out;
	}
	if (at_fmt(kept, size, "%s/dropped/%s", v->dir, name) < 0) {
		rc = at_error_set(err, AT_ESYS, "path too long '%s'", v->dir);
		goto out;
	}
	if (renameat2(dir, "upper", dropped, name, RENAME_NOREPLACE) < 0) {
		rc = at_error_sys(err, AT_ESYS, "cannot set '%s' aside", v->upper);
		goto out;
	}
	at_test_kill_point("repair:aside");
	/* The rename made lasting before anything is said to depend on it. */
	(void)fsync(dropped);
	(void)fsync(dir);
out:
	if (dropped >= 0)
		close(dropped);
	close(dir);
	return rc;
}
