/*
 * gitview.h - the task's git view inside the sandbox and the import of its
 * commits (gitview.c has the layout and the rule; gitview_open.c makes the
 * view before a run). Internal to app/: the use cases call it.
 */
#ifndef AT_APP_GITVIEW_H
#define AT_APP_GITVIEW_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "core/oid.h"
#include "core/strlist.h"
#include "core/task.h"

struct at_repo;
struct at_app_layout;

struct at_app_gitview {
	char dir[PATH_MAX];       /* <state>/git/NAME */
	char upper[PATH_MAX];
	char work[PATH_MAX];      /* the overlay's work dir for this run */
	char spare[PATH_MAX];     /* the other (at_app_pick_work) */
	int lock;                 /* held: the view is this run's */
};

/* What an import did. */
struct at_app_import {
	bool imported;            /* the branch moved old -> new_tip */
	bool busy;                /* a run has the view: nothing imported now */
	struct at_oid old, new_tip;
	size_t objects;
	struct at_strlist warnings;
};

void at_app_gitview_init(struct at_app_gitview *v);
void at_app_gitview_close(struct at_app_gitview *v);

/*
 * Before a run: the view made on first use, its lock taken, what the task
 * did in an earlier run imported (a failure is a warning: the run goes on),
 * the upper brought to the host's branch when the host moved it, and its
 * config agenttask's sanitized one when it has none. 0 with l->upper and
 * l->work set; 1 when another run of the task holds the view (l untouched:
 * this run sees git read-only, as before views existed).
 */
int at_app_gitview_open(struct at_repo *r, const struct at_task *t, struct at_app_layout *l,
			struct at_app_gitview *v, struct at_app_import *res,
			struct at_error *err);

/*
 * The import (gitview.c's rule), under held's lock when the caller holds
 * it (a run), else under its own, taken only if free (res->busy when not).
 * 0 also when there was nothing to import; AT_EUNSAFE (an object refused),
 * AT_ESTALE (both moved), AT_ESYS, AT_EGIT: the host's branch unchanged.
 */
int at_app_import(struct at_repo *r, const struct at_task *t, struct at_app_gitview *held,
		  struct at_app_import *res, struct at_error *err);
void at_app_import_release(struct at_app_import *res);

/*
 * The import a use case does before it looks at the task (diff, status,
 * gate, commit, discard, accept): a failure is one line in warnings, or,
 * with warnings NULL (accept), the error.
 */
int at_app_import_before(struct at_repo *r, const struct at_task *t, struct at_strlist *warnings,
			 struct at_error *err);

/*
 * The warning of an import that failed (ierr): its reason, and, unless the
 * failure is the host's own (AT_ESYS), a second line naming `agenttask
 * repair NAME`, the way out of a task whose git inside cannot be imported.
 */
void at_app_import_warn(struct at_strlist *warnings, const struct at_task *t,
			const struct at_error *ierr);

/*
 * What HEAD names inside the view v (paths set): 0; 1 when nothing (no
 * view yet, an unborn branch); AT_ECORRUPT (HEAD or its ref malformed).
 */
int at_app_gitview_head(const struct at_repo *r, const struct at_task *t,
			const struct at_app_gitview *v, struct at_oid *out, struct at_error *err);

/*
 * Under the view's lock, with no run of the task (app/repair.c): set the
 * upper aside as <dir>/dropped/SECS.PID (its path in kept), in one rename.
 * The view is then none: the next run makes it afresh, the task's branch,
 * HEAD and index inside those of the host. 0; 1 when there is no upper.
 */
int at_app_gitview_drop(const struct at_app_gitview *v, char *kept, size_t size,
			struct at_error *err);

/*
 * Inside v (its lock held, its upper there), the task's branch at host,
 * HEAD back on it, the task's index dropped so that the host's shows
 * through (rewind: app/rewind.c; a run when the host moved the branch).
 * The caller then agrees on host (at_app_gitview_agree). Other refs
 * inside, and the upper's objects, are kept.
 */
int at_app_gitview_reset(const struct at_app_gitview *v, const struct at_task *t,
			 const struct at_oid *host, struct at_error *err);

/* gitview.c, for gitview_open.c: <state>/git/NAME and its layers; the view's lock. */
int at_app_gitview_paths(struct at_repo *r, const struct at_task *t, struct at_app_gitview *v,
			 struct at_error *err);
int at_app_gitview_lock(struct at_app_gitview *v, struct at_error *err);
int at_app_gitview_agreed(const struct at_app_gitview *v, struct at_oid *out);
int at_app_gitview_agree(const struct at_app_gitview *v, const struct at_oid *id,
			 struct at_error *err);

#endif
