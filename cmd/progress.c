/*
 * progress.c - progress on a terminal, as git shows it.
 *
 * One line on stderr, redrawn in place: "Updating files:  42% (6300/15000)",
 * a count without a total and the bytes so far ("Copying included files:
 * 120, 3.50 MiB"), or for a step without a count its time so far ("check 2 of 3: tests, 12 s",
 * redrawn every second by a ticker thread while the step runs). A step that
 * ends gets ", done." and a new line. Shown only when stderr is a terminal
 * and --quiet was not given, and only once the command has run for a second
 * (git waits too), so quick commands print nothing.
 *
 * The hook may be called with the repository lock held, so nothing here may
 * block: a line the terminal does not take at once (a stopped terminal, ^S)
 * is dropped, never waited for.
 */
#include "cmd/progress.h"

#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"

#define DELAY_MS 1000   /* nothing is shown before the command has run this long */
#define TICK_MS 1000    /* the time of a step without a count is redrawn this often */

/* AGENTTASK_PROGRESS_DELAY_MS: the tests' way to see progress of quick work. */
static uint64_t delay_ms(void)
{
	const char *s = getenv("AGENTTASK_PROGRESS_DELAY_MS");
	char *end;
	unsigned long v;

	if (!s || !*s)
		return DELAY_MS;
	v = strtoul(s, &end, 10);
	return *end ? DELAY_MS : (uint64_t)v;
}

/* Whatever the terminal takes at once; the rest is dropped (see above). */
static void put(const char *s, size_t n)
{
	struct pollfd pfd = { STDERR_FILENO, POLLOUT, 0 };
	ssize_t w;

	while (n > 0 && poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLOUT)) {
		if ((w = write(STDERR_FILENO, s, n)) <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

void at_cli_human_bytes(char *buf, size_t size, uint64_t n)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB" };
	double v = (double)n;
	int u = -1;

	if (n < 1024) {
		snprintf(buf, size, "%llu bytes", (unsigned long long)n);
		return;
	}
	while (v >= 1024 && u < 3) {
		v /= 1024;
		u++;
	}
	snprintf(buf, size, "%.2f %s", v, unit[u]);
}

/* The current line, ending in end ("\r" while it runs, ", done.\n" after); under p->lock. */
static void draw(struct at_cli_progress *p, const char *end)
{
	char line[256], size[32];
	uint64_t t = (uint64_t)at_mono_ms();
	int n;

	if (!p->what[0] || t < p->start_ms + p->delay_ms)
		return;
	if (p->bytes)
		at_cli_human_bytes(size, sizeof(size), p->bytes);
	if (p->total)
		n = snprintf(line, sizeof(line), "%s: %3u%% (%zu/%zu)", p->what,
			     (unsigned)(p->done * 100 / p->total), p->done, p->total);
	else if (p->bytes)
		n = snprintf(line, sizeof(line), "%s: %zu, %s", p->what, p->done, size);
	else if (t >= p->step_ms + TICK_MS)
		n = snprintf(line, sizeof(line), "%s, %llu s", p->what,
			     (unsigned long long)((t - p->step_ms) / 1000));
	else
		n = snprintf(line, sizeof(line), "%s", p->what);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(line))
		n = (int)sizeof(line) - 1;
	/* Blank what is left of a longer line drawn before. */
	snprintf(line + n, sizeof(line) - (size_t)n, "%*s%s", p->len > n ? p->len - n : 0, "",
		 end);
	put(line, strlen(line));
	p->len = end[0] == '\r' ? n : 0;
	p->shown = end[0] == '\r';
}

static void *tick(void *arg)
{
	struct at_cli_progress *p = arg;
	struct timespec until;

	pthread_mutex_lock(&p->lock);
	while (!p->stop) {
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 1;
		pthread_cond_timedwait(&p->wake, &p->lock, &until);
		if (!p->stop && !p->total)
			draw(p, "\r");
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/*
 * The ticker takes no signal: the sandbox's supervisor waits for SIGCHLD on
 * a signalfd, which sees only signals that every thread blocks. Started with
 * all of them blocked, it inherits that mask.
 */
static bool start_ticker(struct at_cli_progress *p)
{
	sigset_t all, old;
	bool ok;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ok = pthread_create(&p->ticker, NULL, tick, p) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ok;
}

static void on_progress(const struct at_progress *pr, void *payload)
{
	struct at_cli_progress *p = payload;

	pthread_mutex_lock(&p->lock);
	if (strncmp(p->what, pr->what, sizeof(p->what) - 1) != 0) {
		/* A new step: the last one is done. */
		if (p->shown)
			draw(p, ", done.\n");
		snprintf(p->what, sizeof(p->what), "%s", pr->what);
		p->step_ms = (uint64_t)at_mono_ms();
		p->len = 0;
	}
	/* A counted step is redrawn when its percentage moves, as git's is. */
	if (!pr->total || !p->total || pr->done * 100 / pr->total != p->done * 100 / p->total ||
	    !p->shown) {
		p->done = pr->done;
		p->total = pr->total;
		p->bytes = pr->bytes;
		draw(p, "\r");
	}
	p->done = pr->done;
	p->total = pr->total;
	p->bytes = pr->bytes;
	if (!p->ticking && !p->total)
		p->ticking = start_ticker(p);
	pthread_mutex_unlock(&p->lock);
}

void at_cli_progress_init(struct at_cli_progress *p, bool quiet)
{
	memset(p, 0, sizeof(*p));
	p->on = !quiet && isatty(STDERR_FILENO);
	p->start_ms = (uint64_t)at_mono_ms();
	p->delay_ms = delay_ms();
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->wake, NULL);
}

struct at_progress_hook at_cli_progress_hook(struct at_cli_progress *p)
{
	struct at_progress_hook h = { p->on ? on_progress : NULL, p };

	return h;
}

void at_cli_progress_end(struct at_cli_progress *p, bool ok)
{
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_signal(&p->wake);
	/* After a failure the line stays as it was: the error follows on a line of its own. */
	if (p->shown)
		draw(p, ok ? ", done.\n" : "\n");
	pthread_mutex_unlock(&p->lock);
	if (p->ticking)
		pthread_join(p->ticker, NULL);
	p->ticking = false;
	pthread_cond_destroy(&p->wake);
	pthread_mutex_destroy(&p->lock);
}
