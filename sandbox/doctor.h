/*
 * doctor.h - can agenttask sandbox on this machine? (`agenttask doctor`)
 *
 * Each check tries the real thing in a throw-away child process (a user
 * namespace with a mount namespace, the mount API, mount_setattr, overlayfs,
 * openat2, the seccomp filter of a run, the cgroup a run's limits would
 * use, made and removed again) and says what works, what falls back, and
 * the fix (core/doctor.h). Nothing of the machine is changed; no
 * repository is needed.
 */
#ifndef AT_SANDBOX_DOCTOR_H
#define AT_SANDBOX_DOCTOR_H

#include "core/doctor.h"

/* Run every check; never fails as a whole (a check that cannot run is FAIL). */
void at_sandbox_doctor(struct at_doctor *d);

#endif
