/* Unit tests for core/hostfiles.c: which changed paths tools on the host run or obey. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/hostfiles.h"

#define MODE_FILE 0100644u
#define MODE_LINK 0120000u
#define MODE_GITLINK 0160000u

/* The table itself, one path per category, and what must stay out. */
static void test_hostfiles__names_each_category(void **state)
{
	static const char *const yes[] = {
		".vscode/tasks.json", ".idea/workspace.xml", ".claude/settings.json", ".mcp.json",
		".cursor/mcp.json", ".codex/config.toml", ".gemini/settings.json", ".envrc",
		".husky/pre-commit", ".githooks/pre-push", ".github/workflows/x.yml",
		".gitlab-ci.yml", ".gitattributes", ".gitmodules", ".worktreeinclude",
		".agenttask/policy.json", ".vscode", "sub/.vscode/settings.json", "a/b/.envrc",
		"pkg/.gitattributes", "web/.husky/pre-commit", ".VSCode/tasks.json", ".ENVRC",
		NULL,
	};
	static const char *const no[] = {
		"README", "src/.vscodex/a", "vscode/tasks.json", ".github/CODEOWNERS",
		"sub/.github/workflows/x.yml", "sub/.gitlab-ci.yml", "sub/.gitmodules",
		"sub/.agenttask/policy.json", ".github/workflows-old/x", "x.envrc", "package.json",
		NULL,
	};

	(void)state;
	for (const char *const *p = yes; *p; p++)
		if (!at_hostfiles_path(*p, NULL, false))
			fail_msg("'%s' not flagged", *p);
	for (const char *const *p = no; *p; p++)
		if (at_hostfiles_path(*p, NULL, false))
			fail_msg("'%s' flagged", *p);
}

/* What: a symlink ".github" that brings workflows in. Must: it counts; a plain file does not. */
static void test_hostfiles__a_link_above_a_root_directory_counts(void **state)
{
	(void)state;
	assert_true(at_hostfiles_path(".github", NULL, true));
	assert_false(at_hostfiles_path(".github", NULL, false));
	assert_true(at_hostfiles_path("tools", "tools/hooks", true));
	assert_false(at_hostfiles_path("tool", "tools/hooks", true));
}

static void test_hostfiles__hooks_dir_is_normalised_and_bounded(void **state)
{
	char out[64];

	(void)state;
	assert_true(at_hostfiles_hooks_dir(".husky/_", "/r", out, sizeof(out)));
	assert_string_equal(out, ".husky/_");
	assert_true(at_hostfiles_hooks_dir("./tools//hooks/", "/r", out, sizeof(out)));
	assert_string_equal(out, "tools/hooks");
	assert_true(at_hostfiles_hooks_dir("a/../hooks", "/r", out, sizeof(out)));
	assert_string_equal(out, "hooks");
	assert_true(at_hostfiles_hooks_dir("/r/my hooks", "/r/", out, sizeof(out)));
	assert_string_equal(out, "my hooks");
	assert_true(at_hostfiles_hooks_dir(".", "/r", out, sizeof(out)));
	assert_string_equal(out, "");
	assert_false(at_hostfiles_hooks_dir("../hooks", "/r", out, sizeof(out)));
	assert_false(at_hostfiles_hooks_dir("/rx/hooks", "/r", out, sizeof(out)));
	assert_false(at_hostfiles_hooks_dir("/etc/hooks", "/r", out, sizeof(out)));
	assert_false(at_hostfiles_hooks_dir("", "/r", out, sizeof(out)));
	assert_false(at_hostfiles_hooks_dir("a-name-much-longer-than-eight", "/r", out, 8));
	/* In the hooks directory, and at the root for "." (a top-level file only). */
	assert_true(at_hostfiles_path("tools/hooks/pre-commit", "tools/hooks", false));
	assert_false(at_hostfiles_path("tools/hooksx", "tools/hooks", false));
	assert_true(at_hostfiles_path("pre-commit", "", false));
	assert_false(at_hostfiles_path("src/main.c", "", false));
}

static size_t len_of(const char *s)
{
	return s ? strlen(s) : 0;
}

#define CHANGED(o, n) at_hostfiles_scripts_changed(o, len_of(o), n, len_of(n))

