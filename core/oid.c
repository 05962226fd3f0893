#include "core/oid.h"

#include <string.h>

void at_oid_fmt(char buf[AT_OID_HEXSZ + 1], const struct at_oid *id)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < AT_OID_RAWSZ; i++) {
		buf[2 * i] = hex[id->id[i] >> 4];
		buf[2 * i + 1] = hex[id->id[i] & 0xf];
	}
	buf[AT_OID_HEXSZ] = '\0';
}

static int nibble(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int at_oid_parse(struct at_oid *out, const char *hex)
{
	struct at_oid id;
	size_t i;

	for (i = 0; i < AT_OID_RAWSZ; i++) {
		int hi = nibble(hex[2 * i]), lo = hi < 0 ? -1 : nibble(hex[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -1;
		id.id[i] = (unsigned char)(hi << 4 | lo);
	}
	if (hex[AT_OID_HEXSZ] != '\0')
		return -1;
	*out = id;
	return 0;
}

bool at_oid_equal(const struct at_oid *a, const struct at_oid *b)
{
	return memcmp(a->id, b->id, AT_OID_RAWSZ) == 0;
}

bool at_oid_is_zero(const struct at_oid *id)
{
	static const struct at_oid zero;

	return at_oid_equal(id, &zero);
}
