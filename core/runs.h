/*
 * runs.h - a task's running commands, and stopping them before the task goes.
 *
 * `agenttask run` holds <state>/runs/NAME.lock flock'd shared for its whole
 * length (at_runs_enter, before it looks the task up) and records itself in
 * <state>/runs/NAME.PID.run: its pid and start time, then those of the
 * sandbox's init once it is cloned (at_runs_note_init). The init inherits
 * the descriptor and never execs, so the lock is held until both are gone;
 * the command itself never has it (close-on-exec). The state directory is
 * hidden from the sandbox: the command cannot touch the lock or the records.
 *
 * The commands that remove a task (discard, accept, gc) call at_runs_stop
 * under the repository lock, before they change anything: it takes the lock
 * exclusively without blocking and holds it until at_runs_release, after the
 * task is gone. No command of the task runs meanwhile and none starts: a run
 * that was waiting for the lock finds the task gone once it has it. When
 * runs hold the lock, at_runs_stop refuses (AT_EBUSY, naming their pids), or
 * with force kills each run's init (the kernel then kills its whole pid
 * namespace), and its supervisor too when the init is not recorded or the
 * supervisor still holds the lock after a grace period. Every process is
 * signalled through a pidfd opened on a pid whose start time is the
 * recorded one, so a recycled pid is never signalled. It then waits, for at
 * most AT_RUNS_STOP_TIMEOUT_MS, until the lock is free and every init it
 * killed has exited, which the kernel allows only once every process of its
 * namespace is gone: nothing of the run can race the removal that follows.
 *
 * Pids are the host's (the pid namespace agenttask runs in): a run started
 * from another pid namespace is seen as running but cannot be stopped.
 */
#ifndef AT_CORE_RUNS_H
#define AT_CORE_RUNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/task.h"

#define AT_RUNS_STOP_TIMEOUT_MS 10000

/* Held by a run for its whole length. */
struct at_run_lock {
	int fd;                  /* the lock, flock'd shared; -1 when not held */
	int record_fd;           /* this run's record, open for its update; -1 when none */
	char record[PATH_MAX];
	long long start;         /* this process's start time, as recorded */
};
#define AT_RUN_LOCK_INIT { -1, -1, "", 0 }

/*
 * Take task's run lock shared, waiting while a remover holds it, and record
 * this process as a run of the task. The caller then looks the task up: a
 * remover may have removed it while this waited.
 */
int at_runs_enter(const struct at_paths *p, const char *task, struct at_run_lock *out,
		  struct at_error *err);

/* Record the sandbox's init (its pid in this process's namespace); best effort. */
void at_runs_note_init(struct at_run_lock *l, int init_pid);

/* Remove the record and drop the lock; accepts a lock never taken. */
void at_runs_leave(struct at_run_lock *l);

/* Held by a remover from at_runs_stop until the task is gone. */
struct at_runs_guard {
	int fd;                  /* the lock, flock'd exclusive; -1 when not held */
	char lock[PATH_MAX];
};
#define AT_RUNS_GUARD_INIT { -1, "" }

/*
 * Make sure no command of task runs, and none starts until at_runs_release.
 * Without force: AT_EBUSY ("task 'x' has a running command (pid N); stop it
 * or use --force") when one runs. With force: kill them as described above;
 * AT_EBUSY when they are not gone within AT_RUNS_STOP_TIMEOUT_MS, AT_ESYS
 * when one cannot be signalled. The caller holds the repository lock.
 */
int at_runs_stop(const struct at_paths *p, const char *task, bool force,
		 struct at_runs_guard *out, struct at_error *err);

/* A live run of a task, as a reader (list) sees it. */
struct at_runs_live_run {
	int pid;                 /* its agenttask (the supervisor) */
	int init_pid;            /* the sandbox's init, when it lives; 0 otherwise */
	int64_t since;           /* when its record was written (the run's start), epoch seconds */
};

/* The task's live runs, at most max, into out; how many. Takes no lock, changes nothing. */
size_t at_runs_live(const struct at_paths *p, const char *task, struct at_runs_live_run *out,
		    size_t max);

/* Let runs start again; with task_gone, the lock file goes too. Accepts an unheld guard. */
void at_runs_release(struct at_runs_guard *g, bool task_gone);

/*
 * What runs killed with SIGKILL left: records of runs that are over, and
 * the lock files of tasks that no longer exist. The caller holds the
 * repository lock. Best effort: returns how many files went.
 */
int at_runs_sweep(const struct at_paths *p);

#endif
