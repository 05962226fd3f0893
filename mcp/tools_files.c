/*
 * tools_files.c - read_file, write_file, edit_file, list_files, delete_file:
 * app/files.h does the work (paths beneath the worktree, bounds); here the
 * arguments are taken and the results given as JSON.
 */
#include <stdlib.h>
#include <string.h>

#include "app/files.h"
#include "mcp/internal.h"

int at_mcp_read_file(const struct at_mcp_call *c, const at_json *args, at_json **out,
		     struct at_error *err)
{
	struct at_app_file_read_opts o = { NULL, at_mcp_arg_string(args, "path"), 0, 0 };
	struct at_app_file_text t;
	bool exact = true;
	at_json *j;
	int rc, bad;

	if ((rc = at_mcp_task_arg(c, args, &o.name, err)) < 0)
		return rc;
	at_mcp_arg_uint(args, "offset", &o.offset);
	at_mcp_arg_uint(args, "limit", &o.limit);
	if ((rc = at_app_file_read(c->app, &o, &t, err)) < 0)
		return rc;
	j = at_mcp_task_result(t.task);
	bad = !j || at_json_add_string(j, "path", o.path) < 0 ||
	      at_json_add(j, "content", at_json_bytes(t.data, t.len, &exact)) < 0;
	if (!bad && !exact)
		bad = at_json_add(j, "content_base64", at_json_base64(t.data, t.len)) < 0;
	bad = bad || at_json_add_number(j, "first_line", (double)t.first_line) < 0 ||
	      at_json_add_number(j, "lines", (double)t.lines) < 0 ||
	      at_json_add_number(j, "total_lines", (double)t.total_lines) < 0 ||
	      at_json_add_number(j, "size", (double)t.size) < 0 ||
	      at_json_add_bool(j, "truncated", t.truncated) < 0;
	at_app_file_text_release(&t);
	if (bad)
		return at_mcp_oom(j, err);
	*out = j;
	return 0;
}

static int change_result(const struct at_app_file_change *ch, const char *path, at_json **out,
			 struct at_error *err)
{
	at_json *j = at_mcp_task_result(ch->task);

	if (!j || at_json_add_string(j, "path", path) < 0 ||
	    at_json_add_number(j, "bytes", (double)ch->bytes) < 0 ||
	    at_json_add_bool(j, "existed", !ch->created) < 0 ||
	    (ch->warning[0] && at_json_add_string(j, "warning", ch->warning) < 0))
		return at_mcp_oom(j, err);
	*out = j;
	return 0;
}

int at_mcp_write_file(const struct at_mcp_call *c, const at_json *args, at_json **out,
		      struct at_error *err)
{
	const char *path = at_mcp_arg_string(args, "path");
	const char *text = at_mcp_arg_string(args, "content");
	const char *b64 = at_mcp_arg_string(args, "content_base64");
	struct at_app_file_change ch;
	const char *name;
	char *bytes = NULL;
	size_t len = 0;
	int rc;

	if ((rc = at_mcp_task_arg(c, args, &name, err)) < 0)
		return rc;
	if (!text == !b64)
		return at_error_set(err, AT_EUSAGE, "give either 'content' or 'content_base64'");
	if (b64 && strlen(b64) / 4 * 3 > AT_APP_FILE_MAX + 3)
		return at_error_set(err, AT_EUSAGE, "the content is more than a write may hold "
				    "(%zu bytes)", AT_APP_FILE_MAX);
	if (b64 && at_base64_decode(b64, &bytes, &len) < 0)
		return at_error_set(err, AT_EUSAGE, "'content_base64' is not base64");
	rc = at_app_file_write(c->app, name, path,
			       bytes ? bytes : text, bytes ? len : strlen(text), &ch, err);
	free(bytes);
	return rc < 0 ? rc : change_result(&ch, path, out, err);
}

int at_mcp_edit_file(const struct at_mcp_call *c, const at_json *args, at_json **out,
		     struct at_error *err)
{
	const char *path = at_mcp_arg_string(args, "path");
	const char *old = at_mcp_arg_string(args, "old_string");
	const char *new = at_mcp_arg_string(args, "new_string");
	struct at_app_file_change ch;
	const char *name;
	int rc;

	if ((rc = at_mcp_task_arg(c, args, &name, err)) < 0)
		return rc;
	rc = at_app_file_edit(c->app, name, path, old, strlen(old), new, strlen(new), &ch, err);
	return rc < 0 ? rc : change_result(&ch, path, out, err);
}

int at_mcp_delete_file(const struct at_mcp_call *c, const at_json *args, at_json **out,
		       struct at_error *err)
{
	const char *path = at_mcp_arg_string(args, "path");
	struct at_app_file_change ch;
	const char *name;
	int rc;

	if ((rc = at_mcp_task_arg(c, args, &name, err)) < 0)
		return rc;
	rc = at_app_file_delete(c->app, name, path, &ch, err);
	return rc < 0 ? rc : change_result(&ch, path, out, err);
}

int at_mcp_list_files(const struct at_mcp_call *c, const at_json *args, at_json **out,
		      struct at_error *err)
{
	struct at_app_file_list l;
	const char *name = NULL;
	at_json *j, *files = at_json_array();
	size_t i;
	int rc, bad = !files;

	rc = at_mcp_task_arg(c, args, &name, err);
	if (rc == 0)
		rc = at_app_file_list(c->app, name, at_mcp_arg_string(args, "path"), &l, err);
	else
		memset(&l, 0, sizeof(l));
	if (rc < 0) {
		at_json_free(files);
		at_app_file_list_release(&l);
		return rc;
	}
	for (i = 0; !bad && i < l.paths.n; i++)
		bad |= at_json_append(files, at_json_bytes(l.paths.v[i], strlen(l.paths.v[i]), NULL));
	j = at_mcp_task_result(l.task);
	if (!j)
		at_json_free(files);   /* at_json_add frees it otherwise */
	bad |= !j || at_json_add(j, "files", files) < 0;
	bad |= !j || at_json_add_bool(j, "truncated", l.truncated) < 0;
	at_app_file_list_release(&l);
	if (bad)
		return at_mcp_oom(j, err);
	*out = j;
	return 0;
}
