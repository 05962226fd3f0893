#include "core/json.h"

#include <cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/esc.h"

at_json *at_json_object(void)
{
	return cJSON_CreateObject();
}

at_json *at_json_array(void)
{
	return cJSON_CreateArray();
}

at_json *at_json_string(const char *s)
{
	return cJSON_CreateString(s ? s : "");
}

/* Escape one byte below 0x20, '"' or '\\' at w; returns the bytes written. */
static size_t escape_byte(char *w, unsigned char c)
{
	static const char hex[] = "0123456789abcdef";
	const char *two = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\n' ? "\\n"
			: c == '\t' ? "\\t" : c == '\r' ? "\\r" : NULL;

	if (two) {
		memcpy(w, two, 2);
		return 2;
	}
	memcpy(w, "\\u00", 4);
	w[4] = hex[c >> 4];
	w[5] = hex[c & 15];
	return 6;
}

at_json *at_json_bytes(const char *buf, size_t len, bool *lossless)
{
	size_t i = 0, n, cap;
	bool exact = true;
	at_json *j;
	char *text, *w;

	/* Each byte takes at most 6 (\u00XX; U+FFFD is 3), plus the quotes and the NUL. */
	if (len > (SIZE_MAX - 3) / 6 || !(text = malloc((cap = len * 6 + 3))))
		return NULL;
	w = text;
	*w++ = '"';
	while (i < len) {
		unsigned char c = (unsigned char)buf[i];

		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
			*w++ = (char)c;
			i++;
		} else if (c < 0x80) {
			w += escape_byte(w, c);
			i++;
		} else if ((n = at_utf8_seq(buf + i, len - i)) > 0) {
			memcpy(w, buf + i, n);
			w += n;
			i += n;
		} else {
			memcpy(w, "\xef\xbf\xbd", 3);   /* U+FFFD */
			w += 3;
			i++;
			exact = false;
		}
	}
	*w++ = '"';
	*w = '\0';
	j = cJSON_CreateRaw(text);
	free(text);
	if (j && lossless)
		*lossless = exact;
	return j;
}

at_json *at_json_base64(const void *data, size_t len)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *s = data;
	size_t i, o = 0;
	char *text;
	at_json *j;

	if (len > SIZE_MAX / 2 || !(text = malloc((len + 2) / 3 * 4 + 1)))
		return NULL;
	for (i = 0; i + 2 < len; i += 3) {
		unsigned int v = (unsigned int)s[i] << 16 | (unsigned int)s[i + 1] << 8 | s[i + 2];

		text[o++] = tab[v >> 18];
		text[o++] = tab[(v >> 12) & 63];
		text[o++] = tab[(v >> 6) & 63];
		text[o++] = tab[v & 63];
	}
	if (i < len) {
		unsigned int v = (unsigned int)s[i] << 16 | (i + 1 < len ? (unsigned int)s[i + 1] << 8 : 0);

		text[o++] = tab[v >> 18];
		text[o++] = tab[(v >> 12) & 63];
		text[o++] = i + 1 < len ? tab[(v >> 6) & 63] : '=';
		text[o++] = '=';
	}
	text[o] = '\0';
	j = cJSON_CreateString(text);
	free(text);
	return j;
}

static int b64_value(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	return c == '+' ? 62 : c == '/' ? 63 : -1;
}

int at_base64_decode(const char *text, char **out, size_t *len)
{
	size_t n = strlen(text), i, o = 0;
	unsigned int acc = 0;
	int bits = 0, v;
	char *buf;

	while (n > 0 && text[n - 1] == '=')
		n--;
	if (n % 4 == 1 || !(buf = malloc(n / 4 * 3 + 3)))
		return -1;
	for (i = 0; i < n; i++) {
		if ((v = b64_value((unsigned char)text[i])) < 0) {
			free(buf);
			return -1;
		}
		acc = (acc << 6) | (unsigned int)v;
		if ((bits += 6) >= 8) {
			bits -= 8;
			buf[o++] = (char)((acc >> bits) & 0xff);
		}
	}
	buf[o] = '\0';
	*out = buf;
	*len = o;
	return 0;
}

