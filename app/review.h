/*
 * review.h - `agenttask review`: the task's diff as a file the person
 * edits, and the comments read back from it (issue 27).
 *
 * at_app_review_open takes the task's full state once and makes the diff's
 * text (as `diff` prints it to a pipe: the task's bytes exact, it is a
 * file) and, for every line of it, the place in the new version it stands
 * for. The front end writes the text to a file and runs the person's
 * editor on it; at_app_review_parse reads the edited text back: each run of
 * lines starting with ">>" that the person added is one comment on the
 * diff line above it, on the state the diff showed (at_app_comment_add
 * with the review's tree: a change of the agent's meanwhile moves nothing).
 */
#ifndef AT_APP_REVIEW_H
#define AT_APP_REVIEW_H

#include <stddef.h>

#include "app/app.h"
#include "app/comment.h"
#include "core/oid.h"
#include "core/strlist.h"

struct at_app_review;

/* The diff of task name (NULL: by app->dir) and its places. */
int at_app_review_open(const struct at_app *app, const char *name, struct at_app_review **out,
		       struct at_error *err);
void at_app_review_free(struct at_app_review *rv);

/* The task reviewed, the state its diff shows, the diff's text (owned by rv). */
const struct at_task *at_app_review_task(const struct at_app_review *rv);
const struct at_oid *at_app_review_tree(const struct at_app_review *rv);
const char *at_app_review_text(const struct at_app_review *rv, size_t *len);

/* The comments an edited text holds. */
struct at_app_review_comments {
	struct at_app_comment_new *v;   /* path and text owned by the list */
	size_t n, cap;
	struct at_strlist notes;        /* what a person should know: a comment moved from a
					   removed line to the nearest new one, ... */
};

/*
 * The comments of edited (len bytes): AT_EUSAGE naming the line of the file
 * when a line other than an added ">>" one differs from the diff written
 * (trailing blanks aside): nothing is read then.
 */
int at_app_review_parse(const struct at_app_review *rv, const char *edited, size_t len,
			struct at_app_review_comments *out, struct at_error *err);
void at_app_review_comments_release(struct at_app_review_comments *c);

#endif
