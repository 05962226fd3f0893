/*
 * home.c - a task's lasting HOME: <state>/homes/NAME (core/task.h), made on
 * the task's first run. Its contents are the task's (hostile): the host
 * only ever makes, binds and removes the directory itself, and refuses one
 * that is not a plain directory of the caller's (a planted link is never
 * followed: the state dir is read-only in the sandbox, but a user may have
 * put anything there).
 */
#include "app/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"

static int make_dir(const char *path, struct at_error *err)
{
	struct stat st;

	if (mkdir(path, 0700) < 0 && errno != EEXIST)
		return at_error_sys(err, AT_ESYS, "cannot create '%s'", path);
	if (lstat(path, &st) < 0)
		return at_error_sys(err, AT_ESYS, "cannot stat '%s'", path);
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid())
		return at_error_set(err, AT_ESANDBOX,
				    "'%s' is not a directory of yours: refusing it as HOME", path);
	return 0;
}

int at_app_task_home(struct at_repo *r, const struct at_task *t, char *out, size_t size,
		     struct at_error *err)
{
	const struct at_paths *p = at_repo_paths(r);
	char path[PATH_MAX];
	int rc;

	if ((rc = at_task_home(p, t->name, path, sizeof(path), err)) < 0 ||
	    (rc = make_dir(p->homes_dir, err)) < 0 || (rc = make_dir(path, err)) < 0)
		return rc;
	if (size < PATH_MAX || !realpath(path, out))
		return at_error_sys(err, AT_ESYS, "cannot resolve '%s'", path);
	return 0;
}
