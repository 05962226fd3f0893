/* Unit tests for core/policy.c: parsing a policy and judging a change set. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/policy.h"

#define WHAT "main:.agenttask/policy.json"

/* ---- parsing ---- */

static void parse_ok(struct at_policy *p, const char *text)
{
	struct at_error err = AT_ERROR_INIT;

	if (at_policy_parse(p, text, WHAT, &err) != 0)
		fail_msg("policy refused: %s", err.msg);
	assert_int_equal(err.code, 0);
}

/* The policy is refused with AT_EPOLICY and a message holding each of the parts. */
static void parse_bad(const char *text, const char *part1, const char *part2)
{
	struct at_error err = AT_ERROR_INIT;
	struct at_policy p;

	memset(&p, 0x5a, sizeof(p));
	assert_int_equal(at_policy_parse(&p, text, WHAT, &err), AT_EPOLICY);
	assert_int_equal(err.code, AT_EPOLICY);
	if (!strstr(err.msg, WHAT))
		fail_msg("message does not name the file: %s", err.msg);
	if (part1 && !strstr(err.msg, part1))
		fail_msg("'%s' not in: %s", part1, err.msg);
	if (part2 && !strstr(err.msg, part2))
		fail_msg("'%s' not in: %s", part2, err.msg);
}

static void test_policy__empty_object_gives_defaults(void **state)
{
	struct at_policy p;

	(void)state;
	parse_ok(&p, "{}");
	/* The policy's own directory is always protected. */
	assert_int_equal(p.nprotected, 1);
	assert_string_equal(p.protected_paths[0], ".agenttask");
	assert_false(p.has_max_files);
	assert_false(p.has_max_lines);
	assert_true(p.allow_binary);
	assert_false(p.allow_symlinks_out);
	assert_int_equal(p.nchecks, 0);
	at_policy_release(&p);
}

static void test_policy__protects_its_own_directory_once(void **state)
{
	struct at_policy p;

	(void)state;
	parse_ok(&p, "{\"protected_paths\": [\".agenttask\"]}");
	assert_int_equal(p.nprotected, 1);
	at_policy_release(&p);
}

static void test_policy__parses_every_key(void **state)
{
	struct at_policy p;

	(void)state;
	parse_ok(&p, "{\"protected_paths\": [\"/secrets/\", \"**/*.pem\"],"
		     " \"max_changed_files\": 10, \"max_changed_lines\": 0,"
		     " \"allow_binary\": false, \"allow_symlinks_out\": true,"
		     " \"checks\": [{\"name\": \"unit\", \"run\": [\"make\", \"test\", \"\"],"
		     "               \"timeout\": 30, \"net\": true},"
		     "              {\"name\": \"lint\", \"run\": [\"./lint\"],"
		     "               \"allow_hosts\": [\"registry.example.org\", \"*.pkg.dev:8443\"],"
		     "               \"deny_private\": true, \"forward\": [\"5432\", \"8080:80\"]}]}");
	assert_int_equal(p.nprotected, 3);
	assert_string_equal(p.protected_paths[0], "secrets");
	assert_string_equal(p.protected_paths[1], "**/*.pem");
	assert_string_equal(p.protected_paths[2], ".agenttask");
	assert_true(p.has_max_files);
	assert_int_equal(p.max_changed_files, 10);
	assert_true(p.has_max_lines);
	assert_int_equal(p.max_changed_lines, 0);
	assert_false(p.allow_binary);
	assert_true(p.allow_symlinks_out);
	assert_int_equal(p.nchecks, 2);
	assert_string_equal(p.checks[0].name, "unit");
	assert_int_equal(p.checks[0].argc, 3);
	assert_string_equal(p.checks[0].argv[0], "make");
	assert_string_equal(p.checks[0].argv[2], "");
	assert_null(p.checks[0].argv[3]);
	assert_int_equal(p.checks[0].timeout, 30);
	assert_true(p.checks[0].net);
	assert_string_equal(p.checks[1].name, "lint");
	assert_int_equal(p.checks[1].timeout, AT_CHECK_TIMEOUT_DEFAULT);
	assert_false(p.checks[1].net);
	assert_int_equal(p.checks[0].nallow_hosts, 0);
	assert_int_equal(p.checks[1].nallow_hosts, 2);
	assert_string_equal(p.checks[1].allow_hosts[1], "*.pkg.dev:8443");
	assert_false(p.checks[0].deny_private);
	assert_true(p.checks[1].deny_private);
	assert_int_equal(p.checks[0].nforward, 0);
	assert_int_equal(p.checks[1].nforward, 2);
	assert_string_equal(p.checks[1].forward[1], "8080:80");
	assert_null(p.checks[1].forward[2]);
	at_policy_release(&p);
}

