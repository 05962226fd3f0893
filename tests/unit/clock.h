/*
 * clock.h - a test's own wall clock, for the unit tests of caches that trust
 * only what had not changed some time before they recorded it (git's racy
 * timestamps: gitfmt/dircache.h, the /etc listings of sandbox/etc.c).
 *
 * Link the test with -Wl,--wrap=clock_gettime and include this header in
 * exactly one of its files. Then clock_settle() makes time pass at once,
 * where such a test once slept through the window; clock_reset() gives the
 * real time back. Clocks other than CLOCK_REALTIME are left alone.
 */
#ifndef AT_TESTS_UNIT_CLOCK_H
#define AT_TESTS_UNIT_CLOCK_H

#include <sched.h>
#include <stdbool.h>
#include <time.h>

static bool clock_stopped;
static struct timespec clock_at;

int __real_clock_gettime(clockid_t clk, struct timespec *ts);

int __wrap_clock_gettime(clockid_t clk, struct timespec *ts);
int __wrap_clock_gettime(clockid_t clk, struct timespec *ts)
{
	if (clk == CLOCK_REALTIME && clock_stopped) {
		*ts = clock_at;
		return 0;
	}
	return __real_clock_gettime(clk, ts);
}

/* The real time again: at the start of each test. */
static inline void clock_reset(void)
{
	clock_stopped = false;
}

/*
 * WINDOW seconds pass after everything the test did so far, and no more
 * until the next call. It waits until the kernel's coarse clock (the one
 * that stamps most of files' times) reads T, past the precise time now:
 * every change made so far is stamped before T, even one given a precise
 * stamp (since Linux 6.13 a file whose times were just read gets the
 * precise time, which runs up to a tick ahead of the coarse clock), and
 * every change made next at T or later. Then it stops the wall clock at
 * T + WINDOW. A cache that trusts what changed more than WINDOW before it
 * looked then trusts all that came before, and nothing that comes after.
 */
static inline void clock_settle(time_t window)
{
	struct timespec now, n;

	__real_clock_gettime(CLOCK_REALTIME, &now);
	do {
		sched_yield();
		__real_clock_gettime(CLOCK_REALTIME_COARSE, &n);
	} while (n.tv_sec < now.tv_sec || (n.tv_sec == now.tv_sec && n.tv_nsec <= now.tv_nsec));
	clock_at = n;
	clock_at.tv_sec += window;
	clock_stopped = true;
}

#endif
