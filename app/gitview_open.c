/*
 * gitview_open.c - the task's git view made ready before a run (gitview.h).
 * The only writes the host makes into the upper are here: its config when
 * it has none, the branch, HEAD and index reset to the host's when the
 * branch moved on the host, and agenttask's own refs hidden (hide_host_refs).
 * Each through descriptors opened without following links, a file replaced
 * by rename: the upper is the task's.
 */
#include "app/gitview.h"
#include "app/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "core/fs.h"
#include "core/gitlayer.h"
#include "core/paths.h"
#include "core/util.h"
#include "git/import.h"

/* The directory holding rel in the upper, made as needed; *base is rel's last component. */
static int upper_dir(int upper, char *rel, const char **base)
{
	char *comp = rel, *slash;
	int cur = fcntl(upper, F_DUPFD_CLOEXEC, 0);

	while (cur >= 0 && (slash = strchr(comp, '/'))) {
		int next;

		*slash = '\0';
		(void)mkdirat(cur, comp, 0755);
		next = at_open_beneath(cur, comp, O_RDONLY | O_DIRECTORY);
		*slash = '/';
		close(cur);
		cur = next;
		comp = slash + 1;
	}
	*base = comp;
	return cur;
}

static int write_in_upper(int upper, const char *rel, const char *text, size_t len, bool replace,
			  struct at_error *err)
{
	char path[PATH_MAX], tmp[64];
	const char *base;
	int dir, fd, rc = 0;

	if (at_fmt(path, sizeof(path), "%s", rel) < 0)
		return at_error_set(err, AT_ESYS, "path too long '%s'", rel);
	if ((dir = upper_dir(upper, path, &base)) < 0)
		return at_error_sys(err, AT_ESYS, "cannot open the task's git at '%s'", rel);
	snprintf(tmp, sizeof(tmp), ".agenttask-%ld", (long)getpid());
	fd = openat(dir, replace ? tmp : base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    0644);
	if (fd < 0 && !replace && errno == EEXIST) {
		close(dir);
		return 0;   /* the task's own: kept */
	}
	if (fd < 0 || at_write_all(fd, text, len) < 0 || close(fd) < 0 ||
	    (replace && renameat(dir, tmp, dir, base) < 0)) {
		rc = at_error_sys(err, AT_ESYS, "cannot write the task's git at '%s'", rel);
		if (replace)
			unlinkat(dir, tmp, 0);
	}
	close(dir);
	return rc;
}

/* The host moved the branch: inside, the branch, HEAD and index become the host's. */
int at_app_gitview_reset(const struct at_app_gitview *v, const struct at_task *t,
			 const struct at_oid *host, struct at_error *err)
{
	char hex[AT_OID_HEXSZ + 2], head[PATH_MAX], index[PATH_MAX], sym[AT_NAME_MAX + 48];
	int upper = open(v->upper, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), rc;

	if (upper < 0)
		return at_error_sys(err, AT_ESYS, "cannot open '%s'", v->upper);
	at_oid_fmt(hex, host);
	strcat(hex, "\n");
	snprintf(sym, sizeof(sym), "ref: %s\n", t->branch);
	rc = at_fmt(head, sizeof(head), "worktrees/%s/HEAD", t->worktree_name) < 0 ||
	     at_fmt(index, sizeof(index), "worktrees/%s/index", t->worktree_name) < 0
		     ? at_error_set(err, AT_ESYS, "name too long")
		     : 0;
	if (rc == 0)
		rc = write_in_upper(upper, t->branch, hex, strlen(hex), true, err);
	if (rc == 0)
		rc = write_in_upper(upper, head, sym, strlen(sym), true, err);
	/* Without the task's index, the host's (the host's branch's) shows through. */
	if (rc == 0) {
		const char *base;
		int dir = upper_dir(upper, index, &base);

		if (dir >= 0) {
			unlinkat(dir, base, 0);
			close(dir);
		}
	}
	close(upper);
	return rc;
}

/*
 * The upper's config, when it has none: the sanitized copy, and no
 * automatic gc, which counts the repository's loose objects too and would
 * copy the whole repository into the task's layer when it repacks (an
 * explicit `git gc` inside still works).
 */
