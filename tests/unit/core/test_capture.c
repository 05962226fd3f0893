/*
 * Unit tests for core/capture.c: a command's output kept within a cap.
 * What must hold: below the cap every byte comes back as it was (NUL and
 * invalid UTF-8 too); above it the head and the tail are kept with a marker
 * that counts exactly what was dropped, and no UTF-8 character is cut in two.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/capture.h"
#include "core/esc.h"

static char *take(struct at_capture *c, size_t *len, uint64_t *dropped)
{
	char *out = NULL;

	assert_int_equal(at_capture_take(c, &out, len, dropped), 0);
	return out;
}

static void test_capture__keeps_every_byte_below_the_cap(void **state)
{
	static const char in[] = "a\0b\xff\xfe\nend";
	struct at_capture c;
	uint64_t dropped;
	size_t len, i;
	char *out;

	(void)state;
	at_capture_init(&c, 64);
	for (i = 0; i < sizeof(in) - 1; i++)   /* byte by byte: as a slow writer sends it */
		at_capture_add(&c, in + i, 1);
	out = take(&c, &len, &dropped);
	assert_int_equal(len, sizeof(in) - 1);
	assert_memory_equal(out, in, len);
	assert_int_equal(dropped, 0);
	free(out);
}

static void test_capture__keeps_head_and_tail_and_counts_the_rest(void **state)
{
	struct at_capture c;
	char buf[16], want[64], *out;
	uint64_t dropped;
	size_t len;
	int i;

	(void)state;
	at_capture_init(&c, 20);
	for (i = 0; i < 100; i++) {   /* "00".."99": 200 bytes */
		snprintf(buf, sizeof(buf), "%02d", i);
		at_capture_add(&c, buf, 2);
	}
	out = take(&c, &len, &dropped);
	assert_int_equal(dropped, 180);
	snprintf(want, sizeof(want), "0001020304" AT_CAPTURE_MARKER "9596979899", 180ULL);
	assert_string_equal(out, want);
	assert_int_equal(len, strlen(want));
	free(out);
}

static void test_capture__one_write_larger_than_the_ring(void **state)
{
	struct at_capture c;
	char big[1000], *out;
	uint64_t dropped;
	size_t len;

	(void)state;
	memset(big, 'x', sizeof(big));
	big[sizeof(big) - 1] = 'Z';
	at_capture_init(&c, 10);
	at_capture_add(&c, big, sizeof(big));
	out = take(&c, &len, &dropped);
	assert_int_equal(dropped, 990);
	assert_int_equal(out[len - 1], 'Z');
	assert_memory_equal(out, "xxxxx", 5);
	free(out);
}

/* Every cut position over a run of 3-byte characters: no half character survives. */
static void test_capture__never_splits_a_utf8_character(void **state)
{
	static const char euro[] = "\xe2\x82\xac";
	size_t max, i, len;

	(void)state;
	for (max = 2; max < 20; max++) {
		struct at_capture c;
		uint64_t dropped;
		char *out;
		bool control;

		at_capture_init(&c, max);
		for (i = 0; i < 30; i++)
			at_capture_add(&c, euro, 3);
		out = take(&c, &len, &dropped);
		/* What is kept is whole characters and the ASCII marker. */
		for (i = 0; i < len; i += at_esc_unit(out + i, len - i, AT_ESC_TEXT, &control))
			assert_true((unsigned char)out[i] < 0x80 || at_utf8_seq(out + i, len - i) == 3);
		/* And the count is honest: 90 bytes in, kept + dropped = 90. */
		{
			char marker[64];
			int mlen = snprintf(marker, sizeof(marker), AT_CAPTURE_MARKER,
					    (unsigned long long)dropped);

			assert_int_equal(len - (size_t)mlen + dropped, 90);
		}
		free(out);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_capture__keeps_every_byte_below_the_cap),
		cmocka_unit_test(test_capture__keeps_head_and_tail_and_counts_the_rest),
		cmocka_unit_test(test_capture__one_write_larger_than_the_ring),
		cmocka_unit_test(test_capture__never_splits_a_utf8_character),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
