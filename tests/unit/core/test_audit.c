/* Unit tests for core/audit.c: append-only JSON lines, corrupt lines reported, the schema. */
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
	/* Its error is {code, message}, as every error is. */
	assert_string_equal(at_json_get_string(at_json_get(at_json_at(log, 1), "error"), "code"),
			    "corrupt");
	assert_true(strlen(at_json_get_string(at_json_get(at_json_at(log, 1), "error"),
					      "message")) > 0);
	at_json_free(log);
}

/* Entry i's error: its code and message, joined by ": " into buf. */
static void error_of(const at_json *log, size_t i, char *buf, size_t size)
{
	const at_json *e = at_json_get(at_json_at(log, i), "error");

	assert_true(at_json_is_object(e));
	snprintf(buf, size, "%s: %s", at_json_get_string(e, "code"),
		 at_json_get_string(e, "message"));
}

/*
 * A run's error is {code, message}: the setup's own code when the sandbox
 * could not be set up, "exec" when the command could not be executed; a
 * string an older agenttask wrote is read as the object too.
 */
static void test_audit__a_runs_error_is_code_and_message(void **state)
{
	struct fixture *f = *state;
	struct at_error err = AT_ERROR_INIT, why = AT_ERROR_INIT;
	struct at_run_result res;
	struct at_audit_run run = { 0 };
	char *argv[] = { "nosuch", NULL };
	char path[PATH_MAX], text[300];
	at_json *log = NULL;
	FILE *fp;

	at_run_result_init(&res);
	run.argv = argv;
	run.res = &res;
	run.exit_code = 125;
	at_error_set(&why, AT_ESANDBOX, "no user namespaces");
	run.error = &why;
	assert_int_equal(at_audit_run(&f->paths, "t1", &run, &err), 0);
	run.error = NULL;
	run.exit_code = 127;
	res.exec_failed = true;
	strcpy(res.exec_error, "'nosuch': not found");
	assert_int_equal(at_audit_run(&f->paths, "t1", &run, &err), 0);
	assert_int_equal(at_audit_path(&f->paths, "t1", path, sizeof(path)), 0);
	fp = fopen(path, "a");
	assert_non_null(fp);
	fputs("{\"event\": \"run\", \"exit_code\": 125, \"error\": \"old setup\"}\n", fp);
	fputs("{\"event\": \"run\", \"exit_code\": 126, \"error\": \"old exec\"}\n", fp);
	fclose(fp);

	assert_int_equal(at_audit_read(&f->paths, "t1", &log, &err), 0);
	assert_int_equal(at_json_size(log), 4);
	error_of(log, 0, text, sizeof(text));
	assert_string_equal(text, "sandbox: no user namespaces");
	error_of(log, 1, text, sizeof(text));
	assert_string_equal(text, "exec: 'nosuch': not found");
	error_of(log, 2, text, sizeof(text));
	assert_string_equal(text, "sandbox: old setup");
	error_of(log, 3, text, sizeof(text));
	assert_string_equal(text, "exec: old exec");
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

/* The members of entry i of t1's log, sorted, joined by spaces. */
static void keys_of(struct fixture *f, size_t i, char *buf, size_t size)
{
	struct at_error err = AT_ERROR_INIT;
	struct at_strlist keys = AT_STRLIST_INIT;
	const at_json *m;
	at_json *log = NULL;
	size_t k, len = 0;

	assert_int_equal(at_audit_read(&f->paths, "t1", &log, &err), 0);
	assert_true(i < at_json_size(log));
	for (m = at_json_child(at_json_at(log, i)); m; m = at_json_next(m))
		assert_int_equal(at_strlist_push(&keys, at_json_key(m)), 0);
	at_strlist_sort_unique(&keys);
	buf[0] = '\0';
	for (k = 0; k < keys.n; k++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s", k ? " " : "", keys.v[k]);
	at_strlist_release(&keys);
	at_json_free(log);
}

/*
 * Each builder writes exactly the members core/audit.h documents for its
 * event: the schema is written down once, and this holds the code to it.
 */
static void test_audit__each_event_has_the_members_of_its_schema(void **state)
{
	struct fixture *f = *state;
	struct at_error err = AT_ERROR_INIT;
	struct at_strlist failed = AT_STRLIST_INIT;
	struct at_run_result res;
	struct at_run_bind bind = { "/data", true };
	struct at_limits lim = { { 0 } };
	char *argv[] = { "make", "test", NULL };
	struct at_audit_run run = { argv, &res, 3, false, &bind, 1, &lim, 1000, NULL };
	struct at_oid id;
	struct at_task t;
	char keys[512];

	memset(&id, 0xab, sizeof(id));
	assert_int_equal(at_task_init(&t, &f->paths, "t1", &err), 0);
	strcpy(t.base_branch, "refs/heads/main");
	at_oid_fmt(t.base_commit, &id);
	at_run_result_init(&res);
	lim.value[AT_LIMIT_MEMORY] = 1 << 20;
	assert_int_equal(at_strlist_push(&failed, "max_changed_files"), 0);
	assert_int_equal(at_audit_new(&f->paths, &t, &err), 0);
	assert_int_equal(at_audit_run(&f->paths, "t1", &run, &err), 0);
	assert_int_equal(at_audit_gate(&f->paths, "t1", false, &id, "main:p", &failed, NULL, &err), 0);
	assert_int_equal(at_audit_override(&f->paths, &t, "urgent", &id, &err), 0);
	assert_int_equal(at_audit_accept(&f->paths, "t1", t.base_branch, &id, "merge", &err), 0);
	assert_int_equal(at_audit_commit(&f->paths, "t1", &id, &err), 0);
	assert_int_equal(at_audit_discard(&f->paths, "t1", "refs/agenttask/trash/t1/1.2", false,
					  &err), 0);
	assert_int_equal(at_audit_restore(&f->paths, &t, "refs/agenttask/trash/t1/1.2", &err), 0);
	assert_int_equal(at_audit_file(&f->paths, "t1", "write", "src/a.c", 12, true, &err), 0);
	assert_int_equal(at_audit_file(&f->paths, "t1", "delete", "src/a.c", 0, false, &err), 0);
	at_strlist_release(&failed);

	keys_of(f, 0, keys, sizeof(keys));
	assert_string_equal(keys, "base_branch base_commit event time");
	keys_of(f, 1, keys, sizeof(keys));
	assert_string_equal(keys, "argv binds duration_ms event exit_code limits max_rss_kb net "
			    "signal start sys_cpu_ms task time timed_out user_cpu_ms");
	keys_of(f, 2, keys, sizeof(keys));
	assert_string_equal(keys, "event failed passed policy task time tree");
	keys_of(f, 3, keys, sizeof(keys));
	assert_string_equal(keys, "base_branch event reason time tree");
	keys_of(f, 4, keys, sizeof(keys));
	assert_string_equal(keys, "base_branch commit event result time");
	keys_of(f, 5, keys, sizeof(keys));
	assert_string_equal(keys, "commit event time");
	keys_of(f, 6, keys, sizeof(keys));
	assert_string_equal(keys, "event saved time trash");
	keys_of(f, 7, keys, sizeof(keys));
	assert_string_equal(keys, "base_branch event time trash");
	keys_of(f, 8, keys, sizeof(keys));
	assert_string_equal(keys, "bytes created event op path time");
	keys_of(f, 9, keys, sizeof(keys));
	assert_string_equal(keys, "bytes event op path time");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_audit__appends_and_reads_back_in_order, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_audit__missing_log_is_empty, setup, teardown),
		cmocka_unit_test_setup_teardown(test_audit__corrupt_line_is_reported_not_fatal, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_audit__a_runs_error_is_code_and_message, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_audit__refuses_entries_without_event_or_bad_names,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_audit__each_event_has_the_members_of_its_schema,
						setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
