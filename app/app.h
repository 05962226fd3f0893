/*
 * app.h - the use cases, one function each, for every front end.
 *
 * The CLI (cmd/) and any other front end (an MCP server) call these and
 * nothing below them. Each use case takes an options struct and fills a
 * result struct (app/<use case>.h). They print nothing, pick no exit code,
 * keep no global state, and free everything they allocate (a result's
 * _release frees what it holds); a long-lived process may call them again
 * and again. Errors come back as an int (0, or a negative AT_E* code) and a
 * struct at_error set once where the failure happened; what went wrong
 * after the command's work was done (an audit log that could not be
 * written) is a warning in the result, not an error.
 *
 *   new       app/new.h       run       app/run.h
 *   list, status, path, log  app/task.h
 *   diff      app/diff.h      commit    app/commit.h
 *   gate      app/gate.h      accept    app/accept.h
 *   discard, restore          app/discard.h
 *   repair    app/repair.h
 *   rewind    app/rewind.h    checkpoints  app/checkpoint.h
 *   gc        app/gc.h        doctor    app/doctor.h (no repository)
 *   the JSON form of results  app/json.h
 *
 * Mutating use cases take the repository lock (core/lock.h) themselves, for
 * as long as they need it and no longer (a gate's checks run unlocked).
 */
#ifndef AT_APP_APP_H
#define AT_APP_APP_H

#include <stdint.h>

#include "core/error.h"
#include "core/progress.h"
#include "core/strlist.h"
#include "core/task.h"

/* Where a use case works: the same for every call of a front end, or per call. */
struct at_app {
	const char *dir;          /* the repository (like git -C DIR); a missing task NAME is
				     the one whose worktree holds dir */
	char *const *environ;     /* the host environment the sandbox takes TERM, LANG, ... and
				     --pass-env from; NULL: none */
	uint64_t max_file_size;   /* no worktree file larger is hashed or diffed (git/repo.h);
				     0: the repository's agenttask.maxFileSize, else 100 MiB */
};

#define AT_APP_INIT { ".", NULL, 0 }

#endif
