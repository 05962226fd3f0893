#include <stdio.h>

#include "cmd/commands.h"
#include "core/json.h"
#include "git/merge.h"
#include "git/worktree.h"

/* What accepting now would do; a preview that fails does not fail status. */
struct preview {
	struct at_merge_preview pv;
	struct at_error err;
	bool ok;
};

static void print_preview(const struct at_task *t, const struct preview *p)
{
	const char *base = at_branch_short(t->base_branch);
	size_t i;

	printf("merge:        ");
	if (!p->ok) {
		printf("cannot preview: %s\n", p->err.msg);
		return;
	}
	if (!p->pv.has_base_branch) {
		printf("no base branch to accept into (the task began on a detached HEAD)\n");
		return;
	}
	if (p->pv.base_moved)
		printf("%s moved on by %zu commit%s since the task began; ", base, p->pv.base_ahead,
		       p->pv.base_ahead == 1 ? "" : "s");
	else
		printf("%s has not moved since the task began; ", base);
	if (p->pv.clean) {
		printf("merges cleanly\n");
		return;
	}
	printf("would conflict in: ");
	for (i = 0; i < p->pv.conflicts.count; i++)
		printf("%s%s", i ? ", " : "", p->pv.conflicts.paths[i]);
	putchar('\n');
}

static int add_preview_json(at_json *o, const struct preview *p)
{
	at_json *conflicts = at_json_array();
	size_t i;

	if (!o || !conflicts) {
		at_json_free(conflicts);
		return -1;
	}
	for (i = 0; p->ok && i < p->pv.conflicts.count; i++)
		if (at_json_append(conflicts, at_json_string(p->pv.conflicts.paths[i])) < 0) {
			at_json_free(conflicts);
			return -1;
		}
	if (at_json_add_bool(o, "base_moved", p->ok && p->pv.base_moved) < 0 ||
	    at_json_add_number(o, "base_ahead", p->ok ? (double)p->pv.base_ahead : 0) < 0 ||
	    (p->ok ? at_json_add_bool(o, "merges_cleanly", p->pv.clean) :
		     at_json_add_null(o, "merges_cleanly")) < 0 ||
	    at_json_add(o, "conflicts", conflicts) < 0)
		return -1;
	if (!p->ok && at_json_add_string(o, "preview_error", p->err.msg) < 0)
		return -1;
	return 0;
}

static int print_json(const struct at_task *t, const struct at_task_info *info,
		      const struct preview *p)
{
	at_json *o = at_cli_task_json(t, info);

	if (add_preview_json(o, p) < 0) {
		at_json_free(o);
		fputs("agenttask: out of memory\n", stderr);
		return AT_EXIT_FAIL;
	}
	return at_cli_print_json(o);
}

static void print_status(const struct at_task *t, const struct at_task_info *info)
{
	char created[32];

	at_cli_time(created, sizeof(created), t->created);
	printf("task:         %s\n", t->name);
	printf("branch:       %s\n", at_branch_short(t->branch));
	printf("base:         %s at %.12s\n",
	       t->base_branch[0] ? at_branch_short(t->base_branch) : "(detached HEAD)",
	       t->base_commit);
	printf("head:         %.12s (%zu commit%s ahead of base)\n", info->head_commit,
	       info->commits_ahead, info->commits_ahead == 1 ? "" : "s");
	printf("worktree:     %s%s\n", t->path, info->worktree_missing ? " (missing)" : "");
	printf("changes:      %s\n", info->dirty ? "uncommitted changes" : "none uncommitted");
	printf("created:      %s\n", created);
}

int cmd_status(struct at_cli *cli, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct at_error err = AT_ERROR_INIT;
	struct at_repo *repo = NULL;
	struct preview preview = { .err = AT_ERROR_INIT };
	struct at_task_info info;
	struct at_task task;
	bool json = false;
	int c, rc;

	while ((c = at_cli_getopt(argc, argv, "h", longopts)) != -1) {
		if (c == 'j')
			json = true;
		else
			return c == 'h' ? at_cli_help("status") : at_cli_bad_option("status");
	}
	if (optind + 1 < argc)
		return at_cli_usage("status", "too many arguments");
	rc = at_cli_open(cli, &repo, &err);
	if (rc == 0)
		rc = at_cli_task(cli, repo, optind < argc ? argv[optind] : NULL, &task, &err);
	if (rc == 0)
		rc = at_task_inspect(repo, &task, &info, &err);
	if (rc == 0)
		preview.ok = at_merge_preview(repo, &task, &preview.pv, &preview.err) == 0;
	at_repo_free(repo);
	if (rc < 0)
		return at_cli_fail(&err);
	if (json) {
		rc = print_json(&task, &info, &preview);
	} else {
		print_status(&task, &info);
		print_preview(&task, &preview);
		rc = AT_EXIT_OK;
	}
	if (preview.ok)
		at_merge_preview_release(&preview.pv);
	return rc;
}
