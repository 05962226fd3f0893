/*
 * gc_age.c - gc --max-age: tasks nobody has touched for a while go to the
 * trash, as discard sends them (restorable). A task's last activity is the
 * newest entry of its audit log (a run's end, a commit, an import of the
 * commits made inside, a gate, a file tool's write...) or its creation,
 * whichever is later: the log is agenttask's own file, which no sandbox can
 * write, so a task cannot make itself look young or old. A task with a
 * running command is never moved.
 */
#include <inttypes.h>
#include <string.h>

#include "app/discard.h"
#include "app/internal.h"
#include "core/audit.h"
#include "core/report.h"
#include "core/runs.h"
#include "core/state.h"
#include "core/trace.h"

/* One task, old enough: discarded, or (dry_run) named; a running one left alone. */
static int age_out(struct at_repo *r, const struct at_task *t, int64_t idle_days, bool dry_run,
		   struct at_report *rep)
{
	struct at_runs_guard guard = AT_RUNS_GUARD_INIT;
	struct at_app_discard_result res;
	struct at_error e = AT_ERROR_INIT;
	int rc;

	if (dry_run) {
		/* Whether it runs: the same test as the move's, given back at once. */
		rc = at_runs_stop(at_repo_paths(r), t->name, false, &guard, &e);
		at_runs_release(&guard, false);
		if (rc == AT_EBUSY)
			return at_report_add(rep, "left alone: %s", e.msg);
		return at_report_add(rep, "would move task '%s' to the trash (idle %" PRId64
				     " days)", t->name, idle_days);
	}
	memset(&res, 0, sizeof(res));
	res.task = *t;
	rc = at_app_discard_task(r, false, NULL, &res, &e);
	at_app_discard_result_release(&res);
	if (rc == AT_EBUSY)
		return at_report_add(rep, "left alone: %s", e.msg);
	if (rc < 0)
		return at_report_failf(rep, "cannot move task '%s' to the trash: %s", t->name,
				       e.msg);
	return at_report_add(rep, "moved task '%s' to the trash (idle %" PRId64 " days): '%s'",
			     t->name, idle_days, res.trash);
}

int at_app_gc_aged(struct at_repo *r, int max_age_days, bool dry_run, struct at_report *rep,
		   struct at_error *err)
{
	const int64_t now = at_test_now(), max_age = (int64_t)max_age_days * 86400;
	struct at_task_list l;
	size_t i;
	int rc;

	memset(&l, 0, sizeof(l));
	if ((rc = at_state_list(at_repo_paths(r), &l, err)) < 0)
		return rc;
	for (i = 0; rc == 0 && i < l.count; i++) {
		const struct at_task *t = &l.tasks[i];
		struct at_error e = AT_ERROR_INIT;
		int64_t last = 0;

		/* Half-made ones are gc's other business. */
		if (t->phase != AT_TASK_READY)
			continue;
		if (at_audit_last_time(at_repo_paths(r), t->name, &last, &e) < 0) {
			rc = at_report_failf(rep, "left alone task '%s': %s", t->name, e.msg);
			continue;
		}
		if (t->created > last)
			last = t->created;
		if (now - last >= max_age)
			rc = age_out(r, t, (now - last) / 86400, dry_run, rep);
	}
	at_task_list_release(&l);
	return rc < 0 ? at_error_set(err, AT_ESYS, "out of memory") : 0;
}
