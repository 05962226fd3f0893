/*
 * comments.h - the person's review comments on a task, kept on disk.
 *
 * One JSON file per task, <state>/comments/NAME.json (core/paths.h),
 * replaced atomically; read and written under the repository lock. Each
 * comment is on a range of lines of a file of the task's full state as it
 * was when the comment was made (tree), or on the whole change (path NULL).
 * The file also keeps the tree the person last reviewed (a comment made, a
 * part accepted): what `diff --since-review` starts from.
 *
 * The file is agenttask's, never the task's; still, what is read back is
 * checked where it enters (sizes, ids, lines), as every state file is.
 */
#ifndef AT_CORE_COMMENTS_H
#define AT_CORE_COMMENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/json.h"
#include "core/oid.h"
#include "core/paths.h"

#define AT_COMMENT_TEXT_MAX (16 * 1024)  /* bytes of one comment's text */
#define AT_COMMENTS_MAX 10000            /* comments of one task */
#define AT_COMMENTS_FILE_MAX (8 * 1024 * 1024) /* bytes of the file read back */

struct at_comment {
	unsigned long id;        /* 1, 2, ...: never reused within a task */
	struct at_oid tree;      /* the task's full state when it was made */
	char *path;              /* repository-relative; NULL: the whole change */
	size_t first, last;      /* its lines in tree's path (1-based); 0 with no path */
	char *text;
	char author[16];         /* "person" */
	int64_t time;            /* seconds since the epoch */
	bool resolved;
};

struct at_comments {
	struct at_comment *v;
	size_t n, cap;
	unsigned long next_id;
	bool has_reviewed;
	struct at_oid reviewed;  /* the tree last reviewed */
};

/* The task's comments (none, when it has no file); AT_ECORRUPT naming the file. */
int at_comments_load(const struct at_paths *p, const char *name, struct at_comments *out,
		     struct at_error *err);
/* Write them (the file and its directory made when missing). */
int at_comments_save(const struct at_paths *p, const char *name, const struct at_comments *c,
		     struct at_error *err);
/* Record tree as the one last reviewed (load, set, save: under the lock). */
int at_comments_set_reviewed(const struct at_paths *p, const char *name,
			     const struct at_oid *tree, struct at_error *err);
/* Remove the task's file; a missing one is not an error. */
int at_comments_remove(const struct at_paths *p, const char *name, struct at_error *err);

/*
 * Add a comment (its id the next one, written into *out_id), copying path
 * (or NULL) and text. AT_EUSAGE: an empty or oversized text, too many.
 */
int at_comments_add(struct at_comments *c, const struct at_oid *tree, const char *path,
		    size_t first, size_t last, const char *text, int64_t time,
		    unsigned long *out_id, struct at_error *err);
/* The comment of id, or NULL. */
struct at_comment *at_comments_find(struct at_comments *c, unsigned long id);
/* How many are open. */
size_t at_comments_open(const struct at_comments *c);
void at_comments_release(struct at_comments *c);

/* The file's text and back; exposed for the unit tests. */
char *at_comments_to_json(const struct at_comments *c);
int at_comments_from_json(const char *text, const char *what, struct at_comments *out,
			  struct at_error *err);

#endif
