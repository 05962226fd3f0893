/*
 * fixture.h - a temporary directory standing in for a git common dir, with
 * agenttask's paths under it, for the unit tests of core/ that touch files.
 * Each test gets a fresh one (cmocka setup/teardown).
 */
#ifndef AT_TESTS_UNIT_FIXTURE_H
#define AT_TESTS_UNIT_FIXTURE_H

#include <limits.h>
#include <stdlib.h>

#include "core/fs.h"
#include "core/task.h"

struct fixture {
	char root[PATH_MAX];
	struct at_paths paths;
};

/* setup: the directory and the paths; the state directories only when ensure. */
static inline int fixture_make(void **state, bool ensure)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct at_error err = AT_ERROR_INIT;
	char tmpl[] = "/tmp/at-unit-test.XXXXXX";

	if (!f || !mkdtemp(tmpl) || !realpath(tmpl, f->root) ||
	    at_paths_init(&f->paths, f->root, &err) < 0 ||
	    (ensure && at_paths_ensure(&f->paths, &err) < 0)) {
		free(f);
		return -1;
	}
	*state = f;
	return 0;
}

static inline int setup(void **state)
{
	return fixture_make(state, false);
}

static inline int setup_ensured(void **state)
{
	return fixture_make(state, true);
}

static inline int teardown(void **state)
{
	struct fixture *f = *state;
	struct at_error err = AT_ERROR_INIT;

	at_rmtree(f->root, &err);
	free(f);
	return 0;
}

#endif