static void test_hostfiles__package_scripts_compared_as_json(void **state)
{
	(void)state;
	/* Only dependencies (or formatting, or key order) changed: not flagged. */
	assert_false(CHANGED("{\"scripts\":{\"a\":\"x\",\"b\":\"y\"},\"dependencies\":{}}",
			     "{\n  \"dependencies\": {\"left-pad\": \"1\"},\n  \"scripts\": "
			     "{\"b\": \"y\", \"a\": \"x\"}\n}\n"));
	assert_false(CHANGED("{\"name\":\"a\"}", "{\"name\":\"b\"}"));
	assert_false(CHANGED(NULL, "{\"name\":\"new\"}"));
	/* A script added, changed, removed; the object added or removed. */
	assert_true(CHANGED("{\"scripts\":{\"a\":\"x\"}}", "{\"scripts\":{\"a\":\"x\",\"postinstall\":\"sh\"}}"));
	assert_true(CHANGED("{\"scripts\":{\"a\":\"x\"}}", "{\"scripts\":{\"a\":\"y\"}}"));
	assert_true(CHANGED("{\"scripts\":{\"a\":\"x\"}}", "{\"scripts\":{}}"));
	assert_true(CHANGED("{}", "{\"scripts\":{\"install\":\"sh\"}}"));
	assert_true(CHANGED(NULL, "{\"scripts\":{\"install\":\"sh\"}}"));
	assert_true(CHANGED("{\"scripts\":{\"a\":\"x\"}}", NULL));
	assert_true(CHANGED("{\"scripts\":{\"a\":\"x\"}}", "{\"name\":\"x\"}"));
	/* A BOM is skipped, as npm does. */
	assert_false(CHANGED("{\"scripts\":{\"a\":\"x\"}}", "\xef\xbb\xbf{\"scripts\":{\"a\":\"x\"}}"));
	/* An old side that does not parse has no scripts. */
	assert_false(CHANGED("{not json", "{\"name\":\"x\"}"));
	assert_true(CHANGED("{not json", "{\"scripts\":{\"a\":\"x\"}}"));
}

/*
 * What: a new package.json our reader takes differently from npm: duplicate
 * "scripts" (npm takes the last), a NUL after the object, bad JSON.
 * Must: each counts as changed, scripts or not on the old side.
 */
static void test_hostfiles__an_unparseable_new_package_counts(void **state)
{
	static const char nul[] = "{\"name\":\"x\"}\0{\"scripts\":{\"install\":\"sh\"}}";

	(void)state;
	assert_true(CHANGED("{}", "{\"scripts\":{},\"scripts\":{\"install\":\"sh\"}}"));
	assert_true(CHANGED("{\"scripts\":{\"a\":\"x\"}}", "{\"scripts\":"));
	assert_true(CHANGED("{}", "not json"));
	assert_true(at_hostfiles_scripts_changed("{}", 2, nul, sizeof(nul) - 1));
}

/* ---- a change set, with a fake reader ---- */

struct sides {
	const char *old_text, *new_text;   /* NULL: absent on that side */
	int old_rc, new_rc;                /* forced return codes (0: by the text) */
	int reads;
};

static int fake_read(void *payload, bool new_side, const char *path, char **text, size_t *len,
		     struct at_error *err)
{
	struct sides *s = payload;
	const char *t = new_side ? s->new_text : s->old_text;
	int rc = new_side ? s->new_rc : s->old_rc;

	(void)path;
	s->reads++;
	if (rc)
		return at_error_set(err, rc, "forced");
	if (!t)
		return at_error_set(err, AT_ENOTFOUND, "absent");
	*text = strdup(t);
	*len = strlen(t);
	return 0;
}

static size_t changed(struct at_change_file *files, size_t n, struct sides *s,
		      struct at_strlist *out)
{
	struct at_change_set cs;
	struct at_error err = AT_ERROR_INIT;

	memset(&cs, 0, sizeof(cs));
	cs.files = files;
	cs.nfiles = n;
	assert_int_equal(at_hostfiles_changed(&cs, "tools/hooks", fake_read, s, out, &err), 0);
	return out->n;
}

