/*
 * proc.h - a process named by its pid and its start time, so that a pid
 * recycled by the kernel is never taken for the process that had it.
 */
#ifndef AT_CORE_PROC_H
#define AT_CORE_PROC_H

#include <stdbool.h>

/*
 * The start time of pid (clock ticks after boot, /proc/PID/stat field 22)
 * and its state letter ('Z' for a zombie); 0, or -1 when there is no such
 * process in this process's pid namespace.
 */
int at_proc_stat(int pid, long long *start, char *state);

/* This process's start time (0 when /proc cannot tell). */
long long at_proc_self_start(void);

/* Is the process that started at `start` still pid, and not a zombie? */
bool at_proc_alive(int pid, long long start);

#endif
