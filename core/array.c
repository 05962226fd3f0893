#include "core/array.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The first allocation: a page's worth (at least 8 elements), as the hand-grown arrays had. */
#define AT_ARRAY_MIN_BYTES 4096
#define AT_ARRAY_MIN 8

int at_array_reserve(void *arrayp, size_t *cap, size_t need, size_t elem_size)
{
	size_t want, bytes;
	void *old, *grown;

	if (need <= *cap)
		return 0;
	/* Doubled, so that growing by one is amortised; at least need. */
	want = *cap <= SIZE_MAX / 2 ? *cap * 2 : need;
	if (want < need)
		want = need;
	if (want < AT_ARRAY_MIN)
		want = AT_ARRAY_MIN;
	if (elem_size && want < AT_ARRAY_MIN_BYTES / elem_size)
		want = AT_ARRAY_MIN_BYTES / elem_size;
	if (!at_size_mul(want, elem_size, &bytes) || bytes > PTRDIFF_MAX) {
		/* The growth overflowed, not necessarily need itself: try need alone. */
		want = need;
		if (!at_size_mul(want, elem_size, &bytes) || bytes > PTRDIFF_MAX) {
			errno = EOVERFLOW;
			return -1;
		}
	}
	memcpy(&old, arrayp, sizeof(old));
	grown = realloc(old, bytes);
	if (!grown) {
		errno = ENOMEM;
		return -1;
	}
	memcpy(arrayp, &grown, sizeof(grown));
	*cap = want;
	return 0;
}
