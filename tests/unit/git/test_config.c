/*
 * Unit tests for git/config.c: the sanitized copy of the repository's
 * config that the sandbox shows in place of the real one. The attacker is
 * whoever wrote the repository's config (or a test of what it may hold):
 * the copy must keep only the repository-format settings, and must stay a
 * file git can parse, or git inside the sandbox stops working altogether.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>

#include "core/fs.h"
#include "git/config.h"
#include "git/internal.h"

struct repo {
	char root[PATH_MAX];
	struct at_repo r;
	git_config *cfg;
};

static int setup(void **state)
{
	struct repo *t = calloc(1, sizeof(*t));
	char tmpl[] = "/tmp/at-config-test.XXXXXX";

	if (!t || !mkdtemp(tmpl) || !realpath(tmpl, t->root) ||
	    git_repository_init(&t->r.repo, t->root, 0) < 0 ||
	    git_repository_config(&t->cfg, t->r.repo) < 0)
		return -1;
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct repo *t = *state;
	struct at_error err = AT_ERROR_INIT;

	git_config_free(t->cfg);
	git_repository_free(t->r.repo);
	at_rmtree(t->root, &err);
	free(t);
	return 0;
}

/* The copy, parsed again by libgit2 (which fails the test if it cannot). */
static git_config *sanitized(struct repo *t)
{
	struct at_error err = AT_ERROR_INIT;
	char *text = NULL, path[PATH_MAX + 16];
	git_config *copy = NULL;
	FILE *f;

	assert_int_equal(at_git_sanitized_config(&t->r, &text, &err), 0);
	snprintf(path, sizeof(path), "%s/sanitized", t->root);
	assert_non_null(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
	if (git_config_open_ondisk(&copy, path) < 0)
		fail_msg("the sanitized config does not parse:\n%s", text);
	free(text);
	return copy;
}

static bool has(git_config *cfg, const char *name)
{
	git_config_entry *e = NULL;
	bool found = git_config_get_entry(&e, cfg, name) == 0;

	git_config_entry_free(e);
	git_error_clear();
	return found;
}

static void test_config__keeps_format_settings_and_drops_the_rest(void **state)
{
	struct repo *t = *state;
	git_config *copy;

	assert_int_equal(git_config_set_string(t->cfg, "remote.origin.url",
					       "https://user:token@example.com/r.git"), 0);
	assert_int_equal(git_config_set_string(t->cfg, "core.fsmonitor", "/tmp/evil"), 0);
	assert_int_equal(git_config_set_string(t->cfg, "core.hooksPath", "/tmp/hooks"), 0);
	assert_int_equal(git_config_set_bool(t->cfg, "extensions.worktreeConfig", true), 0);
	copy = sanitized(t);
	assert_true(has(copy, "core.repositoryformatversion"));
	assert_true(has(copy, "extensions.worktreeconfig"));
	assert_true(has(copy, "core.bare"));
	assert_false(has(copy, "remote.origin.url"));
	assert_false(has(copy, "core.fsmonitor"));
	assert_false(has(copy, "core.hookspath"));
	git_config_free(copy);
}

/*
 * Found by fuzz_config: [extensions "x"] y = 1 was written back as "x.y = 1"
 * under [extensions], a line git refuses ("bad config line"), so every git
 * command inside the sandbox failed. A subsection's entry is dropped.
 */
static void test_config__an_entry_of_a_subsection_is_dropped_not_mangled(void **state)
{
	struct repo *t = *state;
	git_config *copy;

	assert_int_equal(git_config_set_string(t->cfg, "extensions.x.y", "1"), 0);
	assert_int_equal(git_config_set_string(t->cfg, "extensions.objectformat", "sha1"), 0);
	copy = sanitized(t);
	assert_false(has(copy, "extensions.x.y"));
	assert_true(has(copy, "extensions.objectformat"));
	git_config_free(copy);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_config__keeps_format_settings_and_drops_the_rest,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_config__an_entry_of_a_subsection_is_dropped_not_mangled, setup, teardown),
	};
	int rc;

	git_libgit2_init();
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	git_libgit2_shutdown();
	return rc;
}
