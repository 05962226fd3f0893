/*
 * waiting.c - is an interactive run waiting for its person? (waiting.h)
 *
 * The init's descendants are found through /proc/PID/task/TID/children
 * (every thread's: a child made by a thread is listed under that thread),
 * breadth first, at most AT_SANDBOX_WAITING_MAX_PROCS of them.
 */
#include "sandbox/waiting.h"
#include "sandbox/internal.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool at_sandbox_waiting_wchan(const char *w)
{
	static const char *const reads[] = {
		"n_tty_read", "tty_read", "wait_woken", "do_select", "core_sys_select",
		"do_sys_poll", "poll_schedule_timeout",
	};

	for (size_t i = 0; i < sizeof(reads) / sizeof(reads[0]); i++)
		if (strcmp(w, reads[i]) == 0)
			return true;
	return false;
}

struct proc_stat {
	char state;
	int pgrp, tty_nr, tpgid;
};

/* /proc/PID/stat's fields after the command's name (which may hold anything, ')' too). */
static bool read_stat(int pid, struct proc_stat *st)
{
	char path[64], text[1024], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (at_sb_read_proc(path, text, sizeof(text)) < 0 || !(p = strrchr(text, ')')))
		return false;
	/* state ppid pgrp session tty_nr tpgid */
	return sscanf(p + 1, " %c %*d %d %*d %d %d", &st->state, &st->pgrp, &st->tty_nr,
		      &st->tpgid) == 4;
}

static bool reads_terminal(int pid)
{
	char path[64], wchan[128];

	snprintf(path, sizeof(path), "/proc/%d/wchan", pid);
	if (at_sb_read_proc(path, wchan, sizeof(wchan)) < 0)
		return false;
	wchan[strcspn(wchan, "\n")] = '\0';
	return at_sandbox_waiting_wchan(wchan);
}

/* Append pid's children (of every thread) to v[*n], up to max (sandbox/internal.h). */
void at_sb_add_children(int pid, int *v, size_t *n, size_t max)
{
	char path[64], text[4096];
	struct dirent *d;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	if (!(dir = opendir(path)))
		return;
	while ((d = readdir(dir)) && *n < max) {
		char *p, *end;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/children", pid, d->d_name);
		if (at_sb_read_proc(path, text, sizeof(text)) < 0)
			continue;
		for (p = text; *n < max; p = end) {
			long c = strtol(p, &end, 10);
			if (end == p || c <= 0)
				break;
			v[(*n)++] = (int)c;
		}
	}
	closedir(dir);
}

bool at_sandbox_waiting_for_input(int init_pid)
{
	int *v = malloc(sizeof(int) * AT_SANDBOX_WAITING_MAX_PROCS);
	size_t n = 0, i, front = 0;
	bool reading = false, busy = false;
	struct proc_stat st;

	if (!v || init_pid <= 0) {
		free(v);
		return false;
	}
	at_sb_add_children(init_pid, v, &n, AT_SANDBOX_WAITING_MAX_PROCS);
	for (i = 0; i < n && !busy; i++) {
		at_sb_add_children(v[i], v, &n, AT_SANDBOX_WAITING_MAX_PROCS);
		if (!read_stat(v[i], &st) || st.tty_nr == 0 || st.pgrp != st.tpgid)
			continue;
		front++;
		if (st.state != 'S')
			busy = true;
		else if (!reading)
			reading = reads_terminal(v[i]);
	}
	free(v);
	return front > 0 && !busy && reading;
}
