/*
 * session.c - what one server reaches: the tasks its session made (by
 * task_new), or the one task the person named (--task, or the task whose
 * worktree holds the server's directory). A task is known by its name and
 * the time it was made, so that a task of the person's made later under a
 * name the session had used is not the session's.
 */
#include <stdlib.h>
#include <string.h>

#include "app/task.h"
#include "core/array.h"
#include "core/esc.h"
#include "mcp/internal.h"

int at_mcp_session_init(struct at_mcp_session *s, const struct at_app *app, const char *task,
			struct at_error *err)
{
	struct at_error ignored = AT_ERROR_INIT;
	struct at_task t;
	int rc;

	memset(s, 0, sizeof(*s));
	if (task) {
		if ((rc = at_app_task(app, task, &t, err)) < 0)
			return rc;
		memcpy(s->fixed, t.name, sizeof(s->fixed));
	} else if (at_app_task(app, NULL, &t, &ignored) == 0) {
		/* Started in a task's worktree: the person chose that task. */
		memcpy(s->fixed, t.name, sizeof(s->fixed));
	}
	return 0;
}

void at_mcp_session_release(struct at_mcp_session *s)
{
	if (!s)
		return;
	free(s->made);
	s->made = NULL;
	s->nmade = s->cap = 0;
}

int at_mcp_session_add(struct at_mcp_session *s, const struct at_task *t, struct at_error *err)
{
	if (AT_ARRAY_GROW(s->made, s->cap, s->nmade + 1) < 0)
		return at_error_set(err, AT_ESYS, "out of memory");
	memcpy(s->made[s->nmade].name, t->name, sizeof(s->made[0].name));
	s->made[s->nmade++].created = t->created;
	return 0;
}

bool at_mcp_session_reaches(const struct at_mcp_session *s, const struct at_task *t)
{
	size_t i;

	if (s->fixed[0])
		return strcmp(t->name, s->fixed) == 0;
	for (i = 0; i < s->nmade; i++)
		if (strcmp(s->made[i].name, t->name) == 0 && s->made[i].created == t->created)
			return true;
	return false;
}

int at_mcp_task_arg(const struct at_mcp_call *c, const at_json *args, const char **name,
		    struct at_error *err)
{
	const struct at_mcp_session *s = c->session;
	const char *asked = at_mcp_arg_string(args, "task");
	struct at_task t;
	char esc[120];
	int rc;

	if (!asked && !s->fixed[0])
		return at_error_set(err, AT_EUSAGE, "missing argument 'task': name a task this "
				    "server made with task_new");
	if (!asked)
		asked = s->fixed;
	if (s->fixed[0] && strcmp(asked, s->fixed) != 0)
		return at_error_set(err, AT_EUSAGE, "task '%s' is out of this server's reach: it "
				    "serves task '%s' only", at_esc(esc, sizeof(esc), asked),
				    s->fixed);
	if (!s->fixed[0]) {
		if ((rc = at_app_task(c->app, asked, &t, err)) < 0)
			return rc;
		if (!at_mcp_session_reaches(s, &t))
			return at_error_set(err, AT_EUSAGE, "task '%s' is out of this server's "
					    "reach: it reaches only the tasks its session made with "
					    "task_new (or the one 'agenttask mcp --task' names)",
					    at_esc(esc, sizeof(esc), asked));
	}
	*name = asked;
	return 0;
}
