/*
 * json.h - the only door to cJSON.
 *
 * Every other file builds and reads JSON through these functions, so cJSON's
 * NULL-on-failure convention is translated in one place. Accessors are
 * NULL-safe: a missing key or a value of the wrong type gives NULL (or the
 * fallback), never a crash.
 *
 * Ownership: at_json_add_* take ownership of the item they attach; a tree is
 * freed with at_json_free() on its root; strings from at_json_print() are the
 * caller's to free().
 */
#ifndef AT_CORE_JSON_H
#define AT_CORE_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

typedef struct cJSON at_json;

at_json *at_json_object(void);
at_json *at_json_array(void);
at_json *at_json_string(const char *s);
void at_json_free(at_json *j);
/* A deep copy of j; NULL when out of memory. */
at_json *at_json_dup(const at_json *j);
/* Equal values (objects whatever their members' order; keys case-sensitive); false for NULL. */
bool at_json_equal(const at_json *a, const at_json *b);

/*
 * A string of len bytes that may hold anything (a command's output): NUL and
 * every control escaped (\u0000), valid UTF-8 kept, each byte that is not
 * part of valid UTF-8 shown as U+FFFD. *lossless (may be NULL) says whether
 * the string gives back the bytes exactly. NULL when out of memory.
 */
at_json *at_json_bytes(const char *buf, size_t len, bool *lossless);
/* The bytes in base64 (RFC 4648, padded). NULL when out of memory. */
at_json *at_json_base64(const void *buf, size_t len);
/* Decode base64 text (padded or not; no whitespace) into *out (malloc'd, NUL added); -1 if invalid. */
int at_base64_decode(const char *text, char **out, size_t *len);


/* Attach to an object; 0, or -1 on allocation failure (item is freed). */
int at_json_add(at_json *obj, const char *key, at_json *item);
int at_json_add_string(at_json *obj, const char *key, const char *val);
int at_json_add_number(at_json *obj, const char *key, double val);
int at_json_add_bool(at_json *obj, const char *key, bool val);
int at_json_add_null(at_json *obj, const char *key);
/* Replace key's value in an object (added when absent); 0, or -1 (item is freed). */
int at_json_set(at_json *obj, const char *key, at_json *item);
/* Append to an array; 0, or -1 (item is freed). */
int at_json_append(at_json *arr, at_json *item);

/*
 * {"code": code, "message": message}: the one shape of an error in every
 * JSON output (a command's failure, a run's, a log entry's). An empty
 * message is "failed". NULL when out of memory.
 */
at_json *at_json_error(const char *code, const char *message);
/* The same for err: its code's name (at_error_code_name; "system" when unset) and message. */
at_json *at_json_error_of(const struct at_error *err);

/* Serialise: pretty (indented) or compact on one line. NULL on failure. */
char *at_json_print(const at_json *j, bool pretty);

/*
 * Parse text; AT_ECORRUPT naming `what` (a file name) on failure. An object
 * (at any depth) that holds a key twice is refused too, naming the key:
 * readers differ on which one counts, so a filter in front of a reader
 * could be passed by one value and the reader act on the other.
 */
int at_json_parse(at_json **out, const char *text, const char *what, struct at_error *err);

bool at_json_is_object(const at_json *j);
bool at_json_is_array(const at_json *j);
bool at_json_is_string(const at_json *j);
bool at_json_is_number(const at_json *j);
bool at_json_is_bool(const at_json *j);

at_json *at_json_get(const at_json *obj, const char *key);   /* case-sensitive */
const char *at_json_get_string(const at_json *obj, const char *key);
bool at_json_get_number(const at_json *obj, const char *key, double *out);
bool at_json_get_bool(const at_json *obj, const char *key, bool *out);
const char *at_json_string_value(const at_json *j);
double at_json_number_value(const at_json *j);
bool at_json_bool_value(const at_json *j);

size_t at_json_size(const at_json *arr);
at_json *at_json_at(const at_json *arr, size_t i);
/* Iterate an object's members or an array's items: for (c = at_json_child(o); c; c = at_json_next(c)) */
at_json *at_json_child(const at_json *j);
at_json *at_json_next(const at_json *j);
const char *at_json_key(const at_json *member);

#endif
