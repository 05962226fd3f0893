/* Unit tests for core/audit.c: append-only JSON lines, corrupt lines reported. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/audit.h"
#include "core/fs.h"

#include "tests/unit/fixture.h"

static void append_run(struct fixture *f, int code)
{
	struct at_error err = AT_ERROR_INIT;
	at_json *e = at_json_object();

	assert_int_equal(at_json_add_string(e, "event", "run"), 0);
	assert_int_equal(at_json_add_number(e, "exit_code", code), 0);
	assert_int_equal(at_audit_append(&f->paths, "t1", e, &err), 0);
	at_json_free(e);
}

static void test_audit__appends_and_reads_back_in_order(void **state)
{
	struct fixture *f = *state;
	struct at_error err = AT_ERROR_INIT;
	at_json *log = NULL;
	double code;

	append_run(f, 0);
	append_run(f, 3);
	assert_int_equal(at_audit_read(&f->paths, "t1", &log, &err), 0);
	assert_int_equal(at_json_size(log), 2);
	assert_true(at_json_get_number(at_json_at(log, 1), "exit_code", &code));
	assert_int_equal((int)code, 3);
	assert_string_equal(at_json_get_string(at_json_at(log, 0), "event"), "run");
	assert_non_null(at_json_get_string(at_json_at(log, 0), "time"));
	at_json_free(log);
}

static void test_audit__missing_log_is_empty(void **state)
{
	struct fixture *f = *state;
	struct at_error err = AT_ERROR_INIT;
	at_json *log = NULL;

	assert_int_equal(at_audit_read(&f->paths, "nothing", &log, &err), 0);
	assert_int_equal(at_json_size(log), 0);
	at_json_free(log);
}

static void test_audit__corrupt_line_is_reported_not_fatal(void **state)
{
	struct fixture *f = *state;
	struct at_error err = AT_ERROR_INIT;
	char path[PATH_MAX];
	at_json *log = NULL;
	FILE *fp;
	double line;

	append_run(f, 0);
	assert_int_equal(at_audit_path(&f->paths, "t1", path, sizeof(path)), 0);
	fp = fopen(path, "a");
	assert_non_null(fp);
	fputs("{\"event\": \"run\", trunc\n[1,2]\n", fp);
	fclose(fp);
	append_run(f, 1);
	assert_int_equal(at_audit_read(&f->paths, "t1", &log, &err), 0);
	assert_int_equal(at_json_size(log), 4);
	assert_string_equal(at_json_get_string(at_json_at(log, 1), "event"), "corrupt");
	assert_true(at_json_get_number(at_json_at(log, 1), "line", &line));
	assert_int_equal((int)line, 2);
	assert_string_equal(at_json_get_string(at_json_at(log, 2), "event"), "corrupt");
	assert_string_equal(at_json_get_string(at_json_at(log, 3), "event"), "run");
	at_json_free(log);
}

static void test_audit__refuses_entries_without_event_or_bad_names(void **state)
{
	struct fixture *f = *state;
	struct at_error err = AT_ERROR_INIT;
	at_json *e = at_json_object();

	assert_int_equal(at_audit_append(&f->paths, "t1", e, &err), AT_EUSAGE);
	at_error_clear(&err);
	at_json_add_string(e, "event", "run");
	assert_true(at_audit_append(&f->paths, "../x", e, &err) < 0);
	at_json_free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_audit__appends_and_reads_back_in_order, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_audit__missing_log_is_empty, setup, teardown),
		cmocka_unit_test_setup_teardown(test_audit__corrupt_line_is_reported_not_fatal, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_audit__refuses_entries_without_event_or_bad_names,
						setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
