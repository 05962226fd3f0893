/*
 * name.h - what a task may be called.
 *
 * A name is 1 to 64 of [A-Za-z0-9._-], starts with a letter or digit, and
 * holds no "..". Since it becomes part of a branch name, it may also not end
 * in "." or ".lock" (git refuses such refs).
 */
#ifndef AT_CORE_NAME_H
#define AT_CORE_NAME_H

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"

/* 0 when name is valid; AT_EUSAGE with a message that quotes it otherwise. */
int at_name_check(const char *name, struct at_error *err);

static inline bool at_name_valid(const char *name)
{
	return at_name_check(name, NULL) == 0;
}

#endif
