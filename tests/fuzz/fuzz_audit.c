/*
 * fuzz_audit.c - the audit log reader (core/audit.c).
 *
 * Every run appends a line to <state>/logs/NAME.jsonl, and the line holds
 * the task's argv and error text. The log is agenttask's, but a line cut by
 * a full disk or edited by hand must not stop `agenttask log`: each
 * non-empty line is one entry, in order, either the object it holds or a
 * {"event": "corrupt", "line": N} standing in for it. Reading the file and
 * parsing its bytes give the same entries.
 */
#include "tests/fuzz/fuzz.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/audit.h"

static bool same_json(const at_json *a, const at_json *b)
{
	char *x = at_json_print(a, false), *y = at_json_print(b, false);
	bool same = x && y && strcmp(x, y) == 0;

	free(x);
	free(y);
	return same;
}

/* Line by line: the object the line holds, or a stand-in naming it. */
static void check_entries(const at_json *arr, const uint8_t *data, size_t size)
{
	struct at_fuzz_input in = { data, size };
	size_t lineno = 0, k = 0;

	while (in.n) {
		struct at_fuzz_input line = at_fuzz_take_until(&in, '\n');
		struct at_error err = AT_ERROR_INIT;
		const at_json *e;
		at_json *want = NULL;
		char *text;
		double n;

		lineno++;
		if (!line.n)
			continue;
		AT_FUZZ_CHECK(k < at_json_size(arr));
		e = at_json_at(arr, k++);
		AT_FUZZ_CHECK(at_json_is_object(e));
		AT_FUZZ_CHECK((text = at_fuzz_strndup(line.p, line.n)) != NULL);
		if (at_json_parse(&want, text, "line", &err) == 0 && at_json_is_object(want)) {
			/*
			 * An error written as a string is read as {code, message},
			 * and an empty one is "failed", as in every error object.
			 */
			const char *old = at_json_get_string(want, "error");

			if (old) {
				const at_json *got = at_json_get(e, "error");
				const char *msg = got ? at_json_get_string(got, "message") : NULL;

				AT_FUZZ_CHECK(msg && strcmp(msg, old[0] ? old : "failed") == 0);
				AT_FUZZ_CHECK(at_json_set(want, "error", at_json_dup(got)) == 0);
			}
			AT_FUZZ_CHECK(same_json(e, want));
		} else {
			const char *event = at_json_get_string(e, "event");
			const at_json *why = at_json_get(e, "error");

			AT_FUZZ_CHECK(event && strcmp(event, "corrupt") == 0);
			AT_FUZZ_CHECK(at_json_get_number(e, "line", &n) && n == (double)lineno);
			AT_FUZZ_CHECK(why && at_json_get_string(why, "code") &&
				      at_json_get_string(why, "message"));
		}
		at_json_free(want);
		free(text);
	}
	AT_FUZZ_CHECK(k == at_json_size(arr));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct at_error err = AT_ERROR_INIT;
	at_json *arr = NULL, *from_file = NULL;
	char file[PATH_MAX];

	AT_FUZZ_CHECK(at_audit_path(at_fuzz_state(), "fuzz", file, sizeof(file)) == 0);
	AT_FUZZ_CHECK(at_audit_parse((const char *)data, size, file, &arr, &err) == 0);
	AT_FUZZ_CHECK(at_json_is_array(arr));
	check_entries(arr, data, size);

	at_fuzz_write_file(file, data, size);
	AT_FUZZ_CHECK(at_audit_read(at_fuzz_state(), "fuzz", &from_file, &err) == 0);
	AT_FUZZ_CHECK(same_json(arr, from_file));
	at_json_free(arr);
	at_json_free(from_file);
	return 0;
}
