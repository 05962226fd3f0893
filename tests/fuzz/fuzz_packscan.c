/*
 * fuzz_packscan.c - a task's pack as the import's guard reads it
 * (gitfmt/packscan.c), before libgit2's indexer ever does.
 *
 * The pack is the task's: any bytes. The guard must answer for every input,
 * within its two buffers, with 0 or a refusal that says why; a pack it
 * accepts must declare nothing over the limits, which libgit2's indexer then
 * holds to (not checked here: the integration test does, on a real import).
 */
#include "tests/fuzz/fuzz.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "gitfmt/packscan.h"

static int fd = -1;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fd = memfd_create("fuzz-pack", MFD_CLOEXEC);
	return fd < 0 ? -1 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Small limits, so that the fuzzer reaches the refusals of sizes and work. */
	const struct at_packscan_limits lim = { .object_max = 1 << 20, .total_max = 8 << 20 };
	struct at_error err = AT_ERROR_INIT;
	int rc;

	AT_FUZZ_CHECK(ftruncate(fd, 0) == 0);
	AT_FUZZ_CHECK(pwrite(fd, data, size, 0) == (ssize_t)size);
	rc = at_packscan_check(fd, size, "fuzz.pack", &lim, &err);
	if (rc < 0)
		at_fuzz_check_error(rc, &err);
	return 0;
}
