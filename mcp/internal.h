/*
 * internal.h - what the files of mcp/ share: one tool call's context and
 * the tool table (tools.c); server.c is the transport and the lifecycle.
 */
#ifndef AT_MCP_INTERNAL_H
#define AT_MCP_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "app/app.h"
#include "core/error.h"
#include "core/json.h"
#include "core/task.h"

/*
 * What a server reaches (session.c): one task the person named, or the
 * tasks its session made. Calls are handled one at a time: no lock.
 */
struct at_mcp_session {
	char fixed[AT_NAME_MAX + 1];   /* --task NAME (or -C in its worktree): the only one; "" */
	struct at_mcp_made {
		char name[AT_NAME_MAX + 1];
		int64_t created;       /* with the name: the task made, not a later namesake */
	} *made;
	size_t nmade, cap;
};

struct at_mcp_call {
	const struct at_app *app;
	bool allow_accept;
	int cancel_fd;            /* readable once the call is cancelled or the client is gone */
	struct at_progress_hook progress;
	struct at_mcp_session *session;
	char *const *allow_hosts; /* agenttask mcp --allow-host */
	size_t nallow_hosts;
};

/* task: --task's NAME (AT_ENOTFOUND when there is none), or NULL. */
int at_mcp_session_init(struct at_mcp_session *s, const struct at_app *app, const char *task,
			struct at_error *err);
void at_mcp_session_release(struct at_mcp_session *s);
/* task_new made t. */
int at_mcp_session_add(struct at_mcp_session *s, const struct at_task *t, struct at_error *err);
bool at_mcp_session_reaches(const struct at_mcp_session *s, const struct at_task *t);
/*
 * The task a call names ("task", or the fixed one when left out) into
 * *name, when the session reaches it; AT_EUSAGE naming it otherwise (and
 * AT_ENOTFOUND for a task made and gone).
 */
int at_mcp_task_arg(const struct at_mcp_call *c, const at_json *args, const char **name,
		    struct at_error *err);

/*
 * A tool: its handler fills *out with the structuredContent (an object
 * matching output_schema) and returns 0, or returns < 0 with err set (the
 * call's result then has isError, and *out, if set, as its structured
 * content).
 */
struct at_mcp_tool {
	const char *name;
	const char *title;
	const char *description;
	const char *input_schema;     /* JSON text */
	const char *output_schema;
	bool accepting;               /* only with --allow-accept */
	int (*fn)(const struct at_mcp_call *c, const at_json *args, at_json **out,
		  struct at_error *err);
};

/* The tools (tools.c, tools_files.c), ended by a zeroed entry. */
extern const struct at_mcp_tool at_mcp_tools[];

/*
 * Check args against the tool's input schema (parsed): an object, every
 * required property present, no property the schema does not name, each
 * of the type it says. AT_EUSAGE naming the property otherwise.
 */
int at_mcp_check_args(const at_json *schema, const at_json *args, struct at_error *err);

/* Typed arguments; a missing optional one gives NULL / fallback. */
const char *at_mcp_arg_string(const at_json *args, const char *key);
bool at_mcp_arg_uint(const at_json *args, const char *key, uint64_t *out);

/* The structured result of a call that failed: {"error": {code, message}}. */
at_json *at_mcp_error_result(const struct at_error *err);

/* A result object holding "task"; NULL when out of memory. */
at_json *at_mcp_task_result(const char *task);
/* Free o, set err to out of memory; returns AT_ESYS. */
int at_mcp_oom(at_json *o, struct at_error *err);

/* The patch a diff gives at most (bytes). */
#define AT_MCP_PATCH_MAX ((size_t)4 << 20)

/* The file tools (tools_files.c). */
int at_mcp_read_file(const struct at_mcp_call *c, const at_json *args, at_json **out,
		     struct at_error *err);
int at_mcp_write_file(const struct at_mcp_call *c, const at_json *args, at_json **out,
		      struct at_error *err);
int at_mcp_edit_file(const struct at_mcp_call *c, const at_json *args, at_json **out,
		     struct at_error *err);
int at_mcp_list_files(const struct at_mcp_call *c, const at_json *args, at_json **out,
		      struct at_error *err);
int at_mcp_delete_file(const struct at_mcp_call *c, const at_json *args, at_json **out,
		       struct at_error *err);

#endif
