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

#include <stdint.h>
#include <stdbool.h>

#define AT_TRACE_ENV "AGENTTASK_TRACE"
#define AT_KILL_AT_ENV "AGENTTASK_TEST_KILL_AT"

void at_trace(const char *event, const char *detail);

/*
 * The crash tests' kill switch: when AGENTTASK_TEST_KILL_AT names STEP,
 * at_test_kill_point(STEP) kills the process with SIGKILL right there. A
 * test of "a kill midway leaves the repository as it was, or something gc
 * removes" then kills at a named step, the same on every machine, fast or
 * loaded, where it once had to guess a delay. Otherwise it costs a getenv().
 * The steps, in the order a command passes them:
 *
 *   new:record        `new`: the CREATING record written, nothing else
 *   new:branch        the task's branch made
 *   new:worktree      the worktree registered, its directory still empty
 *   new:directories   the fresh checkout's directories made, no file yet
 *   new:files         every file written, the index not yet
 *   new:ready         the worktree complete, the record still CREATING
 *   remove:renamed    a task's removal: its worktree renamed aside, whole
 *   import:quarantine a run's commits being imported: the quarantine open
 *   import:objects    every object written, the branch not yet moved
 *   gate:scratch      a check's scratch worktree made, the check not run
 *   repair:import     `repair`: the import tried, the task's git layer as it was
 *   repair:aside      `repair`: the task's git layer renamed aside (the view
 *                     is the host's), the record of the agreed commit and
 *                     the log not yet written
 *   accept:part-index a partial accept: the part committed on the merge base
 *                     and the task's index made the part, its branch not moved
 *   accept:part-branch the task's branch moved to the part, the base not yet
 *   drop:saved        `drop`: the full state in the trash, no file written
 *   trash:kept        a save in the trash (discard, accept, gc): the task's
 *                     checkpoints and review kept, the entry not yet made
 *   restore:kept      `restore`: the checkpoints and review given back, the
 *                     record still CREATING
 *   restore:ready     the record ready, the entry not yet deleted
 *   trash:dropped     an entry deleted, what it kept not yet
 *   fork:files        `fork`: NEW half-made at NAME's tip, NAME's uncommitted
 *                     files written over it
 *   fork:home         NAME's HOME copied, its git view not yet
 *   fork:git          the git view copied, the record still CREATING
 *   rewind:saved      `rewind`: the state it replaces kept as a checkpoint
 *   rewind:record     its record written, nothing of the worktree touched
 *   apply:removed     (accept's and rewind's apply_paths) deletions done
 *   apply:written     every file written, the index not yet
 *   rewind:index      the index written, the branch not yet moved
 *   rewind:view       the git view reset, the record not yet removed
 */
void at_test_kill_point(const char *step);

/*
 * The tests' clock: the seconds since the epoch in AGENTTASK_TEST_NOW when
 * it holds a number, else time(NULL). Read where an age is judged against
 * now (gc --max-age), so that a test moves time forward instead of waiting
 * days or editing records.
 */
#define AT_TEST_NOW_ENV "AGENTTASK_TEST_NOW"
int64_t at_test_now(void);

/*
 * bench/checkpoint.sh's baseline: with AGENTTASK_TEST_NO_CHECKPOINT set, a
 * run takes no checkpoint (as before issue 26), so that the cost of one can
 * be measured against the same run without it. Nothing else reads it.
 */
bool at_test_no_checkpoint(void);

/*
 * AGENTTASK_TEST_FORM=layered|full: the form `new` makes when neither
 * --layered nor --full is given, over the person's agenttask.layered, so
 * that the test suites run on both forms (core/task.h). -1 when unset (or
 * anything else), else an enum at_task_form.
 */
#define AT_TEST_FORM_ENV "AGENTTASK_TEST_FORM"
int at_test_form(void);

#endif
