/*
 * progress.h - how a long use case says how far it has got.
 *
 * The options of new, discard, gc, the gate and run carry a hook; a front end
 * that wants progress (a terminal's status line, an MCP progress
 * notification) sets fn, the others leave it NULL. The hook is called in the
 * caller's thread, between steps, never from a worker thread or a signal
 * handler; what = a short phrase ("checking out", "check 2 of 5: tests"),
 * done of total steps (total 0: unknown), and bytes so far where the step
 * copies them (0: none to tell).
 */
#ifndef AT_CORE_PROGRESS_H
#define AT_CORE_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

struct at_progress {
	const char *what;
	size_t done;
	size_t total;
	uint64_t bytes;
};

typedef void (*at_progress_fn)(const struct at_progress *p, void *payload);

struct at_progress_hook {
	at_progress_fn fn;      /* NULL: nobody is listening */
	void *payload;
};

static inline void at_progress_say_bytes(const struct at_progress_hook *h, const char *what,
					 size_t done, size_t total, uint64_t bytes)
{
	struct at_progress p = { what, done, total, bytes };

	if (h && h->fn)
		h->fn(&p, h->payload);
}

static inline void at_progress_say(const struct at_progress_hook *h, const char *what,
				   size_t done, size_t total)
{
	at_progress_say_bytes(h, what, done, total, 0);
}

#endif
