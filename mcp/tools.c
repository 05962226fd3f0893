/*
 * tools.c - the tool table, argument checking, and the tools over tasks:
 * task_new, task_list, task_status, run, diff, commit (and accept, discard
 * with --allow-accept). Each calls one use case of app/ and gives its
 * result in the JSON form app/json.h makes for every front end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/accept.h"
#include "app/checkpoint.h"
#include "app/comment.h"
#include "app/commit.h"
#include "app/diff.h"
#include "app/discard.h"
#include "app/json.h"
#include "app/net.h"
#include "app/rewind.h"
#include "app/new.h"
#include "app/run.h"
#include "app/setup.h"
#include "app/task.h"
#include "core/array.h"
#include "core/change.h"
#include "core/strlist.h"
#include "mcp/internal.h"
#include "mcp/schemas.h"

/* ---- tasks ---- */

/* The run configuration's setup in the task just made; < 0 only when it could not start. */
static int task_setup(const struct at_mcp_call *c, const char *name, struct at_error *err)
{
	struct at_app_setup_opts so = AT_APP_SETUP_OPTS_INIT;
	struct at_app_setup_result res;

	so.name = name;
	so.capture = true;
	so.cancel_fd = c->cancel_fd;
	return at_app_setup(c->app, &so, &res, err) < 0 ? err->code : 0;
}

static int task_new(const struct at_mcp_call *c, const at_json *args, at_json **out,
		    struct at_error *err)
{
	struct at_app_new_opts o = { 0 };
	struct at_app_new_result res;
	int rc;

	if (c->session->fixed[0])
		return at_error_set(err, AT_EUSAGE, "this server serves task '%s' only: it makes "
				    "no other", c->session->fixed);
	o.name = at_mcp_arg_string(args, "task");
	o.base_rev = at_mcp_arg_string(args, "base");
	o.progress = c->progress;
	/* The base's .agenttask/ (run.json, policy.json) shapes the task's sandbox and gate. */
	o.base_on_branches = true;
	if ((rc = at_app_new(c->app, &o, &res, err)) == 0)
		rc = at_mcp_session_add(c->session, &res.task, err);
	/* The setup, as `new` runs it; the task stays whatever it gives (setup says). */
	if (rc == 0)
		rc = task_setup(c, res.task.name, err);
	if (rc == 0 && !(*out = at_app_new_json(&res)))
		rc = at_mcp_oom(NULL, err);
	if (rc == 0) {
		at_json *setup = at_app_setup_json(c->app, res.task.name);

		if (setup && at_json_add(*out, "setup", setup) < 0)
			rc = at_mcp_oom(NULL, err);
	}
	at_app_new_result_release(&res);
	return rc;
}

static int task_list(const struct at_mcp_call *c, const at_json *args, at_json **out,
		     struct at_error *err)
{
	struct at_app_list l;
	at_json *o = at_json_object(), *arr = at_json_array();
	size_t i;
	int bad = !o || !arr, rc;

	(void)args;
	if ((rc = at_app_list(c->app, &l, err)) < 0) {
		at_json_free(o);
		at_json_free(arr);
		return rc;
	}
	for (i = 0; !bad && i < l.n; i++)
		if (!l.v[i].err.code && at_mcp_session_reaches(c->session, &l.v[i].task))
			bad |= at_json_append(arr, at_app_task_json(&l.v[i].task, &l.v[i].info));
	at_app_list_release(&l);
	bad |= at_json_add(o, "tasks", arr);
	if (bad)
		return at_mcp_oom(o, err);
	*out = o;
	return 0;
}

static int task_status(const struct at_mcp_call *c, const at_json *args, at_json **out,
		       struct at_error *err)
{
	struct at_app_status st;
	const char *name;
	at_json *o;
	int rc;

	if ((rc = at_mcp_task_arg(c, args, &name, err)) < 0 ||
	    (rc = at_app_status(c->app, name, &st, err)) < 0)
		return rc;
	o = at_app_task_json(&st.task, &st.info);
	rc = o && at_app_preview_json(o, &st.preview) == 0 ? 0 : at_mcp_oom(o, err);
	at_app_status_release(&st);
	if (rc == 0)
		*out = o;
	return rc;
}

/* ---- run ---- */

struct run_call {
	struct at_app_run_opts o;
	char *sh[4];                      /* /bin/sh -c COMMAND */
	struct at_strlist argv, env, hosts;
	struct at_app_net *net;
};

