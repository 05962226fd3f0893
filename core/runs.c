#include "core/runs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/fs.h"
#include "core/proc.h"
#include "core/util.h"

#define RECORDS_MAX 64           /* runs of one task looked at in one pass */
#define SUPERVISOR_GRACE_MS 1000 /* after its init is killed, before the supervisor is */
#define POLL_MS 5

struct record {
	int pid;                 /* the supervisor (agenttask run) */
	long long start;
	int init_pid;            /* the sandbox's init; 0 until it is cloned */
	long long init_start;
};

/* ---- paths ---- */

static int runs_dir(const struct at_paths *p, char *buf, size_t size, struct at_error *err)
{
	if (at_fmt(buf, size, "%s", p->runs_dir) < 0)
		return at_error_set(err, AT_ESYS, "path too long '%s'", p->runs_dir);
	return 0;
}

static int ensure_runs_dir(const struct at_paths *p, const char *dir, struct at_error *err)
{
	struct stat st;

	if (at_paths_ensure(p, err) < 0)
		return err->code;
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return at_error_sys(err, AT_ESYS, "cannot create '%s'", dir);
	if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
		return at_error_set(err, AT_ESYS, "'%s' is not a directory", dir);
	return 0;
}

/* Is `file` (a name in the runs directory) a record of task? */
static bool is_record_of(const char *file, const char *task)
{
	size_t n = strlen(task), digits = 0;
	const char *s;

	if (strncmp(file, task, n) != 0 || file[n] != '.')
		return false;
	for (s = file + n + 1; *s >= '0' && *s <= '9'; s++)
		digits++;
	return digits > 0 && strcmp(s, ".run") == 0;
}

/* ---- processes ---- */

/*
 * SIGKILL to pid if it is still the process that started at `start`. The
 * pidfd is opened first and the start time checked after: if the pid was
 * recycled between the two, the start time differs and nothing is sent.
 * *pidfd_out (when not NULL) gets the pidfd to wait on, else it is closed.
 * 0 sent or gone; -1 with errno (EPERM: not ours to signal).
 */
static int kill_verified(int pid, long long start, int *pidfd_out)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);

	if (pidfd_out)
		*pidfd_out = -1;
	if (fd < 0 && errno == ESRCH)
		return 0;
	if (fd < 0 && errno != ENOSYS)
		return -1;
	if (!at_proc_alive(pid, start)) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	/* Without pidfds (Linux < 5.3): the start time was checked just before. */
	if (fd < 0)
		return kill(pid, SIGKILL) < 0 && errno != ESRCH ? -1 : 0;
	if (syscall(SYS_pidfd_send_signal, fd, SIGKILL, NULL, 0) < 0 && errno != ESRCH) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	if (pidfd_out)
		*pidfd_out = fd;
	else
		close(fd);
	return 0;
}

/* ---- records ---- */

/*
 * Written in place, not renamed: a run's start must stay cheap. A reader
 * that meets a record being written finds no valid line (or a pid whose
 * start time does not match) and takes it for no record, which only ever
 * makes a remover wait or name no pid; the lock is what says a run lives.
 * Not fsync'd: a record only matters while its run lives, and a crash ends it.
 */
static int write_record(int fd, const struct record *r)
{
	char line[128];
	int n = snprintf(line, sizeof(line), "%d %lld %d %lld\n", r->pid, r->start, r->init_pid,
			 r->init_start);

	return pwrite(fd, line, (size_t)n, 0) == n ? 0 : -1;
}

static bool read_record(const char *path, struct record *r)
{
	AT_AUTOFREE char *text = at_read_file(path, 128, NULL);
	char end;

	memset(r, 0, sizeof(*r));
	return text && sscanf(text, "%d %lld %d %lld%c", &r->pid, &r->start, &r->init_pid,
			      &r->init_start, &end) == 5 && end == '\n' && r->pid > 0;
}

