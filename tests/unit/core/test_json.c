/* Unit tests for core/json.c: the one door to cJSON. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "core/json.h"

static at_json *parse_ok(const char *text)
{
	struct at_error err = AT_ERROR_INIT;
	at_json *j = NULL;

	assert_int_equal(at_json_parse(&j, text, "test", &err), 0);
	assert_non_null(j);
	return j;
}

static void test_json__builds_and_reads_back_an_object(void **state)
{
	at_json *o = at_json_object(), *arr = at_json_array(), *back;
	double n = 0;
	bool b = false;
	char *text;

	(void)state;
	assert_int_equal(at_json_add_string(o, "name", "fix \"it\"\n\xc3\xa9"), 0);
	assert_int_equal(at_json_add_number(o, "count", 42.5), 0);
	assert_int_equal(at_json_add_bool(o, "dirty", true), 0);
	assert_int_equal(at_json_add_null(o, "nothing"), 0);
	assert_int_equal(at_json_append(arr, at_json_string("a")), 0);
	assert_int_equal(at_json_append(arr, at_json_string("b")), 0);
	assert_int_equal(at_json_add(o, "list", arr), 0);

	text = at_json_print(o, false);
	assert_non_null(text);
	assert_null(strchr(text, '\n'));  /* compact is one line, the newline escaped */
	at_json_free(o);
	back = parse_ok(text);
	free(text);

	assert_true(at_json_is_object(back));
	assert_string_equal(at_json_get_string(back, "name"), "fix \"it\"\n\xc3\xa9");
	assert_true(at_json_get_number(back, "count", &n));
	assert_true(n == 42.5);
	assert_true(at_json_get_bool(back, "dirty", &b));
	assert_true(b);
	assert_non_null(at_json_get(back, "nothing"));
	assert_true(at_json_is_array(at_json_get(back, "list")));
	assert_int_equal(at_json_size(at_json_get(back, "list")), 2);
	assert_string_equal(at_json_string_value(at_json_at(at_json_get(back, "list"), 1)), "b");
	at_json_free(back);
}

static void test_json__pretty_print_parses_to_the_same_value(void **state)
{
	at_json *o = parse_ok("{\"a\":[1,2,{\"b\":\"c\"}],\"d\":false}");
	char *compact1, *pretty, *compact2;
	at_json *again;

	(void)state;
	pretty = at_json_print(o, true);
	compact1 = at_json_print(o, false);
	assert_non_null(strchr(pretty, '\n'));
	again = parse_ok(pretty);
	compact2 = at_json_print(again, false);
	assert_string_equal(compact1, compact2);
	free(pretty);
	free(compact1);
	free(compact2);
	at_json_free(o);
	at_json_free(again);
}

static void test_json__parse_failure_names_the_file_and_byte(void **state)
{
	struct at_error err = AT_ERROR_INIT;
	at_json *j = (at_json *)&err;  /* must stay untouched */

	(void)state;
	assert_int_equal(at_json_parse(&j, "{\"a\": tru}", "/x/state.json", &err), AT_ECORRUPT);
	assert_ptr_equal(j, (at_json *)&err);
	assert_non_null(strstr(err.msg, "'/x/state.json'"));
	assert_non_null(strstr(err.msg, "byte"));
}

static void test_json__parse_refuses_null_empty_and_trailing_text(void **state)
{
	struct at_error err = AT_ERROR_INIT;
	at_json *j = NULL;

	(void)state;
	assert_int_equal(at_json_parse(&j, NULL, "f", &err), AT_ECORRUPT);
	at_error_clear(&err);
	assert_int_equal(at_json_parse(&j, "", "f", &err), AT_ECORRUPT);
	at_error_clear(&err);
	assert_int_equal(at_json_parse(&j, "{} {}", "f", &err), AT_ECORRUPT);
	at_error_clear(&err);
	assert_int_equal(at_json_parse(&j, "[1,2", "f", &err), AT_ECORRUPT);
	assert_null(j);
}

/*
 * What: a message holds a key twice, so that a filter reading the last one
 * passes what a reader taking the first acts on (hole 9). Must: refused at
 * any depth, naming the key, nothing returned; the same key in sibling
 * objects, or as a value, is fine.
 */
