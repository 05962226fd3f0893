/*
 * Unit tests for cmd/opt.c, the option tables every command declares its
 * options in once: the tables themselves (each synopsis names only options
 * of its command, no name twice), the parser, the help's layout and the
 * synopsis made from a table.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "core/strlist.h"

/* Every command's table, as the parser and the help read it. */
static void test_opt__every_table_names_each_option_once(void **state)
{
	const struct at_command *c;
	const struct at_cli_opt *o, *p;
	size_t n;

	(void)state;
	for (c = at_commands; c->name; c++) {
		if (!c->opts)   /* help's own, help.c's */
			continue;
		for (o = c->opts, n = 0; o->name || o->key; o++, n++) {
			/* -h and --help are every command's: no table may take them. */
			assert_int_not_equal(o->key, 'h');
			assert_false(o->name && strcmp(o->name, "help") == 0);
			/* A short alias alone is never shown: it has no line of its own. */
			assert_true(o->name || !o->help);
			assert_non_null(o->set);
			for (p = c->opts; p != o; p++) {
				assert_false(o->name && p->name && strcmp(o->name, p->name) == 0);
				assert_false(o->key && o->key == p->key);
			}
		}
		assert_true(n <= AT_CLI_OPTS_MAX);
	}
}

/* What a synopsis names is an option of its command: the synopsis cannot drift from the parser. */
static void test_opt__every_synopsis_names_options_of_its_command(void **state)
{
	const struct at_command *c;
	char buf[1024];

	(void)state;
	for (c = at_commands; c->name; c++) {
		if (!c->opts)
			continue;
		if (at_cli_synopsis(buf, sizeof(buf), c->usage, c->opts) != 0)
			fail_msg("the synopsis of '%s' names an option it does not have: %s", c->name,
				 c->usage);
	}
}

struct args {
	bool flag;
	const char *str, *color;
	struct at_strlist list;
	int n;
};

static int set_n(void *field, const struct at_cli_opt *opt, const char *value,
		 struct at_error *err)
{
	if (strcmp(value, "bad") == 0)
		return at_error_set(err, AT_EUSAGE, "invalid --n '%s'", value);
	*(int *)field = (int)opt->val;
	return 0;
}

static const struct at_cli_opt opts[] = {
	AT_CLI_OPT_FLAG('f', "flag", struct args, flag, "a flag"),
	AT_CLI_OPT_STRING(0, "base", "REV", struct args, str,
			  "start from REV, a text long enough\nto go on"),
	AT_CLI_OPT_LIST(0, "allow-host", "PATTERN", struct args, list, "repeatable"),
	AT_CLI_OPT_FLAG(0, "fifteen-chars", struct args, flag, "as wide as the column"),
	AT_CLI_OPT_COLOR(struct args, color, "colour"),
	AT_CLI_OPT_CALL('n', "n", "N", set_n, struct args, n, 7, "\n     as it is\n"),
	AT_CLI_OPT_STRING('b', NULL, "REV", struct args, str, NULL),
	AT_CLI_OPT_FLAG(0, "hidden", struct args, flag, NULL),
	AT_CLI_OPT_END,
};

static int parse(struct args *a, int argc, char **argv)
{
	memset(a, 0, sizeof(*a));
	optind = 0;
	return at_cli_parse("test", opts, argc, argv, a);
}

static void test_opt__parse_sets_each_field_by_its_entry(void **state)
{
	char *argv[] = { "test", "-f", "--base=x", "--allow-host", "a", "--allow-host=b",
			 "--color", "-n", "1", "NAME", NULL };
	char *later[] = { "test", "-bREV", "--color=never", "--no-color", NULL };
	struct args a;

	(void)state;
	assert_int_equal(parse(&a, 10, argv), -1);
	assert_true(a.flag);
	assert_string_equal(a.str, "x");
	assert_int_equal(a.list.n, 2);
	assert_string_equal(a.list.v[1], "b");
	assert_string_equal(a.color, "always");
	assert_int_equal(a.n, 7);
	assert_int_equal(optind, 9);   /* the operand */
	at_strlist_release(&a.list);
	assert_int_equal(parse(&a, 4, later), -1);
	assert_string_equal(a.str, "REV");
	assert_string_equal(a.color, "never");
}