static void test_policy__refuses_invalid_json_and_non_objects(void **state)
{
	(void)state;
	parse_bad("{\"max_changed_files\": 3", "invalid JSON", NULL);
	parse_bad("", "invalid JSON", NULL);
	parse_bad("[]", "not a JSON object", NULL);
	parse_bad("\"x\"", "not a JSON object", NULL);
	parse_bad("{} {}", "invalid JSON", NULL);
}

static void test_policy__refuses_unknown_and_duplicate_keys(void **state)
{
	(void)state;
	parse_bad("{\"protected_path\": []}", "unknown key 'protected_path'", NULL);
	parse_bad("{\"max_changed_files\": 1, \"max_changed_files\": 100}",
		  "duplicate key 'max_changed_files'", NULL);
	parse_bad("{\"checks\": [{\"name\": \"a\", \"run\": [\"x\"], \"env\": {}}]}",
		  "unknown key 'checks[0].env'", NULL);
	parse_bad("{\"checks\": [{\"name\": \"a\", \"run\": [\"x\"], \"run\": [\"y\"]}]}",
		  "duplicate key 'checks[0].run'", NULL);
}

static void test_policy__refuses_wrong_types(void **state)
{
	(void)state;
	parse_bad("{\"protected_paths\": \"secrets\"}", "key 'protected_paths'", "array");
	parse_bad("{\"protected_paths\": [1]}", "key 'protected_paths'", "not a string");
	parse_bad("{\"max_changed_files\": \"10\"}", "key 'max_changed_files'", "number");
	parse_bad("{\"max_changed_lines\": true}", "key 'max_changed_lines'", "number");
	parse_bad("{\"allow_binary\": 0}", "key 'allow_binary'", "true or false");
	parse_bad("{\"allow_symlinks_out\": \"yes\"}", "key 'allow_symlinks_out'", "true or false");
	parse_bad("{\"host_files\": true}", "key 'host_files'", "\"review\" or \"allow\"");
	parse_bad("{\"host_files\": \"Allow\"}", "key 'host_files'", "\"review\" or \"allow\"");
	parse_bad("{\"checks\": {}}", "key 'checks'", "array");
	parse_bad("{\"checks\": [\"make\"]}", "key 'checks[0]'", "object");
	parse_bad("{\"checks\": [{\"name\": \"a\", \"run\": [\"x\"], \"net\": 1}]}",
		  "key 'checks[0].net'", "true or false");
	parse_bad("{\"checks\": [{\"name\": 5, \"run\": [\"x\"]}]}", "key 'checks[0].name'", NULL);
	parse_bad("{\"checks\": [{\"name\": \"a\", \"run\": [\"x\"], \"allow_hosts\": \"a.com\"}]}",
		  "key 'checks[0].allow_hosts'", "array");
	parse_bad("{\"checks\": [{\"name\": \"a\", \"run\": [\"x\"], \"allow_hosts\": [\"a b\"]}]}",
		  "key 'checks[0].allow_hosts'", "item 0 is not a host pattern");
	parse_bad("{\"checks\": [{\"name\": \"a\", \"run\": [\"x\"], \"allow_hosts\": [\"a.com\"],"
		  " \"net\": true}]}", "key 'checks[0].allow_hosts'", "not with");
	parse_bad("{\"checks\": [{\"name\": \"a\", \"run\": [\"x\"], \"forward\": \"80\"}]}",
		  "key 'checks[0].forward'", "array");
	parse_bad("{\"checks\": [{\"name\": \"a\", \"run\": [\"x\"], \"forward\": [\"80\", \"0\"]}]}",
		  "key 'checks[0].forward'", "item 1 is not a forward");
	parse_bad("{\"checks\": [{\"name\": \"a\", \"run\": [\"x\"], \"forward\": [80]}]}",
		  "key 'checks[0].forward'", "item 0 is not a forward");
	parse_bad("{\"checks\": [{\"name\": \"a\", \"run\": [\"x\"], \"forward\": [\"80\"],"
		  " \"net\": true}]}", "key 'checks[0].forward'", "not with");
	parse_bad("{\"checks\": [{\"name\": \"a\", \"run\": [\"x\"], \"deny_private\": 1,"
		  " \"allow_hosts\": [\"a.com\"]}]}", "key 'checks[0].deny_private'", "true or false");
	parse_bad("{\"checks\": [{\"name\": \"a\", \"run\": [\"x\"], \"deny_private\": true}]}",
		  "key 'checks[0].deny_private'", "applies to allow_hosts");
	parse_bad("{\"checks\": [{\"name\": \"a\", \"run\": \"make test\"}]}",
		  "key 'checks[0].run'", "array");
	parse_bad("{\"checks\": [{\"name\": \"a\", \"run\": [\"x\", 3]}]}",
		  "key 'checks[0].run'", "item 1 is not a string");
}

