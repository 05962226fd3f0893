#include "app/doctor.h"

#include "git/repo.h"
#include "sandbox/doctor.h"
#include "sandbox/sandbox.h"

void at_app_doctor(struct at_doctor *out)
{
	at_sandbox_doctor(out);
}

void at_app_versions(struct at_app_versions *out)
{
	at_git_version(out->libgit2, sizeof(out->libgit2));
	at_sandbox_seccomp_version(out->libseccomp, sizeof(out->libseccomp));
}
