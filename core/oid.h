/*
 * oid.h - a git object id as plain data, for the modules that do not see
 * libgit2 (git/ converts at its boundary: git/internal.h).
 *
 * Ids travel between functions in this form, not as hex strings: parsed once
 * where they enter (a task record, a command line), formatted once where they
 * leave (a message, JSON).
 */
#ifndef AT_CORE_OID_H
#define AT_CORE_OID_H

#include <stdbool.h>

#define AT_OID_RAWSZ 20
#define AT_OID_HEXSZ 40

struct at_oid {
	unsigned char id[AT_OID_RAWSZ];
};

/* 40 lowercase hex digits and a NUL into buf. */
void at_oid_fmt(char buf[AT_OID_HEXSZ + 1], const struct at_oid *id);

/* Exactly 40 hex digits (either case) -> *out; 0, or -1 leaving *out alone. */
int at_oid_parse(struct at_oid *out, const char *hex);

bool at_oid_equal(const struct at_oid *a, const struct at_oid *b);
bool at_oid_is_zero(const struct at_oid *id);

#endif
