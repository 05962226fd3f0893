/*
 * util.h - scope-bound cleanup and small helpers shared by every module.
 *
 * AT_AUTOFREE char *p = ...;   freed when p leaves scope
 * AT_AUTOCLOSE int fd = ...;   closed when fd leaves scope (-1 is left alone)
 *
 * A function uses these or a single `out:` label, not both.
 */
#ifndef AT_CORE_UTIL_H
#define AT_CORE_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "core/esc.h"

void at_freep(void *pp);
void at_closep(int *fd);

#define AT_AUTOFREE __attribute__((cleanup(at_freep)))
#define AT_AUTOCLOSE __attribute__((cleanup(at_closep)))

/*
 * CLOCK_MONOTONIC in nanoseconds: for durations and deadlines, never a date.
 * Async-signal-safe (a sandbox child between clone and exec may read it).
 */
int64_t at_mono_ns(void);

/* The same in microseconds and in milliseconds. */
static inline int64_t at_mono_us(void)
{
	return at_mono_ns() / 1000;
}

static inline int64_t at_mono_ms(void)
{
	return at_mono_ns() / 1000000;
}

/* Seconds since the epoch as ISO 8601 UTC, "2024-05-01T12:00:00Z" (buf: AT_TIME_MAX bytes). */
#define AT_TIME_MAX 32
void at_time_iso(char *buf, size_t size, int64_t secs);

/* The same for milliseconds, with them: "2024-05-01T12:00:00.123Z". */
void at_time_iso_ms(char *buf, size_t size, int64_t ms);

/* snprintf into a fixed buffer; 0, or -1 when the result would not fit. */
int at_fmt(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* at_esc(), which names in messages go through, is in core/esc.h. */

/* Write all of buf to fd, retrying on EINTR and short writes; 0 or -1 with errno. */
int at_write_all(int fd, const void *buf, size_t len);

/* Read a whole (small) file into a NUL-terminated buffer; NULL with errno on failure. */
char *at_read_file(const char *path, size_t max, size_t *len_out);
/* The same for an open descriptor (a regular file), read from its offset. */
char *at_read_fd(int fd, size_t max, size_t *len_out);

/* FNV-1a, 64 bits, of a string: a stable name for a path, not a secret. */
uint64_t at_hash_name(const char *s);

/*
 * Replace path with data atomically: write a temporary file beside it, fsync,
 * rename over path, fsync the directory. A crash leaves the old content or the
 * new, never a mix. 0, or -1 with errno.
 */
int at_write_atomic(const char *path, const void *data, size_t len, unsigned int mode);

/*
 * The same with one fsync fewer: the new file's bytes synced before the
 * rename (a crash never leaves it empty or half written), its directory
 * not, so that a crash of the machine may still show the old content (or
 * no file) until the directory is synced next. A killed process loses
 * nothing (the page cache outlives it). For a record that a later
 * at_write_atomic in the same directory makes durable before anyone is
 * told it was written.
 */
int at_write_synced(const char *path, const void *data, size_t len, unsigned int mode);

/*
 * The same, without the two fsyncs (each a journal commit: milliseconds on
 * a disk): a reader sees the old content or the new, but a crash may lose
 * the new, or leave the file empty on some file systems. Only for a record
 * whose loss or emptiness its reader recovers from.
 */
int at_write_replace(const char *path, const void *data, size_t len, unsigned int mode);

#endif
