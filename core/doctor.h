/*
 * doctor.h - what `agenttask doctor` finds, as plain data: each check of
 * what the sandbox needs from this machine, its state, what works or falls
 * back, and the fix. sandbox/doctor.h runs the checks, app/doctor.h hands
 * them to the front ends.
 */
#ifndef AT_CORE_DOCTOR_H
#define AT_CORE_DOCTOR_H

#include <stdbool.h>
#include <stddef.h>

enum at_doctor_state {
	AT_DOCTOR_OK,             /* works as the sandbox wants it */
	AT_DOCTOR_FALLBACK,       /* missing, but the sandbox does without (weaker) */
	AT_DOCTOR_FAIL,           /* missing, and the sandbox cannot do without */
};

struct at_doctor_check {
	const char *id;           /* "userns", "overlayfs", "cgroups", "seccomp", ... */
	const char *title;        /* "user namespaces", ... */
	enum at_doctor_state state;
	char detail[384];         /* what works, or what falls back, and why */
	char fix[384];            /* what to do about it; "" when nothing is needed */
};

#define AT_DOCTOR_MAX 8

struct at_doctor {
	struct at_doctor_check checks[AT_DOCTOR_MAX];
	size_t n;
	bool can_sandbox;         /* no check failed */
};

const char *at_doctor_state_name(enum at_doctor_state s);   /* "ok", "fallback", "fail" */

#endif