static int run_argv(struct run_call *r, const at_json *args, struct at_error *err)
{
	const char *command = at_mcp_arg_string(args, "command");
	const at_json *argv = at_json_get(args, "argv");
	at_json *it;

	if (!command == !argv)
		return at_error_set(err, AT_EUSAGE, "give either 'command' (a shell command line) "
				    "or 'argv' (a list of words), not both");
	if (command) {
		r->sh[0] = "/bin/sh";
		r->sh[1] = "-c";
		r->sh[2] = (char *)command;
		r->o.argv = r->sh;
		return 0;
	}
	for (it = at_json_child(argv); it; it = at_json_next(it))
		if (at_strlist_push(&r->argv, at_json_string_value(it)) < 0)
			return at_error_set(err, AT_ESYS, "out of memory");
	if (!r->argv.n)
		return at_error_set(err, AT_EUSAGE, "'argv' is empty");
	r->o.argv = r->argv.v;
	return 0;
}

static int run_options(struct run_call *r, const at_json *args, struct at_error *err)
{
	const at_json *env = at_json_get(args, "env");
	at_json *it;
	uint64_t v;
	int rc = 0;

	if (at_mcp_arg_uint(args, "timeout", &v))
		r->o.timeout_ms = v * 1000;
	if (at_mcp_arg_uint(args, "output_max", &v)) {
		if (v == 0 || v > ((uint64_t)64 << 20))
			return at_error_set(err, AT_EUSAGE, "'output_max' must be 1 to 64M bytes");
		r->o.capture_max = (size_t)v;
	}
	r->o.cwd = at_mcp_arg_string(args, "cwd");
	/* Asked for, granted only when the person allows them (app/run.h). */
	for (it = at_json_child(at_json_get(args, "allow_hosts")); rc == 0 && it;
	     it = at_json_next(it))
		if (at_strlist_push(&r->hosts, at_json_string_value(it)) < 0)
			rc = at_error_set(err, AT_ESYS, "out of memory");
	r->o.ask_hosts = r->hosts.v;
	r->o.nask_hosts = r->hosts.n;
	for (it = at_json_child(env); rc == 0 && it; it = at_json_next(it)) {
		if (!at_json_is_string(it))
			return at_error_set(err, AT_EUSAGE, "'env' values must be strings");
		if (at_strlist_pushf(&r->env, "%s=%s", at_json_key(it), at_json_string_value(it)) < 0)
			rc = at_error_set(err, AT_ESYS, "out of memory");
	}
	r->o.set_env = r->env.v;
	r->o.nset = r->env.n;
	return rc;
}

static int run(const struct at_mcp_call *c, const at_json *args, at_json **out,
	       struct at_error *err)
{
	struct run_call r = { .o = AT_APP_RUN_OPTS_INIT };
	struct at_app_run_result res;
	int rc;

	if ((rc = at_mcp_task_arg(c, args, &r.o.name, err)) == 0 &&
	    (rc = at_app_net_new(&r.net, err)) == 0 && (rc = run_argv(&r, args, err)) == 0)
		rc = run_options(&r, args, err);
	if (rc == 0) {
		r.o.grant_hosts = c->allow_hosts;
		r.o.ngrant_hosts = c->nallow_hosts;
		r.o.capture = true;
		r.o.changes = true;
		r.o.tty = AT_TTY_NEVER;
		r.o.proxy = r.net;
		r.o.cancel_fd = c->cancel_fd;
		r.o.progress = c->progress;
		rc = at_app_run(c->app, &r.o, &res, err);
		/* A run that was attempted has its result, error and all. */
		if (res.attempted && !(*out = at_app_run_json(&r.o, &res, rc < 0 ? err : NULL)))
			rc = at_error_set(err, AT_ESYS, "out of memory");
		at_app_run_result_release(&res);
	}
	at_strlist_release(&r.argv);
	at_strlist_release(&r.env);
	at_strlist_release(&r.hosts);
	at_app_net_free(r.net);
	return rc;
}

/* ---- diff, commit ---- */

struct patch_buf {
	char *v;
	size_t n, cap;
	bool failed;
};

static int patch_line(char origin, const char *content, size_t len, void *payload)
{
	struct patch_buf *b = payload;
	bool mark = origin == AT_DIFF_CONTEXT || origin == AT_DIFF_ADDITION ||
		    origin == AT_DIFF_DELETION;

	if (b->n + len + 2 > AT_MCP_PATCH_MAX || AT_ARRAY_GROW(b->v, b->cap, b->n + len + 2) < 0) {
		b->failed = true;
		return -1;
	}
	if (mark)
		b->v[b->n++] = origin;
	memcpy(b->v + b->n, content, len);
	b->n += len;
	return 0;
}