void at_json_free(at_json *j)
{
	cJSON_Delete(j);
}

at_json *at_json_dup(const at_json *j)
{
	return j ? cJSON_Duplicate(j, 1) : NULL;
}

bool at_json_equal(const at_json *a, const at_json *b)
{
	return a && b && cJSON_Compare(a, b, 1);
}

int at_json_add(at_json *obj, const char *key, at_json *item)
{
	if (!obj || !item || !cJSON_AddItemToObject(obj, key, item)) {
		cJSON_Delete(item);
		return -1;
	}
	return 0;
}

int at_json_set(at_json *obj, const char *key, at_json *item)
{
	if (!obj || !item)
		goto fail;
	if (!cJSON_GetObjectItemCaseSensitive(obj, key))
		return at_json_add(obj, key, item);
	if (cJSON_ReplaceItemInObjectCaseSensitive(obj, key, item))
		return 0;
fail:
	cJSON_Delete(item);
	return -1;
}

at_json *at_json_error(const char *code, const char *message)
{
	at_json *e = at_json_object();

	if (at_json_add_string(e, "code", code) < 0 ||
	    at_json_add_string(e, "message", message && message[0] ? message : "failed") < 0) {
		at_json_free(e);
		return NULL;
	}
	return e;
}

at_json *at_json_error_of(const struct at_error *err)
{
	return at_json_error(at_error_code_name(err->code ? err->code : AT_ESYS), err->msg);
}

int at_json_add_string(at_json *obj, const char *key, const char *val)
{
	return at_json_add(obj, key, cJSON_CreateString(val ? val : ""));
}

int at_json_add_number(at_json *obj, const char *key, double val)
{
	return at_json_add(obj, key, cJSON_CreateNumber(val));
}

int at_json_add_bool(at_json *obj, const char *key, bool val)
{
	return at_json_add(obj, key, cJSON_CreateBool(val));
}

int at_json_add_null(at_json *obj, const char *key)
{
	return at_json_add(obj, key, cJSON_CreateNull());
}

int at_json_append(at_json *arr, at_json *item)
{
	if (!arr || !item || !cJSON_AddItemToArray(arr, item)) {
		cJSON_Delete(item);
		return -1;
	}
	return 0;
}

char *at_json_print(const at_json *j, bool pretty)
{
	if (!j)
		return NULL;
	return pretty ? cJSON_Print(j) : cJSON_PrintUnformatted(j);
}

static int key_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The key j's object holds twice, or NULL; *oom when there was no memory to look. */
static const char *twice(const cJSON *j, size_t n, bool *oom)
{
	const char **keys, *dup = NULL;
	const cJSON *c;
	size_t i = 0;

	/* Sorted, not compared pairwise: a message of 32 MiB may hold a million keys. */
	if (!(keys = malloc(n * sizeof(*keys)))) {
		*oom = true;
		return NULL;
	}
	for (c = j->child; c; c = c->next)
		keys[i++] = c->string ? c->string : "";
	qsort(keys, n, sizeof(*keys), key_cmp);
	for (i = 1; !dup && i < n; i++)
		if (strcmp(keys[i - 1], keys[i]) == 0)
			dup = keys[i];
	free(keys);
	return dup;
}

/* Put seg before what where holds (of size; cut to fit). */
static void prepend(char *where, size_t size, const char *seg)
{
	size_t n = strlen(seg), have = strlen(where);

	if (n >= size)
		n = size - 1;
	if (have + n >= size)
		have = size - 1 - n;
	memmove(where + n, where, have);
	where[n + have] = '\0';
	memcpy(where, seg, n);
}

/*
 * Whether an object of j (at any depth) holds a key twice: then true, and
 * where (of size) names it as "checks[0].run", built on the way back up
 * (cut when long), so that a message of a million values costs no string
 * work until a key is found twice.
 */
