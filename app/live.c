/*
 * live.c - what each task is doing now, polled cheaply (app/live.h).
 */
#include "app/live.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/internal.h"
#include "core/array.h"
#include "core/audit.h"
#include "core/runs.h"
#include "core/state.h"
#include "core/util.h"
#include "git/diff.h"
#include "sandbox/usage.h"
#include "sandbox/waiting.h"

#define LIVE_RUNS_MAX 16

static const char *const state_names[] = { "idle", "running", "waiting", "exited" };

const char *at_live_state_name(enum at_live_state s)
{
	return state_names[s];
}

/* What is kept of a task between polls, and the keys that say when to look again. */
struct cached {
	char name[AT_NAME_MAX + 1];
	int64_t log_key[2];              /* the log's mtime (ns) and size */
	int64_t change_key[4];           /* + the worktree's ctime, the admin dir's mtime */
	bool has_log, has_change_key;
	struct at_app_live from_log;     /* has_exit, exit_*, has_gate, gate_* */
	struct at_app_live change;       /* has_change, files, additions, deletions */
	struct at_error change_err;
};

struct at_app_watch {
	struct at_repo *r;
	bool changes;
	struct cached *c;
	size_t nc, capc;
	struct at_app_watch_entry *v;
	size_t n, cap;
};

static int64_t stat_key(const char *path, bool ctime, int64_t *size)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return -1;
	if (size)
		*size = (int64_t)st.st_size;
	if (ctime)
		return (int64_t)st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec;
	return (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
}

/* The last run that ended and the gate's last verdict, from the task's log. */
static void read_log(const struct at_paths *p, const char *task, struct at_app_live *out)
{
	struct at_error ignored = AT_ERROR_INIT;
	at_json *entries = NULL;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (at_audit_read(p, task, &entries, &ignored) < 0)
		return;
	for (i = 0; i < at_json_size(entries); i++) {
		const at_json *e = at_json_at(entries, i);
		const char *ev = at_json_get_string(e, "event");
		double code = 0;
		bool passed = false;
		int64_t t = 0;

		if (!ev || !at_audit_entry_time(e, &t))
			continue;
		if (strcmp(ev, "run") == 0 && at_json_get_number(e, "exit_code", &code)) {
			out->has_exit = true;
			out->exit_code = (int)code;
			out->exited_at = t;
		} else if (strcmp(ev, "gate") == 0 && at_json_get_bool(e, "passed", &passed)) {
			out->has_gate = true;
			out->gate_passed = passed;
			out->gate_at = t;
		}
	}
	at_json_free(entries);
}

/* The task's change against its merge base: one scan, one diff. */
static int work_out_change(struct at_repo *r, const struct at_task *t, struct at_app_live *out,
			   struct at_error *err)
{
	const struct at_change_set *cs;
	const struct at_task_state *st;
	struct at_diff *d = NULL;
	struct at_app_view v;
	int rc;

	at_app_view_init(&v, r, t);
	rc = at_app_view_state(&v, &st, err);
	if (rc == 0 && !v.w)
		rc = at_task_worktree_gone(t, err);
	if (rc == 0)
		rc = at_diff_open_state(&d, r, v.w, st, err);
	if (rc == 0)
		rc = at_diff_changes(d, &cs, err);
	if (rc == 0) {
		out->has_change = true;
		out->files = cs->nfiles;
		out->additions = cs->additions;
		out->deletions = cs->deletions;
	}
	at_diff_free(d);
	at_app_view_release(&v);
	return rc;
}

/* A live run's command: its agenttask's arguments after "--", joined by spaces. */
static void run_command(int pid, char *buf, size_t size)
{
	char path[64], text[4096];
	AT_AUTOCLOSE int fd = -1;
	ssize_t n;
	size_t i, len = 0, start = 0;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 || (n = read(fd, text, sizeof(text) - 1)) <= 0)
		return;
	text[n] = '\0';
	for (i = 0; i < (size_t)n; i += strlen(text + i) + 1)
		if (strcmp(text + i, "--") == 0) {
			start = i + 3;
			break;
		}
	for (i = start; i < (size_t)n && len + 1 < size; i++)
		buf[len++] = text[i] ? text[i] : ' ';
	while (len > 0 && buf[len - 1] == ' ')
		len--;
	buf[len] = '\0';
}