/*
 * The records of task whose supervisor is alive (at most max); stale ones
 * are skipped. since (or NULL): when each was written last (its run began).
 */
static size_t live_records_since(const char *dir, const char *task, struct record *out,
				 int64_t *since, size_t max)
{
	struct dirent *de;
	size_t n = 0;
	DIR *d = opendir(dir);

	if (!d)
		return 0;
	while (n < max && (de = readdir(d))) {
		char path[PATH_MAX];

		struct stat st;

		if (is_record_of(de->d_name, task) &&
		    at_fmt(path, sizeof(path), "%s/%s", dir, de->d_name) == 0 &&
		    read_record(path, &out[n]) && at_proc_alive(out[n].pid, out[n].start)) {
			if (since)
				since[n] = stat(path, &st) == 0 ? (int64_t)st.st_mtime : 0;
			n++;
		}
	}
	closedir(d);
	return n;
}

static size_t live_records(const char *dir, const char *task, struct record *out, size_t max)
{
	return live_records_since(dir, task, out, NULL, max);
}

size_t at_runs_live(const struct at_paths *p, const char *task, struct at_runs_live_run *out,
		    size_t max)
{
	struct record r[RECORDS_MAX];
	int64_t since[RECORDS_MAX];
	size_t n, i;

	n = live_records_since(p->runs_dir, task, r, since, max < RECORDS_MAX ? max : RECORDS_MAX);
	for (i = 0; i < n; i++) {
		out[i].pid = r[i].pid;
		out[i].init_pid = r[i].init_pid && at_proc_alive(r[i].init_pid, r[i].init_start)
					  ? r[i].init_pid : 0;
		out[i].since = since[i];
	}
	return n;
}

/* Remove every record of task: only while holding its lock exclusively (none is live). */
static int remove_records(const char *dir, const char *task)
{
	struct dirent *de;
	int removed = 0;
	DIR *d = opendir(dir);

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char path[PATH_MAX];

		if (is_record_of(de->d_name, task) &&
		    at_fmt(path, sizeof(path), "%s/%s", dir, de->d_name) == 0 && unlink(path) == 0)
			removed++;
	}
	closedir(d);
	return removed;
}

/* ---- the lock ---- */

static int open_lock(const struct at_paths *p, const char *task, char *lock, size_t size,
		     char *dir, size_t dsize, struct at_error *err)
{
	int fd;

	if (runs_dir(p, dir, dsize, err) < 0)
		return -1;
	if (at_fmt(lock, size, "%s/%s.lock", dir, task) < 0) {
		at_error_set(err, AT_ESYS, "path too long for the run lock of task '%s'", task);
		return -1;
	}
	fd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	/* The directory is made the first time only. */
	if (fd < 0 && errno == ENOENT && ensure_runs_dir(p, dir, err) == 0)
		fd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 && !at_error_isset(err))
		at_error_sys(err, AT_ESYS, "cannot open '%s'", lock);
	return fd;
}

static int flock_retry(int fd, int how)
{
	int rc;

	while ((rc = flock(fd, how)) < 0 && errno == EINTR)
		;
	return rc;
}

