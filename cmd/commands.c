#include "cmd/commands.h"

#include <string.h>

const struct at_command at_commands[] = {
	{ "new", cmd_new, "agenttask new NAME [--base REV]",
	  "create a task: a branch and a worktree of its own",
	  "  --base REV     start from REV (a branch, tag or commit; default HEAD)\n" },
	{ "list", cmd_list, "agenttask list [--json]", "list tasks",
	  "  --json         print a JSON array of tasks\n" },
	{ "status", cmd_status, "agenttask status [NAME] [--json]", "show one task's state",
	  "  --json         print a JSON object\n" },
	{ "path", cmd_path, "agenttask path NAME", "print a task's worktree path (for cd)", "" },
	{ "run", cmd_run, "agenttask run [NAME] [OPTIONS] -- CMD [ARG...]",
	  "run a command in the task's sandbox", NULL },
	{ "diff", cmd_diff,
	  "agenttask diff [NAME] [--stat | --name-only | --json] [--color=auto|always|never]",
	  "show the task's whole change against its base", NULL },
	{ "commit", cmd_commit, "agenttask commit [NAME] [-m MSG]",
	  "record every change in the worktree as one commit on the task branch",
	  "  -m, --message MSG   commit message\n" },
	{ "gate", cmd_gate, "agenttask gate [NAME] [--json | --markdown] [--policy FILE]\n"
			    "agenttask gate --base REV --head REV [--json | --markdown] [--policy FILE]",
	  "check a task (or a branch, in CI) against the review policy", NULL },
	{ "accept", cmd_accept,
	  "agenttask accept [NAME] [--ff-only | --squash] [-m MSG] [--keep] [--tree ID] [--override REASON]",
	  "merge the task into its base branch", NULL },
	{ "discard", cmd_discard, "agenttask discard [NAME]",
	  "throw a task away (saved in the trash first)", "" },
	{ "restore", cmd_restore, "agenttask restore NAME",
	  "bring the most recently discarded task NAME back", NULL },
	{ "log", cmd_log, "agenttask log [NAME] [--json]", "show the task's audit log", NULL },
	{ "gc", cmd_gc, "agenttask gc [--trash-days N]",
	  "remove what interrupted commands left behind",
	  "  --trash-days N   prune discarded tasks older than N days (default 14)\n" },
	{ NULL, NULL, NULL, NULL, NULL },
};

const struct at_command *at_command_find(const char *name)
{
	const struct at_command *c;

	for (c = at_commands; c->name; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}
