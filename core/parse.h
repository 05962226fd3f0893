/*
 * parse.h - numbers a person types: sizes, counts, durations. Pure
 * functions; a front end parses its arguments with them, and a second front
 * end gets the same answers.
 */
#ifndef AT_CORE_PARSE_H
#define AT_CORE_PARSE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/error.h"

/* "512M", "2G", "100K", "4096" (powers of 1024; B and iB accepted); AT_EUSAGE. */
int at_parse_size(const char *s, uint64_t *out, struct at_error *err);

/* A positive whole number no larger than max; AT_EUSAGE. */
int at_parse_count(const char *s, uint64_t max, uint64_t *out, struct at_error *err);

/* Seconds, "30" or "1.5", as milliseconds; AT_EUSAGE. */
int at_parse_seconds(const char *s, uint64_t *ms_out, struct at_error *err);

/* CPUs, "2" or "0.5" (at most 1000), as thousandths of a CPU; AT_EUSAGE. */
int at_parse_cpus(const char *s, uint64_t *milli_out, struct at_error *err);

/*
 * A forward, "PORT[:INNER]" (`run --forward`, a check's or the run
 * configuration's "forward"): the host's 127.0.0.1:PORT seen on the
 * sandbox's loopback port INNER (PORT when not given); ports 1 to 65535.
 * Syntax only: what else a forward may not be is the network module's.
 */
bool at_parse_forward(const char *s, uint16_t *host, uint16_t *inner);

#endif
