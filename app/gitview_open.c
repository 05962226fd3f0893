/*
 * gitview_open.c - the task's git view made ready before a run (gitview.h).
 * The only writes the host makes into the upper are here: its config when
 * it has none, and the branch, HEAD and index reset to the host's when the
 * branch moved on the host. Each through descriptors opened without
 * following links, a file replaced by rename: the upper is the task's.
 */
#include "app/gitview.h"
#include "app/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/fs.h"
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

static int write_in_upper(int upper, const char *rel, const char *text, bool replace,
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
	if (fd < 0 || at_write_all(fd, text, strlen(text)) < 0 || close(fd) < 0 ||
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
		rc = write_in_upper(upper, t->branch, hex, true, err);
	if (rc == 0)
		rc = write_in_upper(upper, head, sym, true, err);
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
	rc = write_in_upper(upper, "config", all, false, err);
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
	if ((rc = write_config(l->config, v, err)) < 0)
		return rc;
	memcpy(l->upper, v->upper, sizeof(l->upper));
	memcpy(l->work, v->work, sizeof(l->work));
	return 0;
}
