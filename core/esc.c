#include "core/esc.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

size_t at_utf8_seq(const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n, i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (len < n)
		return 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	/* Overlong and surrogate forms, and past U+10FFFF, are not valid. */
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] > 0x8f))
		return 0;
	return n;
}

size_t at_esc_unit(const char *str, size_t len, unsigned int flags, bool *control)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n;

	if (s[0] < 0x80) {
		*control = (s[0] < 0x20 || s[0] == 0x7f) &&
			   !((flags & AT_ESC_TEXT) && (s[0] == '\t' || s[0] == '\n' ||
						       (s[0] == '\r' && len > 1 && s[1] == '\n')));
		return 1;
	}
	if ((n = at_utf8_seq(str, len)) > 0) {
		*control = s[0] == 0xc2 && s[1] <= 0x9f;   /* U+0080-U+009F */
		return n;
	}
	*control = s[0] <= 0x9f;   /* a stray byte an 8-bit terminal reads as C1 */
	return 1;
}

bool at_esc_needed(const char *s, size_t len, unsigned int flags)
{
	size_t i = 0;
	bool control = false;

	while (i < len && !control) {
		if ((unsigned char)s[i] >= 0x20 && (unsigned char)s[i] < 0x7f)
			i++;   /* printable ASCII, the common case */
		else
			i += at_esc_unit(s + i, len - i, flags, &control);
	}
	return control;
}

void at_esc_write(FILE *f, const char *s, size_t len, unsigned int flags)
{
	size_t start = 0, i = 0, n;
	bool control;

	while (i < len) {
		/* The common case, printable ASCII, in runs written at once. */
		if ((unsigned char)s[i] >= 0x20 && (unsigned char)s[i] < 0x7f) {
			i++;
			continue;
		}
		n = at_esc_unit(s + i, len - i, flags, &control);
		if (!control) {
			i += n;
			continue;
		}
		fwrite(s + start, 1, i - start, f);
		for (; n > 0; n--, i++)
			fprintf(f, "\\x%02x", (unsigned char)s[i]);
		start = i;
	}
	fwrite(s + start, 1, i - start, f);
}

void at_esc_fputs(FILE *f, const char *s, unsigned int flags)
{
	at_esc_write(f, s, strlen(s), flags);
}

void at_esc_printf(FILE *f, const char *fmt, ...)
{
	char small[512], *buf = small;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(small)) {
		if (!(buf = malloc((size_t)n + 1))) {
			fputs("agenttask: out of memory\n", f);
			return;
		}
		va_start(ap, fmt);
		vsnprintf(buf, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	at_esc_write(f, buf, (size_t)n, AT_ESC_TEXT);
	if (buf != small)
		free(buf);
}

const char *at_esc(char *buf, size_t size, const char *s)
{
	size_t n = 0, i = 0, len = strlen(s), k, j;
	size_t room = size - 4;   /* "..." and the NUL stay free */
	bool control;

	while (i < len) {
		k = at_esc_unit(s + i, len - i, 0, &control);
		if (n + (control ? 4 * k : k) > room)
			break;
		for (j = 0; j < k; j++, i++) {
			if (control) {
				snprintf(buf + n, 5, "\\x%02x", (unsigned char)s[i]);
				n += 4;
			} else {
				buf[n++] = s[i];
			}
		}
	}
	if (i < len) {
		memcpy(buf + n, "...", 3);
		n += 3;
	}
	buf[n] = '\0';
	return buf;
}
