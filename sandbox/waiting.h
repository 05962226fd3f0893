/*
 * waiting.h - is an interactive run waiting for its person?
 *
 * One question, asked from the host by whoever watches a run: `run --notify`
 * (its supervisor) and `list --watch` (any process of the same user). It
 * needs only the sandbox's init as the host sees it (core/runs.h records it)
 * and reads procfs; it neither stops nor touches anything.
 *
 * A run waits for input when, among the init's descendants, the foreground
 * process group of their terminal (stat's pgrp == tpgid, on a terminal) is
 * all asleep (state S: none running, none in uninterruptible sleep, none
 * stopped) and one of them sleeps where a read of a terminal sleeps:
 * n_tty_read, tty_read, or wait_woken (where n_tty_read waits on current
 * kernels), or in select/poll (bash's readline, Python's input). A shell
 * waiting for `sleep 10` has `sleep` in front, in hrtimer_nanosleep: not
 * waiting. A program in epoll_wait (node's REPL, a dev server) is not taken
 * for one that waits: it cannot be told from one that serves. A caller that
 * relays the terminal may also ask that no output came for a while; one
 * that polls may ask twice in a row: a read between two keystrokes is
 * short.
 *
 * The kernel shows wchan to a process that may read the target's memory
 * maps (PTRACE_MODE_READ): the run's user or root. Where it is hidden
 * ("0"), the answer is false: never a guess.
 */
#ifndef AT_SANDBOX_WAITING_H
#define AT_SANDBOX_WAITING_H

#include <stdbool.h>

/* At most this many of the init's descendants are looked at. */
#define AT_SANDBOX_WAITING_MAX_PROCS 4096

/* Is the run whose sandbox's init is init_pid (a host pid) waiting for input? */
bool at_sandbox_waiting_for_input(int init_pid);

/* Does a /proc/PID/wchan text name a place where a read of a terminal sleeps? For the tests. */
bool at_sandbox_waiting_wchan(const char *wchan);

#endif
