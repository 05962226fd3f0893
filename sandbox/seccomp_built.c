/*
 * seccomp_built.c - the system call policy as the build compiled it
 * (seccomp_gen.c): what every run loads.
 */
#include "sandbox/internal.h"

#include <stdlib.h>
#include <string.h>

#include "seccomp_program.h"

int at_sb_seccomp_builtin(struct sock_fprog *out, struct at_error *err)
{
	static const struct sock_filter program[] = AT_SB_SECCOMP_PROGRAM;

	if (!(out->filter = malloc(sizeof(program))))
		return at_error_set(err, AT_ESYS, "out of memory");
	memcpy(out->filter, program, sizeof(program));
	out->len = (unsigned short)(sizeof(program) / sizeof(program[0]));
	return 0;
}