static int add_patch(struct at_app_diff *d, at_json *o, struct at_error *err)
{
	struct patch_buf b = { NULL, 0, 0, false };
	struct at_diff_stat_opts so = AT_DIFF_STAT_OPTS_INIT;
	char *stat = NULL;
	int rc = at_app_diff_patch(d, patch_line, &b, err), bad;

	if (rc < 0 && b.failed) {
		at_error_clear(err);
		rc = at_error_set(err, AT_EUSAGE, "the patch is larger than %zu bytes: look at "
				  "the files one by one with read_file", (size_t)AT_MCP_PATCH_MAX);
	}
	if (rc == 0)
		rc = at_app_diff_stat(d, &so, &stat, err);
	if (rc == 0) {
		bad = at_json_add(o, "patch", at_json_bytes(b.v ? b.v : "", b.n, NULL));
		bad |= at_json_add_string(o, "stat", stat);
		rc = bad ? at_error_set(err, AT_ESYS, "out of memory") : 0;
	}
	free(b.v);
	free(stat);
	return rc;
}

static int diff(const struct at_mcp_call *c, const at_json *args, at_json **out,
		struct at_error *err)
{
	struct at_app_diff_opts o = { NULL, NULL, NULL };
	struct at_app_diff *d = NULL;
	at_json *j = NULL;
	int rc;

	if ((rc = at_mcp_task_arg(c, args, &o.name, err)) < 0)
		return rc;
	if ((rc = at_app_diff_open(c->app, &o, &d, err)) == 0 &&
	    (j = at_app_diff_json(d, err)) != NULL)
		rc = add_patch(d, j, err);
	else if (rc == 0)
		rc = err->code ? err->code : AT_ESYS;
	at_app_diff_free(d);
	if (rc < 0) {
		at_json_free(j);
		return rc;
	}
	*out = j;
	return 0;
}

static int commit(const struct at_mcp_call *c, const at_json *args, at_json **out,
		  struct at_error *err)
{
	struct at_app_commit_opts o = { NULL, at_mcp_arg_string(args, "message") };
	struct at_app_commit_result res;
	int rc;

	if ((rc = at_mcp_task_arg(c, args, &o.name, err)) < 0)
		return rc;
	if ((rc = at_app_commit(c->app, &o, &res, err)) == 0 && !(*out = at_app_commit_json(&res)))
		rc = at_mcp_oom(NULL, err);
	at_app_commit_result_release(&res);
	return rc;
}

/* ---- the person's review comments ---- */

static int review_comments(const struct at_mcp_call *c, const at_json *args, at_json **out,
			   struct at_error *err)
{
	struct at_app_comments_result res;
	const char *name;
	int rc;

	if ((rc = at_mcp_task_arg(c, args, &name, err)) < 0 ||
	    (rc = at_app_comments(c->app, name, false, &res, err)) < 0)
		return rc;
	if (!(*out = at_app_comments_result_json(&res)))
		rc = at_mcp_oom(NULL, err);
	at_app_comments_result_release(&res);
	return rc;
}

/* ---- accept, discard: only with --allow-accept ---- */

static int accept(const struct at_mcp_call *c, const at_json *args, at_json **out,
		  struct at_error *err)
{
	struct at_app_accept_opts o = { 0 };
	struct at_app_accept_result res;
	int rc;

	if ((rc = at_mcp_task_arg(c, args, &o.name, err)) < 0)
		return rc;
	o.message = at_mcp_arg_string(args, "message");
	o.expect_tree = at_mcp_arg_string(args, "expect_tree");
	/* Never the agent's to accept, whatever the policy: a file the host runs (app/accept.h). */
	o.no_host_files = true;
	o.progress = c->progress;
	if ((rc = at_app_accept_check(&o, err)) < 0)
		return rc;
	if ((rc = at_app_accept(c->app, &o, &res, err)) == 0 &&
	    !(*out = at_app_accept_json(&o, &res)))
		rc = at_mcp_oom(NULL, err);
	at_app_accept_result_release(&res);
	return rc;
}

static int discard(const struct at_mcp_call *c, const at_json *args, at_json **out,
		   struct at_error *err)
{
	struct at_app_discard_opts o = { 0 };
	struct at_app_discard_result res;
	int rc;

	if ((rc = at_mcp_task_arg(c, args, &o.name, err)) < 0)
		return rc;
	o.progress = c->progress;
	if ((rc = at_app_discard(c->app, &o, &res, err)) == 0 &&
	    !(*out = at_app_discard_json(&res)))
		rc = at_mcp_oom(NULL, err);
	at_app_discard_result_release(&res);
	return rc;
}

/* ---- checkpoints, rewind ---- */

