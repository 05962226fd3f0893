/*
 * Unit tests for core/comments.c: the review comments' file, written and
 * read back, and what is refused where it enters (a file edited by hand, or
 * torn: the comments are instructions to the agent, so a malformed one is
 * an error, never a guess).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/comments.h"

#define TREE "0123456789abcdef0123456789abcdef01234567"

static struct at_oid tree(void)
{
	struct at_oid t;

	assert_int_equal(at_oid_parse(&t, TREE), 0);
	return t;
}

static void test_comments__round_trip_keeps_every_field_and_the_next_id(void **state)
{
	struct at_comments c = { 0 }, back;
	struct at_error err = AT_ERROR_INIT;
	struct at_oid t = tree();
	unsigned long id = 0;
	char *text;

	(void)state;
	assert_int_equal(at_comments_add(&c, &t, "src/a.c", 3, 5, "why?\nsee", 1700000000, &id,
					 &err), 0);
	assert_int_equal(id, 1);
	assert_int_equal(at_comments_add(&c, &t, NULL, 9, 9, "all of it", 1700000001, &id, &err),
			 0);
	assert_int_equal(id, 2);
	c.v[0].resolved = true;
	c.reviewed = t;
	c.has_reviewed = true;
	text = at_comments_to_json(&c);
	assert_non_null(text);
	assert_int_equal(at_comments_from_json(text, "f", &back, &err), 0);
	assert_int_equal(back.n, 2);
	assert_string_equal(back.v[0].path, "src/a.c");
	assert_int_equal(back.v[0].first, 3);
	assert_int_equal(back.v[0].last, 5);
	assert_string_equal(back.v[0].text, "why?\nsee");
	assert_true(back.v[0].resolved);
	assert_null(back.v[1].path);
	assert_int_equal(back.v[1].first, 0);
	assert_true(back.has_reviewed);
	assert_int_equal(at_comments_open(&back), 1);
	/* a resolved comment's id is never given again */
	assert_int_equal(at_comments_add(&back, &t, NULL, 0, 0, "more", 1, &id, &err), 0);
	assert_int_equal(id, 3);
	assert_non_null(at_comments_find(&back, 2));
	assert_null(at_comments_find(&back, 9));
	free(text);
	at_comments_release(&c);
	at_comments_release(&back);
}

static void test_comments__empty_or_oversized_text_is_refused(void **state)
{
	struct at_comments c = { 0 };
	struct at_error err = AT_ERROR_INIT;
	struct at_oid t = tree();
	char *big = malloc(AT_COMMENT_TEXT_MAX + 2);

	(void)state;
	assert_non_null(big);
	memset(big, 'x', AT_COMMENT_TEXT_MAX + 1);
	big[AT_COMMENT_TEXT_MAX + 1] = '\0';
	assert_int_equal(at_comments_add(&c, &t, NULL, 0, 0, "", 1, NULL, &err), AT_EUSAGE);
	err = (struct at_error)AT_ERROR_INIT;
	assert_int_equal(at_comments_add(&c, &t, NULL, 0, 0, big, 1, NULL, &err), AT_EUSAGE);
	assert_int_equal(c.n, 0);
	free(big);
	at_comments_release(&c);
}

static void refused(const char *text)
{
	struct at_comments c;
	struct at_error err = AT_ERROR_INIT;

	c.n = 77;
	assert_int_equal(at_comments_from_json(text, "f", &c, &err), AT_ECORRUPT);
	assert_int_equal(c.n, 77);   /* *out untouched */
}

#define C(fields) "{\"version\":1,\"next_id\":3,\"reviewed\":null,\"comments\":[" fields "]}"
#define OK_TAIL "\"text\":\"t\",\"author\":\"person\",\"time\":1,\"resolved\":false}"

static void test_comments__a_malformed_file_is_refused_not_guessed(void **state)
{
	struct at_comments c;
	struct at_error err = AT_ERROR_INIT;

	(void)state;
	/* the well-formed one these break */
	assert_int_equal(at_comments_from_json(C("{\"id\":1,\"tree\":\"" TREE "\",\"path\":\"a\","
						 "\"first\":1,\"last\":2," OK_TAIL), "f", &c,
					       &err), 0);
	at_comments_release(&c);
	refused("[]");
	refused("{\"comments\":[]}");
	refused(C("{\"id\":0,\"tree\":\"" TREE "\",\"path\":null,\"first\":0,\"last\":0," OK_TAIL));
	refused(C("{\"id\":1.5,\"tree\":\"" TREE "\",\"path\":null,\"first\":0,\"last\":0," OK_TAIL));
	refused(C("{\"id\":1,\"tree\":\"xyz\",\"path\":null,\"first\":0,\"last\":0," OK_TAIL));
	refused(C("{\"id\":1,\"tree\":\"" TREE "\",\"path\":\"a\",\"first\":0,\"last\":1," OK_TAIL));
	refused(C("{\"id\":1,\"tree\":\"" TREE "\",\"path\":\"a\",\"first\":3,\"last\":2," OK_TAIL));
	refused(C("{\"id\":1,\"tree\":\"" TREE "\",\"path\":\"/etc/passwd\",\"first\":1,\"last\":1,"
		  OK_TAIL));
	refused(C("{\"id\":1,\"tree\":\"" TREE "\",\"path\":\"a\",\"first\":1,\"last\":1e300,"
		  OK_TAIL));
	refused(C("{\"id\":1,\"tree\":\"" TREE "\",\"path\":null,\"first\":0,\"last\":0,"
		  "\"text\":\"\",\"author\":\"person\",\"time\":1,\"resolved\":false}"));
	refused(C("{\"id\":1,\"tree\":\"" TREE "\",\"path\":null,\"first\":0,\"last\":0,"
		  "\"text\":\"t\",\"author\":\"person\",\"time\":1}"));
	refused(C("{\"id\":1,\"tree\":\"" TREE "\",\"path\":null,\"first\":0,\"last\":0," OK_TAIL
		  ",{\"id\":1,\"tree\":\"" TREE "\",\"path\":null,\"first\":0,\"last\":0," OK_TAIL));
	refused("{\"version\":1,\"next_id\":1,\"reviewed\":\"nope\",\"comments\":[]}");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_comments__round_trip_keeps_every_field_and_the_next_id),
		cmocka_unit_test(test_comments__empty_or_oversized_text_is_refused),
		cmocka_unit_test(test_comments__a_malformed_file_is_refused_not_guessed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