static int write_config(const char *text, const struct at_app_gitview *v, struct at_error *err)
{
	static const char no_auto_gc[] = "[gc]\n\tauto = 0\n[maintenance]\n\tauto = false\n";
	AT_AUTOFREE char *all = NULL;
	int upper, rc;

	if (asprintf(&all, "%s%s", text ? text : "", no_auto_gc) < 0)
		return at_error_set(err, AT_ESYS, "out of memory");
	upper = open(v->upper, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (upper < 0)
		return at_error_sys(err, AT_ESYS, "cannot open '%s'", v->upper);
	rc = write_in_upper(upper, "config", all, strlen(all), false, err);
	close(upper);
	return rc;
}

/* After the import: when the host alone moved the branch, the upper follows it. */
static int follow_host(struct at_repo *r, const struct at_task *t, const struct at_app_gitview *v,
		       struct at_error *err)
{
	struct at_oid host, agreed;
	int rc;

	if ((rc = at_git_branch_tip(r, t, &host, err)) < 0)
		return rc;
	if (at_app_gitview_agreed(v, &agreed) == 0 && at_oid_equal(&agreed, &host))
		return 0;
	if ((rc = at_app_gitview_reset(v, t, &host, err)) < 0)
		return rc;
	return at_app_gitview_agree(v, &host, err);
}

/*
 * refs/agenttask/ of the upper as an opaque directory, which hides the
 * common dir's loose refs there (an entry that is not a directory, a
 * whiteout the agent's rm made, hides them already; so does an upper
 * refs/ that is not a directory or is opaque).
 */
static int hide_loose(int upper, struct at_error *err)
{
	static const char dir[] = "agenttask";
	struct stat st;
	int refs, fd, rc = 0;

	(void)mkdirat(upper, "refs", 0755);
	if ((refs = at_open_beneath(upper, "refs", O_RDONLY | O_DIRECTORY)) < 0)
		return 0;
	if (fgetxattr(refs, "user.overlay.opaque", NULL, 0) >= 0) {
		close(refs);
		return 0;
	}
	(void)mkdirat(refs, dir, 0755);
	if (fstatat(refs, dir, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode)) {
		fd = at_open_beneath(refs, dir, O_RDONLY | O_DIRECTORY);
		if (fd < 0 || fsetxattr(fd, "user.overlay.opaque", "y", 1, 0) < 0)
			rc = at_error_sys(err, AT_ESYS, "cannot hide refs/%s in the task's git", dir);
		if (fd >= 0)
			close(fd);
	}
	close(refs);
	return rc;
}

/* packed-refs of one layer (layer, no other below it): 0, 1 when none. */
static int read_packed(int layer, char **text, size_t *len, struct at_error *err)
{
	struct at_gitlayer g = { .upper = layer, .lower = -1 };

	return at_gitlayer_read(&g, "packed-refs", AT_GITLAYER_PACKED_MAX, text, len, err);
}

/*
 * The identity of a layer's packed-refs, a regular file, into out (inode
 * and change time): 0; 1 when there is none; -1 when it is something else
 * (in the upper, a whiteout, a directory: the common dir's is hidden already).
 */
static int packed_identity(int layer, char *out, size_t size)
{
	struct stat st;

	out[0] = '\0';
	if (fstatat(layer, "packed-refs", &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 1 : -1;
	if (!S_ISREG(st.st_mode))
		return -1;
	snprintf(out, size, "%llu %lld.%09ld\n", (unsigned long long)st.st_ino,
		 (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
	return 0;
}

/*
 * The packed refs: an upper without a packed-refs of the task's own (none,
 * or the copy written here the last time, whose identity <dir>/masked
 * records, with that of the common dir's it was made from) gets the common
 * dir's without agenttask's refs when it has any, and none when it has none
 * (the common dir's then shows); a copy of the common dir's as it still is
 * stays. One the task's git wrote is its own, kept as it is: it was
 * written from a view that showed none of agenttask's refs.
 */
static int hide_packed(int upper, int common, const struct at_app_gitview *v,
		       struct at_error *err)
{
	char record[PATH_MAX], now[64], below[64], both[128];
	AT_AUTOFREE char *text = NULL, *known = NULL;
	size_t len = 0, klen = 0, kept;
	bool ours;
	int rc;

	if (at_fmt(record, sizeof(record), "%s/masked", v->dir) < 0)
		return at_error_set(err, AT_ESYS, "path too long '%s'", v->dir);
	if ((rc = packed_identity(upper, now, sizeof(now))) < 0)
		return 0;
	(void)packed_identity(common, below, sizeof(below));
	known = at_read_file(record, sizeof(both), &klen);
	ours = rc == 0 && known && strncmp(known, now, strlen(now)) == 0;
	if (rc == 0 && !ours)
		return 0;   /* the task's git wrote it, from a view without agenttask's */
	snprintf(both, sizeof(both), "%s%s", now, below);
	if (ours && below[0] && strcmp(known, both) == 0)
		return 0;   /* made from the common dir's as it still is */
	if ((rc = read_packed(common, &text, &len, err)) < 0)
		return rc;
	kept = rc == 1 ? 0 : at_gitlayer_packed_drop(text, len, AT_HOST_REFS);
	if (rc == 1 || kept == len) {
		if (ours && unlinkat(upper, "packed-refs", 0) < 0 && errno != ENOENT)
			return at_error_sys(err, AT_ESYS, "cannot remove the task's packed-refs");
		(void)unlink(record);
		return 0;
	}
	if ((rc = write_in_upper(upper, "packed-refs", text, kept, true, err)) < 0)
		return rc;
	if (packed_identity(upper, now, sizeof(now)) != 0 ||
	    snprintf(both, sizeof(both), "%s%s", now, below) < 0 ||
	    at_write_replace(record, both, strlen(both), 0600) < 0)
		return at_error_sys(err, AT_ESYS, "cannot write '%s'", record);
	return 0;
}

/*
 * agenttask's own refs (checkpoints, the trash: core/paths.h's
 * AT_HOST_REFS) are the person's, never the agent's: the view shows none
 * of them, loose or packed, so that its git never reads, moves or walks
 * them (their objects, written by the host between runs, may be hidden
 * inside once the task's git has pruned: every walk of all refs would
 * fail). What the task's git writes there stays in its upper.
 */
static int hide_host_refs(struct at_repo *r, const struct at_app_gitview *v, struct at_error *err)
{
	const struct at_paths *p = at_repo_paths(r);
	int upper = open(v->upper, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), common, rc;

	if (upper < 0)
		return at_error_sys(err, AT_ESYS, "cannot open '%s'", v->upper);
	common = open(p->common_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (common < 0)
		rc = at_error_sys(err, AT_ESYS, "cannot open '%s'", p->common_dir);
	else if ((rc = hide_loose(upper, err)) == 0)
		rc = hide_packed(upper, common, v, err);
	if (common >= 0)
		close(common);
	close(upper);
	return rc;
}

/* A layer's directory: there after the first run, so made with its parents only then. */
static int layer_dir(const char *path, struct at_error *err)
{
	if (mkdir(path, 0700) == 0 || errno == EEXIST)
		return 0;
	return at_mkdirs(path, 0700, err);
}

int at_app_gitview_open(struct at_repo *r, const struct at_task *t, struct at_app_layout *l,
			struct at_app_gitview *v, struct at_app_import *res,
			struct at_error *err)
{
	struct at_error ierr = AT_ERROR_INIT;
	struct at_oid agreed, host;
	int rc;

	if ((rc = at_app_gitview_paths(r, t, v, err)) < 0 ||
	    (rc = layer_dir(v->upper, err)) < 0 || (rc = layer_dir(v->work, err)) < 0)
		return rc;
	if ((rc = at_app_gitview_lock(v, err)) != 0)
		return rc;
	at_app_pick_work(v->work, v->spare);
	if (at_app_gitview_agreed(v, &agreed) != 0 &&
	    ((rc = at_git_branch_tip(r, t, &host, err)) < 0 ||
	     (rc = at_app_gitview_agree(v, &host, err)) < 0))
		return rc;
	if (at_app_import(r, t, v, res, &ierr) < 0)
		at_app_import_warn(&res->warnings, t, &ierr);
	else if ((rc = follow_host(r, t, v, err)) < 0)
		return rc;
	if ((rc = write_config(l->config, v, err)) < 0 || (rc = hide_host_refs(r, v, err)) < 0)
		return rc;
	memcpy(l->upper, v->upper, sizeof(l->upper));
	memcpy(l->work, v->work, sizeof(l->work));
	return 0;
}
