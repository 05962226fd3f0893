/*
 * fuzz_cache_tree.c - the index's cache-tree extension (gitfmt/cache_tree.c).
 *
 * The extension is part of the index, which the task's git writes (see
 * fuzz_index.c); this harness feeds the payload alone, so that the fuzzer
 * spends its time in the decoder. What decode accepts is sorted and each
 * directory it holds is found again by at_cache_tree_find().
 */
#include "tests/fuzz/fuzz.h"

#include <string.h>

#include "gitfmt/cache_tree.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct at_cache_tree *v = NULL;
	size_t n = 0, i;

	if (!at_cache_tree_decode(data, size, &v, &n)) {
		AT_FUZZ_CHECK(v == NULL || n == 0);
		return 0;
	}
	AT_FUZZ_CHECK(n >= 1);
	for (i = 0; i < n; i++) {
		const struct at_cache_tree *found;

		AT_FUZZ_CHECK(v[i].path && v[i].count >= -1);
		AT_FUZZ_CHECK(i == 0 || strcmp(v[i - 1].path, v[i].path) <= 0);
		found = at_cache_tree_find(v, n, v[i].path, strlen(v[i].path));
		AT_FUZZ_CHECK(v[i].count < 0 || (found && strcmp(found->path, v[i].path) == 0));
	}
	at_cache_tree_free(v, n);
	return 0;
}
