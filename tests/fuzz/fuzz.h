/*
 * fuzz.h - what the libFuzzer harnesses under tests/fuzz/ share.
 *
 * A harness is one file, fuzz_NAME.c, that defines LLVMFuzzerTestOneInput()
 * (and LLVMFuzzerInitialize() when it needs set-up) and feeds the input to
 * one parser of bytes a task or a repository controls, through that module's
 * public functions. One at_fuzz() line in CMakeLists.txt builds it with the
 * module sources it reads, instrumented (coverage, ASan, UBSan); its seed
 * corpus is corpus/NAME/, and crash inputs found once stay there as
 * regression files. run.sh runs the harnesses: `make fuzz` for minutes each,
 * `make check` for seconds.
 *
 * A harness checks more than "no crash": what the parser promises about its
 * output (sorted, bounded, the same as libgit2 reads, the same after a round
 * trip) is checked with AT_FUZZ_CHECK, which aborts, so that libFuzzer keeps
 * the input as a crash.
 */
#ifndef AT_TESTS_FUZZ_H
#define AT_TESTS_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/task.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define AT_FUZZ_CHECK(cond) ((cond) ? (void)0 : at_fuzz_fail(#cond, __FILE__, __LINE__))

void at_fuzz_fail(const char *what, const char *file, int line) __attribute__((noreturn));

/*
 * A failure is reported as the contract says: the code returned is the one
 * recorded, with a message. (The message may quote the input's bytes as
 * they are: escaping them is the printer's business, in cmd/.)
 */
void at_fuzz_check_error(int rc, const struct at_error *err);

/* The input, or a part of it, as a NUL-terminated malloc'd string (NULL: no memory). */
char *at_fuzz_strndup(const void *data, size_t size);

/* Reading an input in parts: each take_ consumes from the front. */
struct at_fuzz_input {
	const uint8_t *p;
	size_t n;
};

/* One byte (0 when none is left). */
uint8_t at_fuzz_take_byte(struct at_fuzz_input *in);

/* The bytes up to the next `sep` (consumed, not returned) or the end. */
struct at_fuzz_input at_fuzz_take_until(struct at_fuzz_input *in, uint8_t sep);

/* A private directory made at the first call and removed at exit. */
const char *at_fuzz_tmpdir(void);

/* Replace the file at path (below at_fuzz_tmpdir()) with data; aborts on failure. */
void at_fuzz_write_file(const char *path, const void *data, size_t size);

/*
 * agenttask's state directories in the private directory, made at the first
 * call (for the harnesses that link core/task.c).
 */
static inline const struct at_paths *at_fuzz_state(void)
{
	static struct at_paths paths;
	struct at_error err = AT_ERROR_INIT;

	if (!paths.state_dir[0] &&
	    (at_paths_init(&paths, at_fuzz_tmpdir(), &err) < 0 || at_paths_ensure(&paths, &err) < 0))
		at_fuzz_fail(err.msg, __FILE__, __LINE__);
	return &paths;
}

#endif
