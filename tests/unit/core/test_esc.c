/*
 * Unit tests for core/esc.c: what reaches a terminal of the task's bytes.
 * The attacker's strings hold C0 controls, ESC sequences, C1 controls in
 * UTF-8 and raw; every one must come out as \xNN, and ordinary text
 * (UTF-8 included, whose continuation bytes can be 0x80-0x9f) unchanged.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/esc.h"

/* at_esc_write of s (len bytes) with flags, as a string. */
static char *written(const char *s, size_t len, unsigned int flags)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&buf, &n);

	assert_non_null(m);
	at_esc_write(m, s, len, flags);
	assert_int_equal(fclose(m), 0);
	return buf;
}

#define WRITES(in, flags, want)                                                   \
	do {                                                                      \
		char *got_ = written((in), sizeof(in) - 1, (flags));              \
		assert_string_equal(got_, (want));                                \
		free(got_);                                                       \
	} while (0)

static void test_esc__controls_are_shown_as_hex(void **state)
{
	(void)state;
	WRITES("plain text", 0, "plain text");
	WRITES("a\033[2Jb", 0, "a\\x1b[2Jb");
	WRITES("\033]52;c;eA==\a", 0, "\\x1b]52;c;eA==\\x07");
	WRITES("over\rwrite\b", 0, "over\\x0dwrite\\x08");
	WRITES("del\177", 0, "del\\x7f");
	WRITES("nul\0x", 0, "nul\\x00x");
}

static void test_esc__tab_and_newline_kept_only_in_text(void **state)
{
	(void)state;
	/* A CR that ends a line hides nothing; one inside it returns over the line. */
	WRITES("a\tb\nc\r\n", AT_ESC_TEXT, "a\tb\nc\r\n");
	WRITES("c\rd\r", AT_ESC_TEXT, "c\\x0dd\\x0d");
	WRITES("a\tb\nc", 0, "a\\x09b\\x0ac");
}

static void test_esc__c1_controls_in_utf8_and_raw(void **state)
{
	(void)state;
	/* U+009B, CSI, as UTF-8: both bytes shown. */
	WRITES("x\302\2331m", 0, "x\\xc2\\x9b1m");
	/* A stray 0x9b, not inside a sequence: an 8-bit terminal's CSI. */
	WRITES("x\2331m", 0, "x\\x9b1m");
	/* A lead byte without its continuation: the 0x9b after it is stray. */
	WRITES("\342\233", 0, "\342\\x9b");
}

static void test_esc__utf8_text_passes_unchanged(void **state)
{
	(void)state;
	/* U+011B (c4 9b) and U+00A0 (c2 a0): continuation bytes 0x80-0x9f are text. */
	WRITES("\304\233 \302\240 caf\303\251 \342\202\254 \360\237\230\200", 0,
	       "\304\233 \302\240 caf\303\251 \342\202\254 \360\237\230\200");
	/* Latin-1 bytes over 0x9f are not controls anywhere. */
	WRITES("caf\351", 0, "caf\351");
	/* An overlong form is no sequence: its 0x80-0x9f byte is stray. */
	WRITES("\340\200\200", 0, "\340\\x80\\x80");
}

static void test_esc__unit_steps_over_whole_sequences(void **state)
{
	bool control = true;

	(void)state;
	assert_int_equal(at_esc_unit("\304\233", 2, 0, &control), 2);
	assert_false(control);
	assert_int_equal(at_esc_unit("\302\205", 2, 0, &control), 2);
	assert_true(control);
	assert_int_equal(at_esc_unit("\t", 1, AT_ESC_TEXT, &control), 1);
	assert_false(control);
	assert_true(at_esc_needed("a\033", 2, AT_ESC_TEXT));
	assert_false(at_esc_needed("a\tb\n", 4, AT_ESC_TEXT));
}

static void test_esc__buffer_form_cuts_cleanly(void **state)
{
	char buf[16];

	(void)state;
	assert_string_equal(at_esc(buf, sizeof(buf), "a\033b"), "a\\x1bb");
	/* 12 bytes of room: never half of a \xNN nor of a UTF-8 sequence. */
	assert_string_equal(at_esc(buf, sizeof(buf), "abcdefghij\033\033"), "abcdefghij...");
	assert_string_equal(at_esc(buf, sizeof(buf), "abcdefghijk\304\233"), "abcdefghijk...");
}

static void test_esc__printf_escapes_the_whole_result(void **state)
{
	char *buf = NULL, big[2000];
	size_t n = 0;
	FILE *m = open_memstream(&buf, &n);

	(void)state;
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	big[1500] = '\033';
	at_esc_printf(m, "name '%s'\n", "a\033[2J");
	at_esc_printf(m, "%s\n", big);
	assert_int_equal(fclose(m), 0);
	assert_memory_equal(buf, "name 'a\\x1b[2J'\n", 16);
	assert_int_equal(n, 16 + 1999 + 3 + 1);
	assert_memory_equal(buf + 16 + 1500, "\\x1b", 4);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_esc__controls_are_shown_as_hex),
		cmocka_unit_test(test_esc__tab_and_newline_kept_only_in_text),
		cmocka_unit_test(test_esc__c1_controls_in_utf8_and_raw),
		cmocka_unit_test(test_esc__utf8_text_passes_unchanged),
		cmocka_unit_test(test_esc__unit_steps_over_whole_sequences),
		cmocka_unit_test(test_esc__buffer_form_cuts_cleanly),
		cmocka_unit_test(test_esc__printf_escapes_the_whole_result),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
