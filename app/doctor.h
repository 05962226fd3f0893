/*
 * doctor.h - can agenttask sandbox on this machine? Each check of what the
 * sandbox needs (user namespaces, overlayfs, the cgroup of a run's limits,
 * seccomp, openat2, the mount API) tried for real, with its state and fix
 * (core/doctor.h). Needs no repository; changes nothing.
 */
#ifndef AT_APP_DOCTOR_H
#define AT_APP_DOCTOR_H

#include "core/doctor.h"

/* Run every check into *out; never fails as a whole (a check that cannot run is FAIL). */
void at_app_doctor(struct at_doctor *out);

/* The versions of the libraries that decide what agenttask can do, "MAJOR.MINOR.MICRO". */
struct at_app_versions {
	char libgit2[32];
	char libseccomp[32];
};
void at_app_versions(struct at_app_versions *out);

#endif
