/*
 * doctor.h - can agenttask sandbox on this machine? (`agenttask doctor`)
 *
 * Each check tries the real thing in a throw-away child process (a user
 * namespace with a mount namespace, the mount API, mount_setattr, overlayfs,
 * openat2, the seccomp filter of a run, the cgroup a run's limits would
 * use, made and removed again) and says what works, what falls back, and
 * the fix. Nothing of the machine is changed; no repository is needed.
 */
#ifndef AT_SANDBOX_DOCTOR_H
#define AT_SANDBOX_DOCTOR_H

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

/* Run every check; never fails as a whole (a check that cannot run is FAIL). */
void at_doctor_run(struct at_doctor *d);

const char *at_doctor_state_name(enum at_doctor_state s);   /* "ok", "fallback", "fail" */

#endif