static void test_policy__refuses_bad_numbers(void **state)
{
	(void)state;
	parse_bad("{\"max_changed_files\": -1}", "key 'max_changed_files'", "negative");
	parse_bad("{\"max_changed_lines\": -0.5}", "key 'max_changed_lines'", "negative");
	parse_bad("{\"max_changed_files\": 2.5}", "key 'max_changed_files'", "whole number");
	parse_bad("{\"max_changed_files\": 1e300}", "key 'max_changed_files'", "at most");
	parse_bad("{\"checks\": [{\"name\": \"a\", \"run\": [\"x\"], \"timeout\": 0}]}",
		  "key 'checks[0].timeout'", "at least 1");
	parse_bad("{\"checks\": [{\"name\": \"a\", \"run\": [\"x\"], \"timeout\": -5}]}",
		  "key 'checks[0].timeout'", "negative");
	parse_bad("{\"checks\": [{\"name\": \"a\", \"run\": [\"x\"], \"timeout\": 100000}]}",
		  "key 'checks[0].timeout'", "at most");
}

static void test_policy__refuses_bad_checks(void **state)
{
	(void)state;
	parse_bad("{\"checks\": [{\"name\": \"a\", \"run\": []}]}", "key 'checks[0].run'",
		  "non-empty");
	parse_bad("{\"checks\": [{\"name\": \"a\", \"run\": [\"\"]}]}", "key 'checks[0].run'",
		  "empty");
	parse_bad("{\"checks\": [{\"name\": \"a\"}]}", "key 'checks[0].run'", NULL);
	parse_bad("{\"checks\": [{\"run\": [\"x\"]}]}", "key 'checks[0].name'", "non-empty");
	parse_bad("{\"checks\": [{\"name\": \"\", \"run\": [\"x\"]}]}", "key 'checks[0].name'",
		  "non-empty");
	parse_bad("{\"checks\": [{\"name\": \"a\", \"run\": [\"x\"]},"
		  " {\"name\": \"a\", \"run\": [\"y\"]}]}",
		  "key 'checks[1].name'", "names two checks");
	parse_bad("{\"checks\": [{\"name\": \"allow_binary\", \"run\": [\"x\"]}]}",
		  "key 'checks[0].name'", "built-in rule");
	parse_bad("{\"checks\": [{\"name\": \"a\\nb\", \"run\": [\"x\"]}]}",
		  "key 'checks[0].name'", "control character");
}

static void test_policy__refuses_bad_globs(void **state)
{
	(void)state;
	parse_bad("{\"protected_paths\": [\"ok\", \"a**\"]}", "key 'protected_paths'",
		  "bad glob 'a**'");
	parse_bad("{\"protected_paths\": [\"\"]}", "key 'protected_paths'", "empty pattern");
	parse_bad("{\"protected_paths\": [\"[ab]\"]}", "key 'protected_paths'", "bad glob");
	parse_bad("{\"protected_paths\": [\"../x\"]}", "key 'protected_paths'", "'..'");
}

/* ---- evaluation ---- */

struct fixture {
	struct at_change_set cs;
	struct at_policy p;
	struct at_policy_result res;
};