static void test_json__parse_refuses_a_repeated_key_at_any_depth(void **state)
{
	static const char *const bad[] = {
		"{\"a\":1,\"a\":2}",
		"{\"x\":{\"b\":1,\"c\":2,\"b\":3}}",
		"[1,{\"y\":[{\"k\":true,\"k\":false}]}]",
		"{\"params\":{\"arguments\":{\"allow_hosts\":[],\"allow_hosts\":[\"e.com\"]}}}",
		"{\"a\\u0000x\":1,\"a\":2}",   /* cut at its NUL, the key is \"a\" twice */
	};
	struct at_error err = AT_ERROR_INIT;
	at_json *j;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		j = NULL;
		at_error_clear(&err);
		assert_int_equal(at_json_parse(&j, bad[i], "msg", &err), AT_ECORRUPT);
		assert_null(j);
		assert_non_null(strstr(err.msg, "duplicate key"));
	}
	assert_non_null(strstr(err.msg, "duplicate key 'a'"));
	j = NULL;
	at_error_clear(&err);
	assert_int_equal(at_json_parse(&j, bad[2], "msg", &err), AT_ECORRUPT);
	assert_non_null(strstr(err.msg, "duplicate key '[1].y[0].k'"));
	j = parse_ok("{\"a\":{\"a\":1},\"b\":{\"a\":2},\"c\":[{\"a\":1},{\"a\":1}],\"d\":\"a\"}");
	at_json_free(j);
}

static void test_json__accessors_are_null_safe(void **state)
{
	double n = 7;
	bool b = true;

	(void)state;
	assert_null(at_json_get(NULL, "k"));
	assert_null(at_json_get_string(NULL, "k"));
	assert_false(at_json_get_number(NULL, "k", &n));
	assert_false(at_json_get_bool(NULL, "k", &b));
	assert_true(n == 7);
	assert_true(b);
	assert_null(at_json_string_value(NULL));
	assert_true(at_json_number_value(NULL) == 0);
	assert_false(at_json_bool_value(NULL));
	assert_int_equal(at_json_size(NULL), 0);
	assert_null(at_json_at(NULL, 0));
	assert_null(at_json_child(NULL));
	assert_null(at_json_next(NULL));
	assert_null(at_json_key(NULL));
	assert_null(at_json_print(NULL, true));
	assert_false(at_json_is_object(NULL));
	assert_false(at_json_is_array(NULL));
	assert_false(at_json_is_string(NULL));
	assert_false(at_json_is_number(NULL));
	assert_false(at_json_is_bool(NULL));
	at_json_free(NULL);
}

static void test_json__accessors_reject_the_wrong_type(void **state)
{
	at_json *o = parse_ok("{\"s\":\"x\",\"n\":1,\"b\":true,\"a\":[],\"z\":null}");
	double n = 0;
	bool b = false;

	(void)state;
	assert_null(at_json_get_string(o, "n"));
	assert_null(at_json_get_string(o, "missing"));
	assert_false(at_json_get_number(o, "s", &n));
	assert_false(at_json_get_number(o, "b", &n));
	assert_false(at_json_get_bool(o, "n", &b));
	assert_false(at_json_get_bool(o, "z", &b));
	assert_null(at_json_get_string(o, "S"));   /* keys are case-sensitive */
	assert_null(at_json_get(at_json_get(o, "a"), "s"));  /* get on a non-object */
	assert_null(at_json_at(at_json_get(o, "a"), 0));
	assert_null(at_json_at(at_json_get(o, "a"), 5));
	at_json_free(o);
}

static void test_json__iterates_members_in_order_with_keys(void **state)
{
	at_json *o = parse_ok("{\"first\":1,\"second\":2,\"third\":3}");
	const char *want[] = { "first", "second", "third" };
	at_json *c;
	size_t i = 0;

	(void)state;
	for (c = at_json_child(o); c; c = at_json_next(c), i++) {
		assert_true(i < 3);
		assert_string_equal(at_json_key(c), want[i]);
		assert_true(at_json_number_value(c) == (double)(i + 1));
	}
	assert_int_equal(i, 3);
	at_json_free(o);
}

