/*
 * args.c - a tool call's arguments checked against its input schema and
 * read, and the shapes every tool's result shares.
 */
#include <stdint.h>
#include <string.h>

#include "app/json.h"
#include "mcp/internal.h"

static bool type_is(const at_json *v, const char *type)
{
	if (strcmp(type, "string") == 0)
		return at_json_is_string(v);
	if (strcmp(type, "integer") == 0)
		return at_json_is_number(v) && at_json_number_value(v) >= 0 &&
		       at_json_number_value(v) == (double)(uint64_t)at_json_number_value(v);
	if (strcmp(type, "number") == 0)
		return at_json_is_number(v);
	if (strcmp(type, "boolean") == 0)
		return at_json_is_bool(v);
	if (strcmp(type, "array") == 0)
		return at_json_is_array(v);
	return at_json_is_object(v);
}

/* An array whose schema says "items": {"type": "string"} holds strings only. */
static bool items_ok(const at_json *v, const at_json *prop)
{
	const char *it = at_json_get_string(at_json_get(prop, "items"), "type");
	at_json *c;

	if (!it || !at_json_is_array(v))
		return true;
	for (c = at_json_child(v); c; c = at_json_next(c))
		if (!type_is(c, it))
			return false;
	return true;
}

int at_mcp_check_args(const at_json *schema, const at_json *args, struct at_error *err)
{
	const at_json *props = at_json_get(schema, "properties");
	at_json *c;

	if (!at_json_is_object(args))
		return at_error_set(err, AT_EUSAGE, "the arguments are not an object");
	for (c = at_json_child(args); c; c = at_json_next(c)) {
		const at_json *prop = at_json_get(props, at_json_key(c));
		const char *type = at_json_get_string(prop, "type");

		if (!prop)
			return at_error_set(err, AT_EUSAGE, "unknown argument '%.80s'", at_json_key(c));
		if ((type && !type_is(c, type)) || !items_ok(c, prop))
			return at_error_set(err, AT_EUSAGE, "argument '%.80s' must be %s %s",
					    at_json_key(c), type && type[0] == 'i' ? "an" : "a",
					    type && strcmp(type, "integer") == 0
						    ? "integer, 0 or more" : type ? type : "?");
	}
	for (c = at_json_child(at_json_get(schema, "required")); c; c = at_json_next(c))
		if (!at_json_get(args, at_json_string_value(c)))
			return at_error_set(err, AT_EUSAGE, "missing argument '%s'",
					    at_json_string_value(c));
	return 0;
}

const char *at_mcp_arg_string(const at_json *args, const char *key)
{
	return at_json_get_string(args, key);
}

bool at_mcp_arg_uint(const at_json *args, const char *key, uint64_t *out)
{
	double d;

	if (!at_json_get_number(args, key, &d) || d < 0 || d > 9007199254740992.0)
		return false;
	*out = (uint64_t)d;
	return true;
}

at_json *at_mcp_error_result(const struct at_error *err)
{
	return at_app_error_json(err);
}

at_json *at_mcp_task_result(const char *task)
{
	at_json *o = at_json_object();

	if (o && at_json_add_string(o, "task", task) < 0) {
		at_json_free(o);
		return NULL;
	}
	return o;
}

int at_mcp_oom(at_json *o, struct at_error *err)
{
	at_json_free(o);
	return at_error_set(err, AT_ESYS, "out of memory");
}