static void add_file(struct at_change_set *cs, const char *path, const char *old_path,
		     enum at_change_status st, unsigned int mode, size_t add, size_t del,
		     bool binary, const char *target)
{
	struct at_change_file *f;

	cs->files = realloc(cs->files, (cs->nfiles + 1) * sizeof(*cs->files));
	assert_non_null(cs->files);
	f = &cs->files[cs->nfiles++];
	memset(f, 0, sizeof(*f));
	f->path = strdup(path);
	f->old_path = old_path ? strdup(old_path) : NULL;
	f->status = st;
	f->old_mode = st == AT_CHANGE_ADDED ? 0 : mode;
	f->new_mode = st == AT_CHANGE_DELETED ? 0 : mode;
	f->additions = add;
	f->deletions = del;
	f->binary = binary;
	f->link_target = target ? strdup(target) : NULL;
	cs->additions += add;
	cs->deletions += del;
}

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	if (!fx)
		return -1;
	add_file(&fx->cs, "README", NULL, AT_CHANGE_MODIFIED, 0100644, 3, 1, false, NULL);
	add_file(&fx->cs, "src/new.c", NULL, AT_CHANGE_ADDED, 0100644, 10, 0, false, NULL);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	at_change_set_release(&fx->cs);
	at_policy_release(&fx->p);
	at_policy_result_release(&fx->res);
	free(fx);
	return 0;
}

static const struct at_rule_result *evaluate(struct fixture *fx, const char *policy,
					     const char *rule)
{
	struct at_error err = AT_ERROR_INIT;
	size_t i;

	at_policy_release(&fx->p);
	at_policy_result_release(&fx->res);
	parse_ok(&fx->p, policy);
	assert_int_equal(at_policy_evaluate(&fx->p, &fx->cs, &fx->res, &err), 0);
	assert_int_equal(fx->res.count, 5);
	for (i = 0; i < fx->res.count; i++)
		if (strcmp(fx->res.rules[i].rule, rule) == 0)
			return &fx->res.rules[i];
	fail_msg("no result for rule '%s'", rule);
	return NULL;
}

static void test_policy__reports_every_builtin_rule_in_order(void **state)
{
	struct fixture *fx = *state;
	static const char *const order[] = { "protected_paths", "max_changed_files",
					     "max_changed_lines", "allow_binary",
					     "allow_symlinks_out" };
	size_t i;

	evaluate(fx, "{}", "protected_paths");
	for (i = 0; i < 5; i++) {
		assert_string_equal(fx->res.rules[i].rule, order[i]);
		assert_true(fx->res.rules[i].passed);
		assert_false(fx->res.rules[i].is_check);
		assert_int_equal(fx->res.rules[i].npaths, 0);
	}
	assert_true(at_policy_result_passed(&fx->res));
}

static void test_policy__protected_paths_fail_on_a_change_below(void **state)
{
	struct fixture *fx = *state;
	const struct at_rule_result *r;

	r = evaluate(fx, "{\"protected_paths\": [\"secrets\", \"docs/**\"]}", "protected_paths");
	assert_true(r->passed);
	add_file(&fx->cs, "secrets/prod/key", NULL, AT_CHANGE_MODIFIED, 0100644, 1, 1, false,
		 NULL);
	r = evaluate(fx, "{\"protected_paths\": [\"secrets\", \"docs/**\"]}", "protected_paths");
	assert_false(r->passed);
	assert_int_equal(r->npaths, 1);
	assert_string_equal(r->paths[0], "secrets/prod/key");
	assert_non_null(strstr(r->message, "'secrets/prod/key' by 'secrets'"));
	assert_false(at_policy_result_passed(&fx->res));
}

static void test_policy__protected_paths_see_the_old_path_of_a_rename(void **state)
{
	struct fixture *fx = *state;
	const struct at_rule_result *r;

	add_file(&fx->cs, "public/key", "secrets/key", AT_CHANGE_RENAMED, 0100644, 0, 0, false,
		 NULL);
	r = evaluate(fx, "{\"protected_paths\": [\"secrets/*\"]}", "protected_paths");
	assert_false(r->passed);
	assert_int_equal(r->npaths, 1);
	assert_string_equal(r->paths[0], "secrets/key");
}

