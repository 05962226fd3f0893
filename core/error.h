/*
 * error.h - the one error type every module returns through.
 *
 * Actions return int: 0 on success, or a negative AT_E* code. The details
 * travel in a struct at_error passed last: it is set once, where the failure
 * happens, and passed up unchanged. A later at_error_set() on an error that
 * already holds a failure keeps the first (more precise) one.
 *
 * Only cmd/ turns an error into a message on stderr and an exit status.
 */
#ifndef AT_CORE_ERROR_H
#define AT_CORE_ERROR_H

#include <stdbool.h>

enum at_code {
	AT_OK = 0,
	AT_EUSAGE = -1,     /* bad argument or name: exit 2 */
	AT_ENOTFOUND = -2,  /* unknown task or revision (the one code for both): exit 2 */
	AT_ENOREPO = -3,    /* not a usable repository (none, bare, empty): exit 2 */
	AT_EPOLICY = -4,    /* malformed policy file: exit 2 */
	AT_EEXISTS = -5,    /* something by that name exists: exit 1 */
	AT_ECONFLICT = -6,  /* merge conflict: exit 1 */
	AT_EDIRTY = -7,     /* uncommitted user changes in the way: exit 1 */
	AT_ESTALE = -8,     /* state is no longer what was reviewed: exit 1 */
	AT_EGATE = -9,      /* the review gate failed: exit 1 */
	AT_ECORRUPT = -10,  /* a state file cannot be read: exit 1 */
	AT_ESYS = -11,      /* a system call failed: exit 1 */
	AT_EGIT = -12,      /* libgit2 failed: exit 1 */
	AT_ESANDBOX = -13,  /* the sandbox could not be set up: exit 125 */
	AT_ENOTASK = -14,   /* no NAME given and cwd is in no task: exit 2 */
	AT_EBUSY = -15,     /* held by someone else (the repository lock, a ref's lock), or a
			       command of the task is running: exit 1 */
	AT_EUNSAFE = -16,   /* the worktree holds what agenttask will not read or record, or a
			       task's HOME more than its cap: exit 1 */
	AT_ECANCELLED = -17,/* the caller cancelled it midway: exit 1 */
};

#define AT_ERROR_MSG_MAX 256

/*
 * The errno of a failing system call is not kept apart: it is in the message
 * (": strerror") and nothing decides on it after the fact.
 */
struct at_error {
	int code;                    /* an enum at_code, 0 while no error is set */
	char msg[AT_ERROR_MSG_MAX];  /* one line, lowercase, subject in 'quotes' */
};

#define AT_ERROR_INIT { 0, { 0 } }

/* Record a failure; returns the code now held (the first one set wins). */
int at_error_set(struct at_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* As at_error_set(), appending ": strerror(errno)"; errno is left as it was. */
int at_error_sys(struct at_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

void at_error_clear(struct at_error *err);

/* The code's name, as JSON shows it: "usage", "not-found", ... ("system" when unknown). */
const char *at_error_code_name(int code);

/* Append " (text)" or any formatted text to a message already set (cut to fit). */
void at_error_append(struct at_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static inline bool at_error_isset(const struct at_error *err)
{
	return err && err->code != 0;
}

#endif
