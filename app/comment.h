/*
 * comment.h - the person's review comments on a task, and what the agent
 * is shown of them (issue 27).
 *
 * A comment is on lines of a file of the task's full state as it is when
 * the comment is made (checked: the file is in the state, the lines in the
 * file), or on the whole change. Each keeps the tree it was made on; shown
 * later, its lines are carried to the current state through the diff of the
 * file between the two (git/linemap.h), or shown outdated. Making one also
 * records the state as reviewed (`diff --since-review`). Comments go with
 * the task (discard, accept without --keep).
 */
#ifndef AT_APP_COMMENT_H
#define AT_APP_COMMENT_H

#include <stdbool.h>
#include <stddef.h>

#include "app/app.h"
#include "core/comments.h"

/* A comment to make: on lines first..last of path, or (path NULL) the whole change. */
struct at_app_comment_new {
	const char *path;     /* repository-relative, as the diff names it */
	size_t first, last;
	const char *text;
};

/*
 * Make comments v[0..n) on task name (NULL: by app->dir), all or none,
 * under the lock, on the state tree (the one reviewed: `review`'s diff) or,
 * with tree NULL, on the task's current full state; their ids into ids (n
 * of them; may be NULL). AT_EUSAGE naming the path or line that is not in
 * that state: nothing recorded. That state is then the one last reviewed.
 */
int at_app_comment_add(const struct at_app *app, const char *name, const struct at_oid *tree,
		       const struct at_app_comment_new *v, size_t n, unsigned long *ids,
		       struct at_error *err);

/* Mark comment id resolved; AT_ENOTFOUND naming an unknown id. */
int at_app_comment_resolve(const struct at_app *app, const char *name, unsigned long id,
			   struct at_error *err);

/* A comment as it stands against the current state. */
struct at_app_comment_view {
	const struct at_comment *c;  /* owned by the result's comments */
	bool outdated;               /* its lines changed or went (or its file did) */
	size_t first, last;          /* its lines now (0 when outdated or on the whole change) */
};

struct at_app_comments_result {
	struct at_task task;
	struct at_comments comments;      /* every comment of the task */
	struct at_app_comment_view *v;    /* the ones shown: open ones, or all with all */
	size_t n;
	size_t open;                      /* how many are open */
};

/* The task's comments, open ones only unless all, against its current state. */
int at_app_comments(const struct at_app *app, const char *name, bool all,
		    struct at_app_comments_result *out, struct at_error *err);
void at_app_comments_result_release(struct at_app_comments_result *res);

#endif
