/*
 * home.c - a task's lasting HOME: <state>/homes/NAME (core/paths.h), made on
 * the task's first run. Its contents are the task's (hostile): the host
 * only ever makes, binds and removes the directory itself, and refuses one
 * that is not a plain directory of the caller's (a planted link is never
 * followed: the state dir is read-only in the sandbox, but a user may have
 * put anything there).
 *
 * --home-size caps it as it caps a tmpfs HOME, by accounting: the size of
 * the home (its disk space, core/fs.h at_tree_usage) is measured after each
 * run that has a cap and recorded in <state>/cache/NAME.home; the next run
 * with a cap reads that record (measuring only when there is none) and is
 * refused, in one line, while the home is over it. One run can go past the
 * cap as far as it can fill the worktree (the file system's free space);
 * the run after it cannot start. A run without a cap measures nothing and
 * forgets the record, so that a later capped run measures afresh what it
 * left. No privilege is needed (a loop device, a quota, an overlay with a
 * tmpfs upper merged back all need one, or a newer kernel, or can lose a
 * run's writes); docs/security.md has the reasons.
 */
#include "app/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/fs.h"
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

	if ((rc = at_paths_home(p, t->name, path, sizeof(path), err)) < 0 ||
	    (rc = make_dir(p->homes_dir, err)) < 0 || (rc = make_dir(path, err)) < 0)
		return rc;
	if (size < PATH_MAX || !realpath(path, out))
		return at_error_sys(err, AT_ESYS, "cannot resolve '%s'", path);
	return 0;
}

/* <state>/cache/NAME.home; with make, its directory made when missing. */
static int record_path(struct at_repo *r, const struct at_task *t, bool make, char *buf,
		       size_t size)
{
	const struct at_paths *p = at_repo_paths(r);

	if (make && mkdir(p->cache_dir, 0700) < 0 && errno != EEXIST)
		return -1;
	return at_paths_home_size(p, t->name, buf, size, NULL);
}

/* The size recorded after the last capped run; -1 when there is none. */
static int read_record(const char *path, uint64_t *bytes)
{
	AT_AUTOFREE char *text = at_read_file(path, 32, NULL);
	char *end;

	if (!text)
		return -1;
	errno = 0;
	*bytes = strtoull(text, &end, 10);
	return errno || end == text || *end != '\n' ? -1 : 0;
}

/*
 * Replaced atomically, not synced (at_write_replace): a record a crash
 * loses or tears is only measured again.
 */
static int write_record(const char *path, uint64_t bytes)
{
	char text[32];
	int n = snprintf(text, sizeof(text), "%" PRIu64 "\n", bytes);

	return at_write_replace(path, text, (size_t)n, 0600);
}

static void mib(char *buf, size_t size, uint64_t bytes)
{
	snprintf(buf, size, "%.1f MiB", (double)bytes / (1 << 20));
}

int at_app_home_check(struct at_repo *r, const struct at_task *t, const char *home, uint64_t cap,
		      struct at_error *err)
{
	struct at_error why = AT_ERROR_INIT;
	char path[PATH_MAX], used_s[32], cap_s[32];
	uint64_t used;
	int rc;

	if (record_path(r, t, cap != 0, path, sizeof(path)) < 0)
		return cap ? at_error_sys(err, AT_ESYS, "cannot record the size of '%s'", home) : 0;
	if (!cap) {
		(void)unlink(path);
		return 0;
	}
	if (read_record(path, &used) < 0) {
		if ((rc = at_tree_usage(home, &used, &why)) < 0)
			return at_error_set(err, rc, "the home of '%s' cannot be measured for "
					    "--home-size: %s", t->name, why.msg);
		(void)write_record(path, used);
	}
	if (used <= cap)
		return 0;
	mib(used_s, sizeof(used_s), used);
	mib(cap_s, sizeof(cap_s), cap);
	return at_error_set(err, AT_EUNSAFE, "the home of '%s' holds %s, over --home-size %s: "
			    "free some of it in a run with a larger cap, or run with --fresh-home",
			    t->name, used_s, cap_s);
}

void at_app_home_record(struct at_repo *r, const struct at_task *t, const char *home,
			uint64_t cap, struct at_strlist *warnings)
{
	struct at_error err = AT_ERROR_INIT;
	char path[PATH_MAX], used_s[32], cap_s[32];
	uint64_t used;

	if (!cap || record_path(r, t, true, path, sizeof(path)) < 0)
		return;
	if (at_tree_usage(home, &used, &err) < 0) {
		/* Unmeasurable: the next capped run measures again, and refuses. */
		(void)unlink(path);
		at_strlist_pushf(warnings, "the next run with --home-size is refused: %s", err.msg);
		return;
	}
	if (write_record(path, used) < 0) {
		(void)unlink(path);
		return;
	}
	if (used > cap) {
		mib(used_s, sizeof(used_s), used);
		mib(cap_s, sizeof(cap_s), cap);
		at_strlist_pushf(warnings, "the home of '%s' now holds %s, over --home-size %s: "
				 "the next run with that cap is refused", t->name, used_s, cap_s);
	}
}
