#include "core/json.h"

#include <cJSON.h>
#include <stdlib.h>

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

void at_json_free(at_json *j)
{
	cJSON_Delete(j);
}

at_json *at_json_dup(const at_json *j)
{
	return j ? cJSON_Duplicate(j, 1) : NULL;
}

int at_json_add(at_json *obj, const char *key, at_json *item)
{
	if (!obj || !item || !cJSON_AddItemToObject(obj, key, item)) {
		cJSON_Delete(item);
		return -1;
	}
	return 0;
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

int at_json_parse(at_json **out, const char *text, const char *what, struct at_error *err)
{
	const char *end = NULL;
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