/* Its live runs (the newest shown), their use and whether one waits; its ports. */
static void poll_runs(const struct at_paths *p, const char *task, struct at_app_live *out)
{
	struct at_runs_live_run runs[LIVE_RUNS_MAX];
	struct at_error ignored = AT_ERROR_INIT;
	struct at_ports_live *pl = NULL;
	struct at_sandbox_usage u;
	size_t n, i, j, newest = 0, np = 0;

	n = at_runs_live(p, task, runs, LIVE_RUNS_MAX);
	out->nruns = n;
	for (i = 1; i < n; i++)
		if (runs[i].since > runs[newest].since)
			newest = i;
	if (n > 0) {
		out->state = AT_LIVE_RUNNING;
		out->pid = runs[newest].pid;
		out->since = runs[newest].since;
		run_command(runs[newest].pid, out->command, sizeof(out->command));
		for (i = 0; i < n; i++)
			if (at_sandbox_waiting_for_input(runs[i].init_pid))
				out->state = AT_LIVE_WAITING;
		if (at_sandbox_run_usage(runs[newest].init_pid, &u)) {
			out->has_usage = true;
			out->cpu_ms = u.cpu_ms;
			out->memory_bytes = u.memory_bytes;
			out->usage_source = u.source;
		}
	}
	if (at_ports_live_list(p, task, &pl, &np, &ignored) < 0)
		return;
	for (i = 0; i < np; i++)
		for (j = 0; j < pl[i].n && out->nports < AT_PORTS_MAX; j++)
			out->ports[out->nports++] = pl[i].map[j];
	free(pl);
}

static struct cached *cache_of(struct at_app_watch *w, const char *name)
{
	size_t i;

	for (i = 0; i < w->nc; i++)
		if (strcmp(w->c[i].name, name) == 0)
			return &w->c[i];
	if (AT_ARRAY_GROW(w->c, w->capc, w->nc + 1) < 0)
		return NULL;
	memset(&w->c[w->nc], 0, sizeof(w->c[w->nc]));
	memcpy(w->c[w->nc].name, name, strlen(name) + 1);
	return &w->c[w->nc++];
}

/* The log read again, and the change worked out again, only when their keys moved. */
static void refresh_cached(struct at_app_watch *w, const struct at_task *t, struct cached *c)
{
	const struct at_paths *p = at_repo_paths(w->r);
	char path[PATH_MAX];
	int64_t key[4] = { -1, -1, -1, -1 };

	if (at_paths_log(p, t->name, path, sizeof(path), NULL) == 0)
		key[0] = stat_key(path, false, &key[1]);
	if (!c->has_log || key[0] != c->log_key[0] || key[1] != c->log_key[1]) {
		read_log(p, t->name, &c->from_log);
		c->log_key[0] = key[0];
		c->log_key[1] = key[1];
		c->has_log = true;
	}
	if (!w->changes)
		return;
	key[2] = stat_key(t->path, true, NULL);
	if (at_paths_admin(p, t->worktree_name, path, sizeof(path), NULL) == 0)
		key[3] = stat_key(path, false, NULL);
	if (c->has_change_key && memcmp(key, c->change_key, sizeof(key)) == 0)
		return;
	memset(&c->change, 0, sizeof(c->change));
	c->change_err = (struct at_error)AT_ERROR_INIT;
	work_out_change(w->r, t, &c->change, &c->change_err);
	memcpy(c->change_key, key, sizeof(key));
	c->has_change_key = true;
}

static int poll_task(struct at_app_watch *w, const struct at_task *t, struct at_error *err)
{
	struct at_app_watch_entry *e;
	struct cached *c;

	if (!(c = cache_of(w, t->name)) || AT_ARRAY_GROW(w->v, w->cap, w->n + 1) < 0)
		return at_error_set(err, AT_ESYS, "out of memory");
	e = &w->v[w->n++];
	memset(e, 0, sizeof(*e));
	e->task = *t;
	refresh_cached(w, t, c);
	e->live = c->from_log;
	e->live.has_change = c->change.has_change;
	e->live.files = c->change.files;
	e->live.additions = c->change.additions;
	e->live.deletions = c->change.deletions;
	e->err = c->change_err;
	e->live.state = e->live.has_exit ? AT_LIVE_EXITED : AT_LIVE_IDLE;
	poll_runs(at_repo_paths(w->r), t->name, &e->live);
	return 0;
}

int at_app_watch_open(const struct at_app *app, bool changes, struct at_app_watch **out,
		      struct at_error *err)
{
	struct at_app_watch *w = calloc(1, sizeof(*w));
	int rc;

	if (!w)
		return at_error_set(err, AT_ESYS, "out of memory");
	w->changes = changes;
	if ((rc = at_app_open(app, &w->r, err)) < 0) {
		at_app_watch_free(w);
		return rc;
	}
	*out = w;
	return 0;
}

int at_app_watch_poll(struct at_app_watch *w, const struct at_app_watch_entry **out, size_t *n,
		      struct at_error *err)
{
	struct at_task_list l;
	size_t i;
	int rc;

	memset(&l, 0, sizeof(l));
	w->n = 0;
	if ((rc = at_state_list(at_repo_paths(w->r), &l, err)) < 0)
		return rc;
	for (i = 0; rc == 0 && i < l.count; i++)
		if (l.tasks[i].phase == AT_TASK_READY)
			rc = poll_task(w, &l.tasks[i], err);
	at_task_list_release(&l);
	if (rc < 0)
		return rc;
	*out = w->v;
	*n = w->n;
	return 0;
}

void at_app_watch_free(struct at_app_watch *w)
{
	if (!w)
		return;
	at_repo_free(w->r);
	free(w->c);
	free(w->v);
	free(w);
}
