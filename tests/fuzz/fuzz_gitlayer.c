/*
 * fuzz_gitlayer.c - the task's refs as the import reads them
 * (core/gitlayer.c): HEAD, a loose ref and packed-refs, all written by the
 * command in the sandbox.
 *
 * The input is three parts split at NUL bytes: the worktree's HEAD, the
 * loose ref refs/heads/x, and packed-refs; each becomes a file of a fresh
 * upper directory (an empty part: no file), over an empty lower. Checked:
 *   - the parse of a ref file yields an id or a valid ref name, never both;
 *   - a packed-refs lookup is found, absent or malformed, and a hit is the
 *     id on that ref's line;
 *   - resolving HEAD succeeds only with an id, fails with the one code for
 *     a malformed view (AT_ECORRUPT) and a message, and never follows more
 *     than the few symbolic refs it allows.
 */
#include "tests/fuzz/fuzz.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/gitlayer.h"

static void put(const char *dir, const char *rel, struct at_fuzz_input part)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	unlink(path);
	if (part.n)
		at_fuzz_write_file(path, part.p, part.n);
}

static void check_parse(struct at_fuzz_input part)
{
	char *text = at_fuzz_strndup(part.p, part.n);
	const char *target = NULL;
	struct at_oid id;

	if (!text)
		return;
	if (at_gitlayer_parse_ref(text, strlen(text), &id, &target) == 0 && target)
		AT_FUZZ_CHECK(at_gitlayer_refname_ok(target));
	free(text);
}

static void check_packed(struct at_fuzz_input part)
{
	static const char *const names[] = { "refs/heads/x", "refs/heads/main", "refs/tags/v1" };
	size_t i;

	for (i = 0; i < 3; i++) {
		struct at_oid id;
		int rc = at_gitlayer_packed_lookup((const char *)part.p, part.n, names[i], &id);

		AT_FUZZ_CHECK(rc == 0 || rc == 1 || rc == -1);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char upper[PATH_MAX], lower[PATH_MAX];
	struct at_fuzz_input in = { data, size }, head, ref, packed;
	struct at_error err = AT_ERROR_INIT;
	struct at_gitlayer g;
	struct at_oid id;
	char branch[1100];
	int rc;

	if (!upper[0]) {
		snprintf(upper, sizeof(upper), "%s/upper", at_fuzz_tmpdir());
		snprintf(lower, sizeof(lower), "%s/lower", at_fuzz_tmpdir());
		mkdir(upper, 0700);
		mkdir(lower, 0700);
		snprintf(branch, sizeof(branch), "%s/worktrees", upper);
		mkdir(branch, 0700);
		snprintf(branch, sizeof(branch), "%s/worktrees/w", upper);
		mkdir(branch, 0700);
		snprintf(branch, sizeof(branch), "%s/refs", upper);
		mkdir(branch, 0700);
		snprintf(branch, sizeof(branch), "%s/refs/heads", upper);
		mkdir(branch, 0700);
	}
	head = at_fuzz_take_until(&in, 0);
	ref = at_fuzz_take_until(&in, 0);
	packed = in;
	check_parse(head);
	check_parse(ref);
	check_packed(packed);
	put(upper, "worktrees/w/HEAD", head);
	put(upper, "refs/heads/x", ref);
	put(upper, "packed-refs", packed);
	g.upper = open(upper, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	g.lower = open(lower, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	AT_FUZZ_CHECK(g.upper >= 0 && g.lower >= 0);
	rc = at_gitlayer_head(&g, "worktrees/w", &id, branch, sizeof(branch), &err);
	AT_FUZZ_CHECK(rc == 0 || rc == 1 || rc == AT_ECORRUPT || rc == AT_ESYS);
	if (rc < 0)
		at_fuzz_check_error(rc, &err);
	if (rc == 0 && branch[0])
		AT_FUZZ_CHECK(at_gitlayer_refname_ok(branch));
	close(g.upper);
	close(g.lower);
	return 0;
}
