#include "app/gc.h"

#include <string.h>

#include "app/internal.h"
#include "git/gc.h"

int at_app_gc(const struct at_app *app, const struct at_app_gc_opts *o,
	      struct at_app_gc_result *out, struct at_error *err)
{
	struct at_gc_opts gopts = AT_GC_OPTS_INIT;
	struct at_app_locked l;
	int rc;

	memset(out, 0, sizeof(*out));
	gopts.trash_days = o->trash_days;
	gopts.force = o->force;
	rc = at_app_lock(app, &l, NULL, NULL, err);
	if (rc == 0) {
		at_progress_say(&o->progress, "collecting what interrupted commands left", 0, 0);
		rc = at_task_gc(l.r, &gopts, &out->done, err);
	}
	at_app_unlock(&l);
	return rc;
}

void at_app_gc_result_release(struct at_app_gc_result *res)
{
	if (res)
		at_report_release(&res->done);
}