static void test_json__add_to_nothing_frees_the_item_and_fails(void **state)
{
	(void)state;
	/* LeakSanitizer (ASan build) checks that the items were freed. */
	assert_int_equal(at_json_add(NULL, "k", at_json_string("leak?")), -1);
	assert_int_equal(at_json_add_string(NULL, "k", "v"), -1);
	assert_int_equal(at_json_add_number(NULL, "k", 1), -1);
	assert_int_equal(at_json_append(NULL, at_json_array()), -1);
	{
		at_json *o = at_json_object();

		assert_int_equal(at_json_add(o, "k", NULL), -1);
		assert_null(at_json_child(o));
		at_json_free(o);
	}
}

static void test_json__null_string_becomes_empty(void **state)
{
	at_json *o = at_json_object();
	at_json *s = at_json_string(NULL);

	(void)state;
	assert_string_equal(at_json_string_value(s), "");
	at_json_free(s);
	assert_int_equal(at_json_add_string(o, "k", NULL), 0);
	assert_string_equal(at_json_get_string(o, "k"), "");
	at_json_free(o);
}

/* The JSON text of bytes b[0..n) as at_json_bytes makes it (printed), and lossless. */
static char *bytes_text(const char *b, size_t n, bool *lossless)
{
	at_json *o = at_json_object();
	char *text;

	assert_int_equal(at_json_add(o, "s", at_json_bytes(b, n, lossless)), 0);
	text = at_json_print(o, false);
	at_json_free(o);
	return text;
}

/*
 * A command's output may hold anything: NUL, controls, quotes, bytes that
 * are no UTF-8. The JSON must be valid, keep valid UTF-8 and NUL exactly,
 * and say when it could not be lossless (then base64 carries the bytes).
 */
static void test_json__bytes_are_escaped_and_lossless_when_text(void **state)
{
	static const char in[] = "a\0\"\\\n\t\x01\x7f caf\xc3\xa9";
	bool lossless = false;
	char *text = bytes_text(in, sizeof(in) - 1, &lossless);

	(void)state;
	assert_string_equal(text, "{\"s\":\"a\\u0000\\\"\\\\\\n\\t\\u0001\x7f caf\xc3\xa9\"}");
	assert_true(lossless);
	free(text);
	/* An invalid byte, a lone continuation, an overlong form, a cut character. */
	text = bytes_text("x\xffy\x80\xc0\xafz\xe2\x82", 9, &lossless);
	assert_string_equal(text, "{\"s\":\"x\xef\xbf\xbdy\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdz"
			    "\xef\xbf\xbd\xef\xbf\xbd\"}");
	assert_false(lossless);
	free(text);
}

static void test_json__base64_round_trips_every_length(void **state)
{
	unsigned char in[64];
	size_t n, len;
	char *back;

	(void)state;
	for (n = 0; n < sizeof(in); n++)
		in[n] = (unsigned char)(n * 37 + 250);
	for (n = 0; n < sizeof(in); n++) {
		at_json *j = at_json_base64(in, n);

		assert_int_equal(strlen(at_json_string_value(j)), (n + 2) / 3 * 4);
		assert_int_equal(at_base64_decode(at_json_string_value(j), &back, &len), 0);
		assert_int_equal(len, n);
		assert_memory_equal(back, in, n);
		free(back);
		at_json_free(j);
	}
	{
		at_json *j = at_json_base64("foob", 4);

		assert_string_equal(at_json_string_value(j), "Zm9vYg==");
		at_json_free(j);
	}
	assert_int_equal(at_base64_decode("Zm9v!", &back, &len), -1);
	assert_int_equal(at_base64_decode("Z", &back, &len), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json__builds_and_reads_back_an_object),
		cmocka_unit_test(test_json__pretty_print_parses_to_the_same_value),
		cmocka_unit_test(test_json__parse_failure_names_the_file_and_byte),
		cmocka_unit_test(test_json__parse_refuses_null_empty_and_trailing_text),
		cmocka_unit_test(test_json__parse_refuses_a_repeated_key_at_any_depth),
		cmocka_unit_test(test_json__accessors_are_null_safe),
		cmocka_unit_test(test_json__accessors_reject_the_wrong_type),
		cmocka_unit_test(test_json__iterates_members_in_order_with_keys),
		cmocka_unit_test(test_json__add_to_nothing_frees_the_item_and_fails),
		cmocka_unit_test(test_json__null_string_becomes_empty),
		cmocka_unit_test(test_json__bytes_are_escaped_and_lossless_when_text),
		cmocka_unit_test(test_json__base64_round_trips_every_length),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
