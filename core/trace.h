/*
 * trace.h - a record of the expensive steps a command took, for tests.
 *
 * When the environment variable AGENTTASK_TRACE names a file, at_trace()
 * appends one line "EVENT DETAIL" to it (O_APPEND, one write: lines from
 * threads or processes never interleave); otherwise it does nothing but a
 * getenv(). The events:
 *
 *   open PATH   a task's (or scratch) worktree opened as a repository
 *   scan PATH   the worktree at PATH walked in full (the scan, libgit2's
 *               index-to-workdir diff, or its status)
 *
 * Tests count them (tests/integration/accept.sh counts accept's scans): the
 * trace is written by the functions that do the work, where they do it, so
 * a new caller cannot add a scan the count misses, and it needs no strace
 * (threads, descriptor-relative opens) to see. Not a log: nothing reads it
 * back, and a failure to write it is ignored.
 */
#ifndef AT_CORE_TRACE_H
#define AT_CORE_TRACE_H

#define AT_TRACE_ENV "AGENTTASK_TRACE"

void at_trace(const char *event, const char *detail);

#endif