static void test_policy__protected_paths_see_deletions(void **state)
{
	struct fixture *fx = *state;
	const struct at_rule_result *r;

	add_file(&fx->cs, ".github/workflows/ci.yml", NULL, AT_CHANGE_DELETED, 0100644, 0, 20,
		 false, NULL);
	r = evaluate(fx, "{\"protected_paths\": [\".github\"]}", "protected_paths");
	assert_false(r->passed);
	assert_string_equal(r->paths[0], ".github/workflows/ci.yml");
}

static void test_policy__max_changed_files_is_inclusive(void **state)
{
	struct fixture *fx = *state;
	const struct at_rule_result *r;

	r = evaluate(fx, "{\"max_changed_files\": 2}", "max_changed_files");
	assert_true(r->passed);
	assert_non_null(strstr(r->message, "2 files changed"));
	r = evaluate(fx, "{\"max_changed_files\": 1}", "max_changed_files");
	assert_false(r->passed);
	assert_int_equal(r->npaths, 2);
	assert_non_null(strstr(r->message, "limit of 1"));
	r = evaluate(fx, "{}", "max_changed_files");
	assert_true(r->passed);
	assert_non_null(strstr(r->message, "no limit"));
}

static void test_policy__max_changed_lines_counts_additions_and_deletions(void **state)
{
	struct fixture *fx = *state;
	const struct at_rule_result *r;

	/* README +3 -1, src/new.c +10: 14 lines. */
	r = evaluate(fx, "{\"max_changed_lines\": 14}", "max_changed_lines");
	assert_true(r->passed);
	assert_non_null(strstr(r->message, "14 lines changed (+13 -1)"));
	r = evaluate(fx, "{\"max_changed_lines\": 13}", "max_changed_lines");
	assert_false(r->passed);
	assert_int_equal(r->npaths, 2);
}

static void test_policy__binary_files_fail_only_when_disallowed(void **state)
{
	struct fixture *fx = *state;
	const struct at_rule_result *r;

	add_file(&fx->cs, "logo.png", NULL, AT_CHANGE_ADDED, 0100644, 0, 0, true, NULL);
	add_file(&fx->cs, "old.bin", NULL, AT_CHANGE_DELETED, 0100644, 0, 0, true, NULL);
	r = evaluate(fx, "{}", "allow_binary");
	assert_true(r->passed);
	r = evaluate(fx, "{\"allow_binary\": false}", "allow_binary");
	assert_false(r->passed);
	assert_int_equal(r->npaths, 1);       /* a deleted binary is no harm */
	assert_string_equal(r->paths[0], "logo.png");
}

static void test_policy__symlinks_out_of_the_repository_fail(void **state)
{
	struct fixture *fx = *state;
	const struct at_rule_result *r;

	add_file(&fx->cs, "ok", NULL, AT_CHANGE_ADDED, 0120000, 1, 0, false, "src/new.c");
	r = evaluate(fx, "{}", "allow_symlinks_out");
	assert_true(r->passed);
	add_file(&fx->cs, "sub/out", NULL, AT_CHANGE_ADDED, 0120000, 1, 0, false, "../../etc");
	add_file(&fx->cs, "zabs", NULL, AT_CHANGE_ADDED, 0120000, 1, 0, false, "/etc/passwd");
	r = evaluate(fx, "{}", "allow_symlinks_out");
	assert_false(r->passed);
	assert_int_equal(r->npaths, 2);
	assert_string_equal(r->paths[0], "sub/out");
	assert_string_equal(r->paths[1], "zabs");
	assert_non_null(strstr(r->message, "'sub/out' -> '../../etc'"));
	r = evaluate(fx, "{\"allow_symlinks_out\": true}", "allow_symlinks_out");
	assert_true(r->passed);
}

