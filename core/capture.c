#include "core/capture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/esc.h"

void at_capture_init(struct at_capture *c, size_t max)
{
	memset(c, 0, sizeof(*c));
	c->max = max;
}

void at_capture_release(struct at_capture *c)
{
	free(c->head);
	free(c->ring);
	at_capture_init(c, c->max);
}

static void ring_add(struct at_capture *c, const char *buf, size_t n)
{
	size_t size = c->max - c->max / 2, part;

	if (!size)
		return;
	if (!c->ring && !(c->ring = malloc(size)))
		return;   /* counted as dropped: total runs on */
	c->ring_size = size;
	if (n > size) {   /* only the last size bytes can stay */
		buf += n - size;
		n = size;
	}
	part = size - c->ring_pos < n ? size - c->ring_pos : n;
	memcpy(c->ring + c->ring_pos, buf, part);
	memcpy(c->ring, buf + part, n - part);
	c->ring_pos = (c->ring_pos + n) % size;
	c->ring_len = c->ring_len + n > size ? size : c->ring_len + n;
}

void at_capture_add(struct at_capture *c, const char *buf, size_t n)
{
	size_t room = c->max / 2 - c->head_len, keep = n < room ? n : room;

	c->total += n;
	if (keep) {
		if (AT_ARRAY_GROW(c->head, c->head_cap, c->head_len + keep) < 0)
			return;   /* counted as dropped */
		memcpy(c->head + c->head_len, buf, keep);
		c->head_len += keep;
	}
	if (keep < n)
		ring_add(c, buf + keep, n - keep);
}

/* Bytes at the end of s[0..len) that begin a UTF-8 character the cut left unfinished. */
static size_t partial_tail(const char *s, size_t len)
{
	size_t back;

	for (back = 1; back <= 3 && back <= len; back++) {
		unsigned char b = (unsigned char)s[len - back];

		if ((b & 0xc0) == 0x80)
			continue;   /* a continuation byte: look further back */
		/* A lead byte whose sequence would run past the cut, and could be valid. */
		if (b >= 0xc2 && b <= 0xf4 && at_utf8_seq(s + len - back, back) == 0) {
			size_t need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;

			return need > back ? back : 0;
		}
		return 0;
	}
	return 0;
}

/* Continuation bytes at the start of s: the rest of a character the cut began. */
static size_t partial_head(const char *s, size_t len)
{
	size_t n = 0;

	while (n < 3 && n < len && ((unsigned char)s[n] & 0xc0) == 0x80)
		n++;
	return n;
}

int at_capture_take(struct at_capture *c, char **out, size_t *len, uint64_t *dropped)
{
	size_t head = c->head_len, tail = c->ring_len, skip = 0, start, n;
	uint64_t gone = c->total - c->head_len - c->ring_len;
	char *buf, *t;
	int mlen = 0;

	if (gone) {
		head -= partial_tail(c->head, head);
		/* Room for the marker with any count (20 digits at most). */
		mlen = snprintf(NULL, 0, AT_CAPTURE_MARKER, 0ULL) + 20;
	}
	if (!(buf = malloc(head + (size_t)mlen + tail + 1)))
		return -1;
	if (head)   /* nothing kept yet: no buffer either */
		memcpy(buf, c->head, head);
	/* The ring in order, from its oldest byte, after the marker's room. */
	t = buf + head + mlen;
	start = c->ring_size ? (c->ring_pos + c->ring_size - tail) % c->ring_size : 0;
	n = c->ring_size - start < tail ? c->ring_size - start : tail;
	if (tail) {
		memcpy(t, c->ring + start, n);
		memcpy(t + n, c->ring, tail - n);
	}
	if (gone) {
		skip = partial_head(t, tail);
		gone += (c->head_len - head) + skip;
		head += (size_t)snprintf(buf + head, (size_t)mlen, AT_CAPTURE_MARKER,
					 (unsigned long long)gone);
		memmove(buf + head, t + skip, tail - skip);
	}
	*len = head + tail - skip;
	buf[*len] = '\0';
	*out = buf;
	*dropped = gone;
	at_capture_release(c);
	return 0;
}
