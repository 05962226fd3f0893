#include "core/parse.h"

#include <ctype.h>
#include <stdint.h>

static int parse_digits(const char **sp, uint64_t *out)
{
	const char *s = *sp;
	uint64_t v = 0;

	if (!isdigit((unsigned char)*s))
		return -1;
	for (; isdigit((unsigned char)*s); s++) {
		unsigned int d = (unsigned int)(*s - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*sp = s;
	*out = v;
	return 0;
}

int at_parse_size(const char *s, uint64_t *out, struct at_error *err)
{
	const char *p = s;
	uint64_t v, mult = 1;

	if (!s || parse_digits(&p, &v) < 0)
		goto bad;
	switch (tolower((unsigned char)*p)) {
	case 'k': mult = 1ULL << 10; p++; break;
	case 'm': mult = 1ULL << 20; p++; break;
	case 'g': mult = 1ULL << 30; p++; break;
	case 't': mult = 1ULL << 40; p++; break;
	default: break;
	}
	if (mult > 1 && (p[0] == 'i' || p[0] == 'I') && (p[1] == 'b' || p[1] == 'B'))
		p += 2;
	else if (*p == 'b' || *p == 'B')
		p++;
	if (*p || v == 0 || v > UINT64_MAX / mult)
		goto bad;
	*out = v * mult;
	return 0;
bad:
	return at_error_set(err, AT_EUSAGE,
			    "invalid size '%s' (a positive number, optionally with K, M, G or T)",
			    s ? s : "");
}

int at_parse_count(const char *s, uint64_t max, uint64_t *out, struct at_error *err)
{
	const char *p = s;
	uint64_t v;

	if (!s || parse_digits(&p, &v) < 0 || *p || v == 0 || v > max)
		return at_error_set(err, AT_EUSAGE, "invalid number '%s' (1 to %llu)", s ? s : "",
				    (unsigned long long)max);
	*out = v;
	return 0;
}

/* "30", "1.5": thousandths, > 0; suffix (or none) may follow. */
static int parse_thousandths(const char *s, char suffix, uint64_t *out)
{
	const char *p = s;
	uint64_t whole, frac = 0, scale = 100;

	if (!s || parse_digits(&p, &whole) < 0 || whole > 100000000ULL)
		return -1;
	if (*p == '.') {
		p++;
		if (!isdigit((unsigned char)*p))
			return -1;
		for (; isdigit((unsigned char)*p); p++) {
			frac += (uint64_t)(*p - '0') * scale;
			scale /= 10;
		}
	}
	if (suffix && *p == suffix)
		p++;
	frac += whole * 1000;
	if (*p || frac == 0)
		return -1;
	*out = frac;
	return 0;
}

int at_parse_seconds(const char *s, uint64_t *ms_out, struct at_error *err)
{
	if (parse_thousandths(s, 's', ms_out) == 0)
		return 0;
	return at_error_set(err, AT_EUSAGE, "invalid duration '%s' (seconds, like 30 or 1.5)",
			    s ? s : "");
}

int at_parse_cpus(const char *s, uint64_t *milli_out, struct at_error *err)
{
	uint64_t v;

	if (parse_thousandths(s, '\0', &v) == 0 && v <= 1000000) {
		*milli_out = v;
		return 0;
	}
	return at_error_set(err, AT_EUSAGE, "invalid number of CPUs '%s' (like 2 or 0.5)",
			    s ? s : "");
}

static bool parse_port(const char **sp, uint16_t *out)
{
	const char *start = *sp;
	uint64_t v;

	if (parse_digits(sp, &v) < 0 || *sp - start > 5 || v == 0 || v > 65535)
		return false;
	*out = (uint16_t)v;
	return true;
}

bool at_parse_forward(const char *s, uint16_t *host, uint16_t *inner)
{
	uint16_t h, in;

	if (!s || !parse_port(&s, &h))
		return false;
	in = h;
	if (*s == ':' && (s++, !parse_port(&s, &in)))
		return false;
	if (*s)
		return false;
	*host = h;
	*inner = in;
	return true;
}