static void test_policy__link_escape_is_judged_after_normalising(void **state)
{
	(void)state;
	assert_true(at_policy_link_escapes("l", "/abs"));
	assert_true(at_policy_link_escapes("l", ".."));
	assert_true(at_policy_link_escapes("l", "../x"));
	assert_true(at_policy_link_escapes("a/l", "../../x"));
	assert_true(at_policy_link_escapes("a/l", "b/../../../x"));
	assert_true(at_policy_link_escapes("a/l", "../a/../../x"));
	assert_true(at_policy_link_escapes("l", "x/../.."));
	assert_true(at_policy_link_escapes("l", NULL));
	assert_false(at_policy_link_escapes("l", "."));
	assert_false(at_policy_link_escapes("l", "x"));
	assert_false(at_policy_link_escapes("a/l", ".."));
	assert_false(at_policy_link_escapes("a/b/l", "../../x"));
	assert_false(at_policy_link_escapes("a/l", "././/../b"));
	/* A ".." after a name may climb out of a symlink of that name: with
	 * a/l1 -> "..", "a/l1/.." is the repository's parent. */
	assert_true(at_policy_link_escapes("l", "x/y/../../z"));
	assert_true(at_policy_link_escapes("up", "a/l1/.."));
	assert_true(at_policy_link_escapes("a/b/l", "../x/../y"));
	assert_false(at_policy_link_escapes("a/b/l", "../../x/y"));
	assert_false(at_policy_link_escapes("l", ""));
}

static void test_policy__a_deleted_symlink_is_no_harm(void **state)
{
	struct fixture *fx = *state;
	const struct at_rule_result *r;

	add_file(&fx->cs, "gone", NULL, AT_CHANGE_DELETED, 0120000, 0, 1, false, "/etc");
	r = evaluate(fx, "{}", "allow_symlinks_out");
	assert_true(r->passed);
}

static void test_policy__check_results_join_the_verdict(void **state)
{
	struct fixture *fx = *state;
	struct at_error err = AT_ERROR_INIT;

	evaluate(fx, "{}", "protected_paths");
	assert_int_equal(at_policy_result_add(&fx->res, "unit", true, "exit 0", "ok\n", &err), 0);
	assert_true(at_policy_result_passed(&fx->res));
	assert_int_equal(at_policy_result_add(&fx->res, "lint", false, "exit 1", NULL, &err), 0);
	assert_false(at_policy_result_passed(&fx->res));
	assert_int_equal(fx->res.count, 7);
	assert_true(fx->res.rules[5].is_check);
	assert_string_equal(fx->res.rules[5].output, "ok\n");
	assert_null(fx->res.rules[6].output);
}

/* What: a check named after the rule, a wrong value. Must: refused; the default reviews. */
static void test_policy__host_files_reviews_unless_allowed(void **state)
{
	struct at_strlist paths = AT_STRLIST_INIT;
	struct at_policy_result res = { NULL, 0, 0 };
	struct at_error err = AT_ERROR_INIT;
	struct at_policy p;

	(void)state;
	parse_bad("{\"checks\": [{\"name\": \"host_files\", \"run\": [\"x\"]}]}", "built-in rule",
		  NULL);
	parse_ok(&p, "{}");
	assert_false(p.allow_host_files);
	at_policy_release(&p);
	parse_ok(&p, "{\"host_files\": \"review\"}");
	assert_false(p.allow_host_files);
	at_policy_release(&p);
	/* No change: passes, with or without a policy. */
	assert_int_equal(at_policy_rule_host_files(NULL, &paths, &res, &err), 0);
	assert_true(res.rules[0].passed);
	at_policy_result_release(&res);
	/* Without a policy: fails, every path listed. */
	assert_int_equal(at_strlist_push(&paths, ".envrc"), 0);
	assert_int_equal(at_strlist_push(&paths, ".vscode/tasks.json"), 0);
	assert_int_equal(at_policy_rule_host_files(NULL, &paths, &res, &err), 0);
	assert_string_equal(res.rules[0].rule, "host_files");
	assert_false(res.rules[0].passed);
	assert_int_equal(res.rules[0].npaths, 2);
	assert_non_null(strstr(res.rules[0].message, "'.envrc'"));
	assert_false(at_policy_result_passed(&res));
	at_policy_result_release(&res);
	/* The person's opt-out: passes, still listing them. */
	parse_ok(&p, "{\"host_files\": \"allow\"}");
	assert_true(p.allow_host_files);
	assert_int_equal(at_policy_rule_host_files(&p, &paths, &res, &err), 0);
	assert_true(res.rules[0].passed);
	assert_int_equal(res.rules[0].npaths, 2);
	at_policy_result_release(&res);
	at_policy_release(&p);
	at_strlist_release(&paths);
}

/*
 * What: open review comments under open_comments (and a check that takes the
 * rule's name). Must: no row without the key and without comments; with
 * comments and no key a passing row listing them; beyond the limit a failure.
 */