static int checkpoints(const struct at_mcp_call *c, const at_json *args, at_json **out,
		       struct at_error *err)
{
	struct at_app_checkpoints cp;
	const char *name;
	int rc;

	if ((rc = at_mcp_task_arg(c, args, &name, err)) < 0)
		return rc;
	if ((rc = at_app_checkpoints(c->app, name, true, &cp, err)) == 0 &&
	    !(*out = at_app_checkpoints_json(&cp)))
		rc = at_mcp_oom(NULL, err);
	at_app_checkpoints_release(&cp);
	return rc;
}

static int rewind_(const struct at_mcp_call *c, const at_json *args, at_json **out,
		   struct at_error *err)
{
	struct at_app_rewind_opts o = { 0 };
	struct at_app_rewind_result res;
	char to[24];
	uint64_t n;
	int rc;

	if ((rc = at_mcp_task_arg(c, args, &o.name, err)) < 0)
		return rc;
	if (!at_mcp_arg_uint(args, "to", &n))
		return at_error_set(err, AT_EUSAGE, "'to' must be a run's number (1, 2, ...)");
	snprintf(to, sizeof(to), "%llu", (unsigned long long)n);
	o.to = to;
	o.progress = c->progress;
	if ((rc = at_app_rewind(c->app, &o, &res, err)) == 0 && !(*out = at_app_rewind_json(&res)))
		rc = at_mcp_oom(NULL, err);
	at_app_rewind_result_release(&res);
	return rc;
}

const struct at_mcp_tool at_mcp_tools[] = {
	{ "task_new", "New task", AT_MCP_DOC_TASK_NEW, AT_MCP_IN_TASK_NEW, AT_MCP_OUT_TASK, false,
	  task_new },
	{ "task_list", "List tasks", AT_MCP_DOC_TASK_LIST, AT_MCP_IN_NONE, AT_MCP_OUT_TASK_LIST,
	  false, task_list },
	{ "task_status", "Task status", AT_MCP_DOC_TASK_STATUS, AT_MCP_IN_TASK, AT_MCP_OUT_TASK,
	  false, task_status },
	{ "run", "Run a command", AT_MCP_DOC_RUN, AT_MCP_IN_RUN, AT_MCP_OUT_RUN, false, run },
	{ "read_file", "Read a file", AT_MCP_DOC_READ, AT_MCP_IN_READ, AT_MCP_OUT_READ, false,
	  at_mcp_read_file },
	{ "write_file", "Write a file", AT_MCP_DOC_WRITE, AT_MCP_IN_WRITE, AT_MCP_OUT_CHANGE,
	  false, at_mcp_write_file },
	{ "edit_file", "Edit a file", AT_MCP_DOC_EDIT, AT_MCP_IN_EDIT, AT_MCP_OUT_CHANGE, false,
	  at_mcp_edit_file },
	{ "list_files", "List files", AT_MCP_DOC_LIST, AT_MCP_IN_LIST, AT_MCP_OUT_LIST, false,
	  at_mcp_list_files },
	{ "delete_file", "Delete a file", AT_MCP_DOC_DELETE, AT_MCP_IN_PATH, AT_MCP_OUT_CHANGE,
	  false, at_mcp_delete_file },
	{ "diff", "Diff", AT_MCP_DOC_DIFF, AT_MCP_IN_TASK, AT_MCP_OUT_DIFF, false, diff },
	{ "commit", "Commit", AT_MCP_DOC_COMMIT, AT_MCP_IN_COMMIT, AT_MCP_OUT_COMMIT, false, commit },
	{ "review_comments", "Review comments", AT_MCP_DOC_REVIEW_COMMENTS, AT_MCP_IN_TASK,
	  AT_MCP_OUT_REVIEW_COMMENTS, false, review_comments },
	{ "checkpoints", "Checkpoints", AT_MCP_DOC_CHECKPOINTS, AT_MCP_IN_TASK,
	  AT_MCP_OUT_CHECKPOINTS, false, checkpoints },
	{ "rewind", "Rewind a task", AT_MCP_DOC_REWIND, AT_MCP_IN_REWIND, AT_MCP_OUT_REWIND, false,
	  rewind_ },
	{ "accept", "Accept (merge) a task", AT_MCP_DOC_ACCEPT, AT_MCP_IN_ACCEPT, AT_MCP_OUT_ACCEPT,
	  true, accept },
	{ "discard", "Discard a task", AT_MCP_DOC_DISCARD, AT_MCP_IN_TASK_REQUIRED,
	  AT_MCP_OUT_DISCARD, true, discard },
	{ NULL, NULL, NULL, NULL, NULL, false, NULL },
};