static void test_opt__parse_refuses_what_the_table_refuses(void **state)
{
	char *help[] = { "test", "--help", NULL }, *unknown[] = { "test", "--frob", NULL };
	char *novalue[] = { "test", "--base", NULL }, *bad[] = { "test", "--n=bad", NULL };
	char *h[] = { "test", "-h", NULL };
	struct args a;

	(void)state;
	assert_int_equal(parse(&a, 2, help), AT_EXIT_HELP);
	assert_int_equal(parse(&a, 2, h), AT_EXIT_HELP);
	assert_int_equal(parse(&a, 2, unknown), AT_EXIT_USAGE);
	assert_int_equal(parse(&a, 2, novalue), AT_EXIT_USAGE);
	assert_int_equal(parse(&a, 2, bad), AT_EXIT_USAGE);
}

static void test_opt__help_lays_out_the_options_in_columns(void **state)
{
	static const char want[] =
		"  -f, --flag     a flag\n"
		"  --base REV     start from REV, a text long enough\n"
		"                 to go on\n"
		"  --allow-host PATTERN  repeatable\n"
		"  --fifteen-chars  as wide as the column\n"
		"  --color[=WHEN] colour\n"
		"  --no-color     the same as --color=never\n"
		"  -n, --n N\n"
		"     as it is\n";
	char *text = NULL;
	size_t n;
	FILE *f = open_memstream(&text, &n);

	(void)state;
	assert_non_null(f);
	at_cli_opts_help(f, opts, 15);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(text, want);
	free(text);
}

static void test_opt__synopsis_takes_each_argument_from_the_table(void **state)
{
	char buf[256];

	(void)state;
	assert_int_equal(at_cli_synopsis(buf, sizeof(buf),
					 "agenttask x [-C DIR] [--base] [-n] [--color | --no-color]\n"
					 "            [-f] -- CMD [-- PATH...]", opts), 0);
	assert_string_equal(buf, "agenttask x [-C DIR] [--base REV] [-n N] [--color[=WHEN] | "
				 "--no-color]\n            [-f] -- CMD [-- PATH...]");
	assert_int_equal(at_cli_synopsis(buf, sizeof(buf), "x [--frob]", opts), -1);
	assert_int_equal(at_cli_synopsis(buf, 8, "x [--base] [--flag]", opts), 0);
	assert_string_equal(buf, "x [--ba");   /* cut, NUL-terminated */
}

static void test_opt__completion_lists_the_shown_options(void **state)
{
	static const char want[] =
		"f|--flag||a flag\n"
		"|--base|REV|start from REV, a text long enough\n"
		"|--allow-host|PATTERN|repeatable\n"
		"|--fifteen-chars||as wide as the column\n"
		"|--color|[=WHEN]|colour\n"
		"|--no-color||the same as --color=never\n"
		"n|--n|N|as it is\n"
		"|--help||print this help\n";
	char *text = NULL;
	size_t n;
	FILE *f = open_memstream(&text, &n);

	(void)state;
	assert_non_null(f);
	at_cli_opts_complete(f, opts);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(text, want);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_opt__every_table_names_each_option_once),
		cmocka_unit_test(test_opt__every_synopsis_names_options_of_its_command),
		cmocka_unit_test(test_opt__parse_sets_each_field_by_its_entry),
		cmocka_unit_test(test_opt__parse_refuses_what_the_table_refuses),
		cmocka_unit_test(test_opt__help_lays_out_the_options_in_columns),
		cmocka_unit_test(test_opt__synopsis_takes_each_argument_from_the_table),
		cmocka_unit_test(test_opt__completion_lists_the_shown_options),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
