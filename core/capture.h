/*
 * capture.h - a command's output kept within a cap: its head and its tail.
 *
 * A test run's summary comes last, so when a stream is longer than the cap
 * the first half of the cap is kept from the start and the second half from
 * the end (a ring), and what lies between is counted, not kept. Taking the
 * result joins them with a one-line marker that says how many bytes were
 * dropped, and never cuts a UTF-8 character in two: a partial character at
 * either cut is dropped (and counted) with the rest. Every byte else is kept
 * as it came, NUL and invalid UTF-8 included.
 *
 * Memory grows with what is kept, never past the cap; a failed allocation
 * only drops (and counts) more. The capture owns its buffers until taken.
 */
#ifndef AT_CORE_CAPTURE_H
#define AT_CORE_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct at_capture {
	size_t max;               /* bytes kept at most (marker aside) */
	char *head;
	size_t head_len, head_cap;
	char *ring;               /* the last max - max/2 bytes once the head is full */
	size_t ring_size, ring_pos, ring_len;
	uint64_t total;           /* bytes seen */
};

/* max 0 keeps nothing (everything is counted as dropped). */
void at_capture_init(struct at_capture *c, size_t max);
void at_capture_add(struct at_capture *c, const char *buf, size_t n);

/*
 * The bytes kept, NUL-terminated (the NUL not counted in *len), with the
 * marker where bytes were dropped; *dropped says how many. The capture is
 * empty afterwards. 0, or -1 when out of memory (nothing is taken then).
 */
int at_capture_take(struct at_capture *c, char **out, size_t *len, uint64_t *dropped);
void at_capture_release(struct at_capture *c);

/* The marker's format: one line with the count of bytes dropped. */
#define AT_CAPTURE_MARKER "\n[agenttask: %llu bytes dropped]\n"

#endif
