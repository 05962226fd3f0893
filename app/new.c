#include "app/new.h"

#include <string.h>

#include "app/internal.h"
#include "app/lifecycle.h"
#include "core/audit.h"
#include "core/trace.h"

/* The form asked for, else the tests' (core/trace.h), else the person's configuration. */
static enum at_task_form form_of(struct at_repo *r, const struct at_app_new_opts *o)
{
	int test = at_test_form();

	if (o->layered || o->full)
		return o->layered ? AT_FORM_LAYERED : AT_FORM_FULL;
	if (test >= 0)
		return (enum at_task_form)test;
	return at_repo_layered_default(r) ? AT_FORM_LAYERED : AT_FORM_FULL;
}

int at_app_new(const struct at_app *app, const struct at_app_new_opts *o,
	       struct at_app_new_result *out, struct at_error *err)
{
	struct at_app_create_opts nopts = AT_APP_CREATE_OPTS_INIT;
	struct at_error aerr = AT_ERROR_INIT;
	struct at_app_locked l;
	int rc;

	memset(out, 0, sizeof(*out));
	if (o->layered && o->full)
		return at_error_set(err, AT_EUSAGE, "--layered and --full: give one");
	nopts.base_rev = o->base_rev;
	nopts.progress = o->progress;
	nopts.base_on_branches = o->base_on_branches;
	rc = at_app_lock(app, &l, NULL, NULL, err);
	if (rc == 0)
		nopts.form = form_of(l.r, o);
	if (rc == 0)
		rc = at_app_task_create(l.r, o->name, &nopts, &out->task, err);
	if (rc == 0)
		at_app_audited(&out->warnings, out->task.name,
			       at_audit_new(at_repo_paths(l.r), &out->task, &aerr), &aerr);
	at_app_unlock(&l);
	return rc;
}

void at_app_new_result_release(struct at_app_new_result *res)
{
	if (res)
		at_strlist_release(&res->warnings);
}