static void test_hostfiles__a_change_set_lists_each_host_path_once(void **state)
{
	struct at_change_file f[] = {
		{ .path = ".envrc", .status = AT_CHANGE_MODIFIED, .old_mode = MODE_FILE,
		  .new_mode = MODE_FILE },
		{ .path = "moved", .old_path = ".vscode/tasks.json", .status = AT_CHANGE_RENAMED,
		  .old_mode = MODE_FILE, .new_mode = MODE_FILE },
		{ .path = "src/a.c", .status = AT_CHANGE_ADDED, .new_mode = MODE_FILE },
		{ .path = "tools/hooks/pre-commit", .status = AT_CHANGE_DELETED,
		  .old_mode = MODE_FILE },
		{ .path = ".github", .status = AT_CHANGE_ADDED, .new_mode = MODE_LINK },
	};
	struct at_strlist out = AT_STRLIST_INIT;
	struct sides s = { NULL, NULL, 0, 0, 0 };

	(void)state;
	assert_int_equal(changed(f, 5, &s, &out), 4);
	assert_string_equal(out.v[0], ".envrc");
	assert_string_equal(out.v[1], ".github");
	assert_string_equal(out.v[2], ".vscode/tasks.json");
	assert_string_equal(out.v[3], "tools/hooks/pre-commit");
	assert_int_equal(s.reads, 0);
	at_strlist_release(&out);
}

static void test_hostfiles__a_package_json_counts_by_its_scripts(void **state)
{
	struct at_change_file f = { .path = "web/package.json", .status = AT_CHANGE_MODIFIED,
				    .old_mode = MODE_FILE, .new_mode = MODE_FILE };
	struct at_strlist out = AT_STRLIST_INIT;
	struct sides deps = { "{\"scripts\":{\"t\":\"jest\"},\"dependencies\":{}}",
			      "{\"scripts\":{\"t\":\"jest\"},\"dependencies\":{\"x\":\"1\"}}", 0,
			      0, 0 };
	struct sides scripts = { "{\"scripts\":{\"t\":\"jest\"}}",
				 "{\"scripts\":{\"t\":\"jest\",\"prepare\":\"sh x\"}}", 0, 0, 0 };
	struct sides big = { "{}", NULL, 0, AT_EUSAGE, 0 };
	struct sides oom = { "{}", "{}", 0, AT_ESYS, 0 };
	struct at_change_set cs = { .files = &f, .nfiles = 1 };
	struct at_error err = AT_ERROR_INIT;

	(void)state;
	assert_int_equal(changed(&f, 1, &deps, &out), 0);
	assert_int_equal(deps.reads, 2);
	assert_int_equal(changed(&f, 1, &scripts, &out), 1);
	assert_string_equal(out.v[0], "web/package.json");
	at_strlist_release(&out);
	/* Too large or not a file on one side: it cannot be compared, so it counts. */
	assert_int_equal(changed(&f, 1, &big, &out), 1);
	at_strlist_release(&out);
	/* A link named package.json counts without a read. */
	f.new_mode = MODE_LINK;
	deps.reads = 0;
	assert_int_equal(changed(&f, 1, &deps, &out), 1);
	assert_int_equal(deps.reads, 0);
	at_strlist_release(&out);
	f.new_mode = MODE_GITLINK;
	assert_int_equal(changed(&f, 1, &deps, &out), 1);
	at_strlist_release(&out);
	/* Out of memory is an error, never a pass. */
	f.new_mode = MODE_FILE;
	assert_int_equal(at_hostfiles_changed(&cs, NULL, fake_read, &oom, &out, &err), AT_ESYS);
	at_strlist_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hostfiles__names_each_category),
		cmocka_unit_test(test_hostfiles__a_link_above_a_root_directory_counts),
		cmocka_unit_test(test_hostfiles__hooks_dir_is_normalised_and_bounded),
		cmocka_unit_test(test_hostfiles__package_scripts_compared_as_json),
		cmocka_unit_test(test_hostfiles__an_unparseable_new_package_counts),
		cmocka_unit_test(test_hostfiles__a_change_set_lists_each_host_path_once),
		cmocka_unit_test(test_hostfiles__a_package_json_counts_by_its_scripts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
