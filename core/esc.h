/*
 * esc.h - the task's bytes shown on a terminal: every control character
 * visible as \xNN, none interpreted.
 *
 * What the task controls (file content and names, symbolic link targets,
 * the argv it ran, a check's output, an error naming any of them) can hold
 * ESC [ 2 J, a CR that returns over the line just printed, OSC 52 that sets
 * the clipboard, or a UTF-8 C1 CSI (U+009B) that some terminals read as
 * ESC [. Printed raw, it rewrites what the reviewer sees. A control here is:
 *
 *   - a C0 control (0x00-0x1f), DEL (0x7f);
 *   - a C1 control as UTF-8 encodes it (0xc2 0x80-0x9f: both bytes shown);
 *   - a byte 0x80-0x9f that is not inside a valid UTF-8 sequence (a
 *     terminal in an 8-bit mode reads 0x9b as CSI).
 *
 * AT_ESC_TEXT keeps tab, newline and a CR just before a newline (multi-line
 * content: a patch, a check's output; a line's final CR returns over
 * nothing, and less drops it too); without it they are shown too (a field
 * that must stay on one line: a path in a message, an argument).
 *
 * \xNN, not git's pager's ^[ notation: it names the byte, and the reports
 * and messages already use it. The callers decide when a stream is for a
 * person (always for messages; for stdout, see each command) and call
 * these at print time; programs reading a pipe may get the bytes exact.
 */
#ifndef AT_CORE_ESC_H
#define AT_CORE_ESC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum { AT_ESC_TEXT = 1 };   /* tab and newline are not controls */

/* Length of the valid UTF-8 sequence of 2-4 bytes at s[0..len), 0 when there is none. */
size_t at_utf8_seq(const char *s, size_t len);

/*
 * The unit at s[0..len) (len > 0): a valid UTF-8 sequence, or one byte.
 * Returns its length (1-4); *control says whether it is shown as \xNN.
 * A caller that walks text itself steps by units, never into a sequence.
 */
size_t at_esc_unit(const char *s, size_t len, unsigned int flags, bool *control);

/* Whether s[0..len) holds a control. */
bool at_esc_needed(const char *s, size_t len, unsigned int flags);

/* Write s[0..len) to f, each control as \xNN. Errors: see ferror(f). */
void at_esc_write(FILE *f, const char *s, size_t len, unsigned int flags);

/* at_esc_write of a NUL-terminated s. */
void at_esc_fputs(FILE *f, const char *s, unsigned int flags);

/* printf to f, the whole result escaped with AT_ESC_TEXT (the format's own newlines stay). */
void at_esc_printf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * s as a message may show it, into buf: every control (tab and newline
 * too) as \xNN. Cut with "..." when it does not fit. Returns buf (size at
 * least 4).
 */
const char *at_esc(char *buf, size_t size, const char *s);

#endif