static bool repeated_key(const cJSON *j, char *where, size_t size, bool *oom)
{
	const char *dup;
	const cJSON *c;
	size_t n = 0, i = 0;
	char seg[40];

	for (c = j->child; c; c = c->next)
		n++;
	if (cJSON_IsObject(j) && n > 1 && (dup = twice(j, n, oom))) {
		snprintf(where, size, "%s", dup);
		return true;
	}
	for (c = j->child; !*oom && c; c = c->next, i++) {
		if (!repeated_key(c, where, size, oom))
			continue;
		if (where[0] != '[')
			prepend(where, size, ".");
		if (cJSON_IsObject(j)) {
			prepend(where, size, c->string);
		} else {
			snprintf(seg, sizeof(seg), "[%zu]", i);
			prepend(where, size, seg);
		}
		return true;
	}
	return false;
}

int at_json_parse(at_json **out, const char *text, const char *what, struct at_error *err)
{
	const char *end = NULL;
	bool oom = false;
	char where[128], esc[160];
	cJSON *j;

	if (!text)
		return at_error_set(err, AT_ECORRUPT, "cannot parse '%s': no content", what);
	j = cJSON_ParseWithOpts(text, &end, 1);
	if (!j) {
		const char *at = cJSON_GetErrorPtr();
		long off = at && at >= text ? (long)(at - text) : -1;
		return at_error_set(err, AT_ECORRUPT, "cannot parse '%s': invalid JSON near byte %ld",
				    what, off);
	}
	/* Readers differ on a repeated key (first wins here, last in most): refused. */
	where[0] = '\0';
	if (repeated_key(j, where, sizeof(where), &oom) || oom) {
		if (oom)
			at_error_set(err, AT_ESYS, "out of memory");
		else
			at_error_set(err, AT_ECORRUPT, "cannot parse '%s': duplicate key '%s'", what,
				     at_esc(esc, sizeof(esc), where));
		cJSON_Delete(j);
		return err->code;
	}
	*out = j;
	return 0;
}

bool at_json_is_object(const at_json *j)
{
	return cJSON_IsObject(j);
}

bool at_json_is_array(const at_json *j)
{
	return cJSON_IsArray(j);
}

bool at_json_is_string(const at_json *j)
{
	return cJSON_IsString(j);
}

bool at_json_is_number(const at_json *j)
{
	return cJSON_IsNumber(j);
}

bool at_json_is_bool(const at_json *j)
{
	return cJSON_IsBool(j);
}

at_json *at_json_get(const at_json *obj, const char *key)
{
	if (!cJSON_IsObject(obj))
		return NULL;
	return cJSON_GetObjectItemCaseSensitive(obj, key);
}

const char *at_json_get_string(const at_json *obj, const char *key)
{
	return at_json_string_value(at_json_get(obj, key));
}

bool at_json_get_number(const at_json *obj, const char *key, double *out)
{
	const cJSON *j = at_json_get(obj, key);

	if (!cJSON_IsNumber(j))
		return false;
	*out = j->valuedouble;
	return true;
}

bool at_json_get_bool(const at_json *obj, const char *key, bool *out)
{
	const cJSON *j = at_json_get(obj, key);

	if (!cJSON_IsBool(j))
		return false;
	*out = cJSON_IsTrue(j);
	return true;
}

const char *at_json_string_value(const at_json *j)
{
	return cJSON_IsString(j) ? j->valuestring : NULL;
}

double at_json_number_value(const at_json *j)
{
	return cJSON_IsNumber(j) ? j->valuedouble : 0;
}

bool at_json_bool_value(const at_json *j)
{
	return cJSON_IsTrue(j);
}

size_t at_json_size(const at_json *arr)
{
	int n = cJSON_GetArraySize(arr);
	return n < 0 ? 0 : (size_t)n;
}

at_json *at_json_at(const at_json *arr, size_t i)
{
	return cJSON_GetArrayItem(arr, (int)i);
}

at_json *at_json_child(const at_json *j)
{
	return j ? j->child : NULL;
}

at_json *at_json_next(const at_json *j)
{
	return j ? j->next : NULL;
}

const char *at_json_key(const at_json *member)
{
	return member ? member->string : NULL;
}