/* Does fd still hold the file at path (a remover may have unlinked it meanwhile)? */
static bool same_file(int fd, const char *path)
{
	struct stat a, b;

	return fstat(fd, &a) == 0 && lstat(path, &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

int at_runs_enter(const struct at_paths *p, const char *task, struct at_run_lock *out,
		  struct at_error *err)
{
	char lock[PATH_MAX], dir[PATH_MAX];
	struct record r = { (int)getpid(), at_proc_self_start(), 0, 0 };
	int fd, tries;

	for (tries = 0; tries < 100; tries++) {
		if ((fd = open_lock(p, task, lock, sizeof(lock), dir, sizeof(dir), err)) < 0)
			return err->code;
		if (flock_retry(fd, LOCK_SH) < 0) {
			close(fd);
			return at_error_sys(err, AT_ESYS, "cannot lock '%s'", lock);
		}
		if (same_file(fd, lock))
			break;
		close(fd);
		fd = -1;
	}
	if (fd < 0)
		return at_error_set(err, AT_ESYS, "cannot lock '%s': it keeps being replaced", lock);
	if (at_fmt(out->record, sizeof(out->record), "%s/%s.%d.run", dir, task, r.pid) < 0 ||
	    (out->record_fd = open(out->record, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
				   O_CLOEXEC, 0600)) < 0 ||
	    write_record(out->record_fd, &r) < 0) {
		at_error_sys(err, AT_ESYS, "cannot record the run in '%s'", dir);
		at_runs_leave(out);
		close(fd);
		return err->code;
	}
	out->fd = fd;
	out->start = r.start;
	return 0;
}

void at_runs_note_init(struct at_run_lock *l, int init_pid)
{
	struct record r = { (int)getpid(), l->start, init_pid, 0 };
	char state;

	if (l->record_fd < 0 || at_proc_stat(init_pid, &r.init_start, &state) < 0)
		return;
	write_record(l->record_fd, &r);
}

void at_runs_leave(struct at_run_lock *l)
{
	if (!l)
		return;
	if (l->record_fd >= 0) {
		unlink(l->record);
		close(l->record_fd);
	}
	l->record_fd = -1;
	l->record[0] = '\0';
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
}

/* ---- stopping runs ---- */

static int busy(struct at_error *err, const char *task, const struct record *r, size_t n,
		const char *how)
{
	if (n == 0)
		return at_error_set(err, AT_EBUSY, "task '%s' has a running command; %s", task, how);
	if (n == 1)
		return at_error_set(err, AT_EBUSY, "task '%s' has a running command (pid %d); %s",
				    task, r[0].pid, how);
	return at_error_set(err, AT_EBUSY, "task '%s' has %zu running commands (pids %d, %d%s); %s",
			    task, n, r[0].pid, r[1].pid, n > 2 ? ", ..." : "", how);
}

struct stopper {
	const char *task;
	int waits[RECORDS_MAX];  /* pidfds of the inits killed: the namespaces to see gone */
	int nwaits;
	int64_t t0;
};

static void keep_pidfd(struct stopper *s, int fd)
{
	if (fd < 0)
		return;
	if (s->nwaits < RECORDS_MAX)
		s->waits[s->nwaits++] = fd;
	else
		close(fd);
}

/* One round: SIGKILL to every live run's init, and its supervisor when due. */
static int kill_round(struct stopper *s, const char *dir, struct at_error *err)
{
	struct record r[RECORDS_MAX];
	size_t i, n = live_records(dir, s->task, r, RECORDS_MAX);
	bool late = at_mono_ms() - s->t0 >= SUPERVISOR_GRACE_MS;
	int fd;

	for (i = 0; i < n; i++) {
		if (r[i].init_pid > 0) {
			if (kill_verified(r[i].init_pid, r[i].init_start, &fd) < 0)
				return at_error_sys(err, AT_ESYS, "cannot stop the running command "
						    "of task '%s' (pid %d)", s->task, r[i].pid);
			keep_pidfd(s, fd);
		}
		if ((r[i].init_pid <= 0 || late) && kill_verified(r[i].pid, r[i].start, NULL) < 0)
			return at_error_sys(err, AT_ESYS, "cannot stop the running command of "
					    "task '%s' (pid %d)", s->task, r[i].pid);
	}
	return 0;
}

/* Wait for every init killed to have exited: its whole pid namespace is gone then. */
static bool namespaces_gone(struct stopper *s, int64_t deadline)
{
	int i;

	for (i = 0; i < s->nwaits; i++) {
		struct pollfd pfd = { s->waits[i], POLLIN, 0 };
		int64_t left = deadline - at_mono_ms();

		if (left <= 0 || poll(&pfd, 1, (int)left) != 1)
			return false;
	}
	return true;
}

static int kill_until_free(struct stopper *s, int fd, const char *dir, struct at_error *err)
{
	int64_t deadline = s->t0 + AT_RUNS_STOP_TIMEOUT_MS;
	struct record r[RECORDS_MAX];
	size_t n;
	int rc;

	for (;;) {
		if ((rc = kill_round(s, dir, err)) < 0)
			return rc;
		if (flock_retry(fd, LOCK_EX | LOCK_NB) == 0)
			break;
		if (errno != EWOULDBLOCK)
			return at_error_sys(err, AT_ESYS, "cannot lock the runs of task '%s'", s->task);
		if (at_mono_ms() >= deadline)
			goto late;
		poll(NULL, 0, POLL_MS);
	}
	if (namespaces_gone(s, deadline))
		return 0;
late:
	n = live_records(dir, s->task, r, RECORDS_MAX);
	busy(err, s->task, r, n, "it did not stop within 10 s");
	return err->code;
}

int at_runs_stop(const struct at_paths *p, const char *task, bool force,
		 struct at_runs_guard *out, struct at_error *err)
{
	struct stopper s = { task, { 0 }, 0, at_mono_ms() };
	char lock[PATH_MAX], dir[PATH_MAX];
	struct record r[RECORDS_MAX];
	int fd, rc = 0, i;

	if ((fd = open_lock(p, task, lock, sizeof(lock), dir, sizeof(dir), err)) < 0)
		return err->code;
	if (flock_retry(fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno != EWOULDBLOCK)
			rc = at_error_sys(err, AT_ESYS, "cannot lock '%s'", lock);
		else if (!force)
			rc = busy(err, task, r, live_records(dir, task, r, RECORDS_MAX),
				  "stop it or use --force");
		else
			rc = kill_until_free(&s, fd, dir, err);
	}
	for (i = 0; i < s.nwaits; i++)
		close(s.waits[i]);
	if (rc < 0) {
		close(fd);
		return rc;
	}
	/* Held exclusively: every record left is of a run that is over. */
	remove_records(dir, task);
	out->fd = fd;
	memcpy(out->lock, lock, sizeof(lock));
	return 0;
}

void at_runs_release(struct at_runs_guard *g, bool task_gone)
{
	if (!g || g->fd < 0)
		return;
	/* Unlinked while held: a run waiting on it sees it replaced, and looks again. */
	if (task_gone && g->lock[0])
		unlink(g->lock);
	close(g->fd);
	g->fd = -1;
}

int at_runs_sweep(const struct at_paths *p)
{
	struct at_error err = AT_ERROR_INIT;
	char dir[PATH_MAX];
	struct dirent *de;
	int removed = 0;
	DIR *d;

	if (runs_dir(p, dir, sizeof(dir), &err) < 0 || !(d = opendir(dir)))
		return 0;
	while ((de = readdir(d))) {
		char task[NAME_MAX + 1], lock[PATH_MAX], record[PATH_MAX];
		size_t len = strlen(de->d_name);
		int fd;

		if (len <= 5 || len - 5 >= sizeof(task) || strcmp(de->d_name + len - 5, ".lock") != 0)
			continue;
		memcpy(task, de->d_name, len - 5);
		task[len - 5] = '\0';
		if (at_fmt(lock, sizeof(lock), "%s/%s", dir, de->d_name) < 0 ||
		    at_paths_record(p, task, record, sizeof(record), NULL) < 0 ||
		    (fd = open(lock, O_RDWR | O_NOFOLLOW | O_CLOEXEC)) < 0)
			continue;
		if (flock_retry(fd, LOCK_EX | LOCK_NB) == 0) {
			removed += remove_records(dir, task);
			if (!at_path_exists(record) && unlink(lock) == 0)
				removed++;
		}
		close(fd);
	}
	closedir(d);
	return removed;
}
