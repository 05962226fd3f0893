/*
 * Unit tests for git/snapshot.c with git/diff.c: a task's worktree opened
 * once (struct at_worktree, the task's repository without its worktree)
 * serves a state and a diff of it, and the diff's attributes stay the base
 * commit's for as long as it is open.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/lifecycle.h"
#include "core/util.h"
#include "git/diff.h"
#include "git/repo.h"
#include "git/snapshot.h"

struct fixture {
	char root[PATH_MAX];
	struct at_repo *r;
	struct at_task task;
};

static int sh(const char *dir, const char *cmd)
{
	AT_AUTOFREE char *buf = NULL;

	if (asprintf(&buf, "cd '%s' && { %s; } >/dev/null 2>&1", dir, cmd) < 0)
		return -1;
	return system(buf);
}

/* A repository with one committed text file and a task t on it. */
static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct at_error err = AT_ERROR_INIT;
	char tmpl[] = "/tmp/at-snapshot-test.XXXXXX";

	if (!f || !mkdtemp(tmpl) || !realpath(tmpl, f->root))
		return -1;
	if (sh(f->root, "git init -q -b main . && git config user.name t &&"
			" git config user.email t@t && printf 'one\\ntwo\\n' >text.txt &&"
			" git add -A && git commit -q -m base") != 0)
		return -1;
	if (at_repo_open(&f->r, f->root, &err) < 0 ||
	    at_app_task_create(f->r, "t", NULL, &f->task, &err) < 0) {
		fprintf(stderr, "setup: %s\n", err.msg);
		return -1;
	}
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	AT_AUTOFREE char *cmd = NULL;

	at_repo_free(f->r);
	if (asprintf(&cmd, "rm -rf '%s'", f->root) >= 0 && system(cmd) != 0)
		fprintf(stderr, "teardown: cannot remove %s\n", f->root);
	free(f);
	return 0;
}

static int find_binary(char origin, const char *s, size_t len, void *payload)
{
	bool *binary = payload;

	(void)origin;
	if (len >= 6 && memmem(s, len, "Binary", 6))
		*binary = true;
	return 0;
}

/*
 * The attack: the task writes `* -diff` in an untracked .gitattributes,
 * which would turn its change into "Binary files differ". The diff takes
 * the base's attributes (none) and puts them in the worktree's repository;
 * a second state taken on the same worktree while the diff is open (a
 * front end reviewing again) would replace them with its own. Must: the
 * state is refused (AT_EUSAGE) while the diff is open, the patch is text,
 * and once the diff is freed the state may be taken again.
 */
static void test_snapshot__no_state_while_a_diff_holds_the_attributes(void **state)
{
	struct fixture *f = *state;
	struct at_error err = AT_ERROR_INIT;
	struct at_worktree *w = NULL;
	struct at_task_state st, again;
	struct at_diff *d = NULL;
	bool binary = false;

	assert_int_equal(sh(f->task.path, "printf 'one\\nTWO\\n' >text.txt &&"
					  " printf '* -diff\\n' >.gitattributes"), 0);
	assert_int_equal(at_worktree_open(&w, f->r, &f->task, &err), 0);
	assert_int_equal(at_task_state(f->r, &f->task, w, &st, &err), 0);
	assert_int_equal(at_diff_open_state(&d, f->r, w, &st, &err), 0);

	assert_int_equal(at_task_state(f->r, &f->task, w, &again, &err), AT_EUSAGE);
	assert_non_null(strstr(err.msg, "has a diff open"));
	err = (struct at_error)AT_ERROR_INIT;
	assert_int_equal(at_worktree_stage(w, &again, &err), AT_EUSAGE);
	err = (struct at_error)AT_ERROR_INIT;

	assert_int_equal(at_diff_patch(d, find_binary, &binary, &err), 0);
	assert_false(binary);
	at_diff_free(d);

	assert_int_equal(at_task_state(f->r, &f->task, w, &again, &err), 0);
	assert_memory_equal(again.tree.id, st.tree.id, AT_OID_RAWSZ);
	at_worktree_free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			test_snapshot__no_state_while_a_diff_holds_the_attributes, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
