/*
 * array.h - growing an array, with the overflow checks written once.
 *
 *	struct thing *v = NULL;
 *	size_t n = 0, cap = 0;
 *
 *	if (AT_ARRAY_GROW(v, cap, n + 1) < 0)
 *		return at_error_set(err, AT_ESYS, "out of memory");
 *	v[n++] = thing;
 *
 * The capacity doubles (and grows at least to what is asked, and at first to
 * a page's worth), so adding one element at a time is amortised O(1), with
 * as few copies as the hand-grown arrays it replaced made. The byte count is
 * checked for overflow before anything is allocated. On failure the array
 * and its capacity are left as they were and errno is ENOMEM or EOVERFLOW.
 */
#ifndef AT_CORE_ARRAY_H
#define AT_CORE_ARRAY_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Make room for at least need elements of elem_size bytes in the array whose
 * pointer is at arrayp (a T **, passed as void *), of capacity *cap. 0, or -1
 * with errno; *arrayp and *cap are untouched on failure.
 */
int at_array_reserve(void *arrayp, size_t *cap, size_t need, size_t elem_size);

/* The common case inline: room already there is a comparison, not a call (hot loops use it). */
static inline int at_array_grow(void *arrayp, size_t *cap, size_t need, size_t elem_size)
{
	return need <= *cap ? 0 : at_array_reserve(arrayp, cap, need, elem_size);
}

#define AT_ARRAY_GROW(v, cap, need) at_array_grow(&(v), &(cap), (need), sizeof(*(v)))

/* *out = a * b, or false when that overflows size_t. */
static inline bool at_size_mul(size_t a, size_t b, size_t *out)
{
	return !__builtin_mul_overflow(a, b, out);
}

/* *out = a + b, or false when that overflows size_t. */
static inline bool at_size_add(size_t a, size_t b, size_t *out)
{
	return !__builtin_add_overflow(a, b, out);
}

#endif