static void test_policy__open_comments_fail_beyond_the_limit(void **state)
{
	struct at_strlist open = AT_STRLIST_INIT;
	struct at_policy_result res = { NULL, 0, 0 };
	struct at_error err = AT_ERROR_INIT;
	struct at_policy p;

	(void)state;
	parse_bad("{\"checks\": [{\"name\": \"open_comments\", \"run\": [\"x\"]}]}",
		  "built-in rule", NULL);
	parse_bad("{\"open_comments\": -1}", "key 'open_comments'", NULL);
	parse_bad("{\"open_comments\": \"0\"}", "key 'open_comments'", NULL);
	assert_int_equal(at_policy_rule_open_comments(NULL, &open, &res, &err), 0);
	assert_int_equal(res.count, 0);
	assert_int_equal(at_strlist_push(&open, "1 a.c:3 why?"), 0);
	assert_int_equal(at_policy_rule_open_comments(NULL, &open, &res, &err), 0);
	assert_true(res.rules[0].passed);
	assert_int_equal(res.rules[0].npaths, 1);
	at_policy_result_release(&res);
	parse_ok(&p, "{\"open_comments\": 1}");
	assert_true(p.has_open_comments);
	assert_int_equal(at_policy_rule_open_comments(&p, &open, &res, &err), 0);
	assert_true(res.rules[0].passed);
	at_policy_result_release(&res);
	at_policy_release(&p);
	parse_ok(&p, "{\"open_comments\": 0}");
	assert_int_equal(at_policy_rule_open_comments(&p, &open, &res, &err), 0);
	assert_string_equal(res.rules[0].rule, "open_comments");
	assert_false(res.rules[0].passed);
	assert_string_equal(res.rules[0].paths[0], "1 a.c:3 why?");
	assert_false(at_policy_result_passed(&res));
	at_policy_result_release(&res);
	at_strlist_release(&open);
	/* and no comment at all under a limit of 0: a passing row */
	assert_int_equal(at_policy_rule_open_comments(&p, &open, &res, &err), 0);
	assert_true(res.rules[0].passed);
	at_policy_result_release(&res);
	at_policy_release(&p);
}

static void test_policy__release_accepts_zeroed_structures(void **state)
{
	struct at_policy p;
	struct at_policy_result r = { NULL, 0 };

	(void)state;
	memset(&p, 0, sizeof(p));
	at_policy_release(&p);
	at_policy_release(NULL);
	at_policy_result_release(&r);
	at_policy_result_release(NULL);
}

#define FX(t) cmocka_unit_test_setup_teardown(t, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_policy__empty_object_gives_defaults),
		cmocka_unit_test(test_policy__parses_every_key),
		cmocka_unit_test(test_policy__protects_its_own_directory_once),
		cmocka_unit_test(test_policy__refuses_invalid_json_and_non_objects),
		cmocka_unit_test(test_policy__refuses_unknown_and_duplicate_keys),
		cmocka_unit_test(test_policy__refuses_wrong_types),
		cmocka_unit_test(test_policy__refuses_bad_numbers),
		cmocka_unit_test(test_policy__refuses_bad_checks),
		cmocka_unit_test(test_policy__refuses_bad_globs),
		FX(test_policy__reports_every_builtin_rule_in_order),
		FX(test_policy__protected_paths_fail_on_a_change_below),
		FX(test_policy__protected_paths_see_the_old_path_of_a_rename),
		FX(test_policy__protected_paths_see_deletions),
		FX(test_policy__max_changed_files_is_inclusive),
		FX(test_policy__max_changed_lines_counts_additions_and_deletions),
		FX(test_policy__binary_files_fail_only_when_disallowed),
		FX(test_policy__symlinks_out_of_the_repository_fail),
		cmocka_unit_test(test_policy__link_escape_is_judged_after_normalising),
		FX(test_policy__a_deleted_symlink_is_no_harm),
		FX(test_policy__check_results_join_the_verdict),
		cmocka_unit_test(test_policy__host_files_reviews_unless_allowed),
		cmocka_unit_test(test_policy__open_comments_fail_beyond_the_limit),
		cmocka_unit_test(test_policy__release_accepts_zeroed_structures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
