#include "cmd/commands.h"

#include <string.h>

#include "core/run.h"

const struct at_command at_commands[] = {
	{ "new", cmd_new, "agenttask new NAME [--base] [--quiet] [--json]",
	  "create a task: a branch and a worktree of its own",
	  "\nPrints the worktree's path. Files git ignores that .worktreeinclude lists\n"
	  "(gitignore syntax) are copied from the main worktree. On a terminal, a\n"
	  "checkout or copy that takes more than a second shows its progress on stderr\n"
	  "(\"Updating files\", \"Copying included files\": files and bytes), as git's does.\n",
	  cmd_new_opts, 15, "task" },
	{ "list", cmd_list, "agenttask list [--json | --name-only | --watch] [--color | --no-color]",
	  "list tasks",
	  "\nA table of every task with a header: its name, its state (clean, modified,\n"
	  "missing: the worktree is gone, half-made: interrupted while being made), its\n"
	  "branch, the branch it is based on, the tip of its branch (or its base commit),\n"
	  "when it was made and its worktree's path.\n"
	  "\n"
	  "--json adds each task's activity (\"live\"): running (its command, since when,\n"
	  "CPU and memory from its run's cgroup, else /proc), waiting (an interactive run\n"
	  "whose foreground process reads its terminal), exited (the last run's status\n"
	  "and end, from the log) or idle; its change (files, +, -), the gate's last\n"
	  "verdict, its published ports. --watch shows the same on the whole terminal,\n"
	  "refreshed every second, until q or ^C; a task's change is worked out again\n"
	  "only when its log or its worktree's top directory or index changed.\n",
	  cmd_list_opts, 15, NULL },
	{ "status", cmd_status, "agenttask status [NAME] [--json] [--color | --no-color]",
	  "show one task's state",
	  "",
	  cmd_status_opts, 15, "task" },
	{ "path", cmd_path, "agenttask path NAME", "print a task's worktree path (for cd)", "",
	  cmd_path_opts, 15, "task" },
	{ "run", cmd_run, "agenttask run [NAME] [OPTIONS] -- CMD [ARG...]",
	  "run a command in the task's sandbox",
	  "\n"
	  "Run configuration: ~/.config/agenttask/config.json (yours) and\n"
	  ".agenttask/run.json (the repository's, from the task's base commit), each\n"
	  "{\"run\": {...}, \"profiles\": {\"NAME\": {...}}} with keys ro, env, path, cache,\n"
	  "allow_hosts, forward, publish, notify, deny_private, limits, and allow_private\n"
	  "and notify_command (yours only);\n"
	  "'~/' is your home. Lowest first:\n"
	  "yours, your profile, the repository's, its profile, the options. The\n"
	  "repository's may ask for less than yours gives (its ro and cache within yours,\n"
	  "its hosts among yours, its forwards to host ports yours forwards, lower\n"
	  "limits), never more; deny_private anywhere holds.\n"
	  "HOME=" AT_RUN_HOME " is the task's own directory, kept from run to run (not in\n"
	  "the trash: it goes when the task goes); /tmp is new on every run.\n"
	  "The environment is cleared but for PATH, HOME, TERM, LANG, LC_* and TZ;\n"
	  "AGENTTASK_COMMENTS names the person's open review comments (a read-only file).\n"
	  "Exit status: the command's; 128+N when killed by signal N; 124 timeout; 125\n"
	  "the sandbox could not be set up; 126 cannot execute; 127 not found; 137 out of\n"
	  "memory (the kernel's OOM killer took a process of the run).\n",
	  cmd_run_opts, 19, "task" },
	{ "diff", cmd_diff,
	  "agenttask diff [NAME] [--stat | --name-only | --json [--patch]] [--color | --no-color]\n"
	  "               [--since-review | --against OTHER | --run N | --since N]\n"
	  "               [-- PATH...]\n"
	  "agenttask diff --base [--head] [--stat | --name-only | --json] [-- PATH...]",
	  "show the task's whole change against its base",
	  "\n"
	  "The change is everything accept would integrate: the task branch's commits\n"
	  "and the worktree's uncommitted and untracked (not ignored) files, against\n"
	  "the merge base of the task branch and its base branch. Paths are quoted as\n"
	  "git quotes them (see core.quotepath). The worktree is not changed.\n"
	  "\n"
	  "PATH... limits it to those files, as git's pathspec does: a file, a directory,\n"
	  "or a glob; relative to the current directory, ':/PATH' from the top. A rename\n"
	  "is shown whole when either of its paths matches. The JSON's tree stays the\n"
	  "whole state's; 'accept -- PATH...' accepts just these files, and its --tree\n"
	  "is the tree of that part (accept --json's part_tree).\n"
	  "With --against OTHER, two attempts are compared ('agenttask fork'): from\n"
	  "NAME's full state to OTHER's, both of this repository.\n"
	  "On a terminal the output goes through the pager (see 'agenttask help').\n"
	  "\n"
	  "Each changed file that tools on the host run or obey (editor and agent\n"
	  "configuration, .envrc, hooks, CI, .gitattributes, a package.json's scripts:\n"
	  "docs/ci.md) gets one warning line on stderr: the gate fails on it.\n"
	  "\n"
	  "--run N shows only what run N changed (N as 'agenttask log' numbers runs: the\n"
	  "state just before it against the state just before the next run, or now for\n"
	  "the last run); --since N everything since just before run N. Exit 2 for an N\n"
	  "that is not one of the task's.\n",
	  cmd_diff_opts, 15, "task" },
	{ "commit", cmd_commit, "agenttask commit [NAME] [-m] [--max-file-size] [--json]",
	  "record every change in the worktree as one commit on the task branch",
	  "",
	  cmd_commit_opts, 20, "task" },
	{ "gate", cmd_gate, "agenttask gate [NAME] [--json | --markdown] [--policy]\n"
			    "agenttask gate --base --head [--json | --markdown] [--policy]",
	  "check a task (or a branch, in CI) against the review policy",
	  "\nThe policy is read from the base: the tip of the task's base branch (the\n"
	  "task's base commit when it has none), so a task cannot loosen its own policy.\n"
	  "Checks run sandboxed, each in a fresh scratch worktree of the state judged; on\n"
	  "a terminal, the one running and its time so far are shown on stderr.\n"
	  "With or without a policy, the rule host_files fails on a change to a file\n"
	  "that tools on the host run or obey (editor and agent configuration, .envrc,\n"
	  "hooks, CI, .gitattributes, .gitmodules, .agenttask/, a package.json's\n"
	  "scripts: docs/ci.md), unless the policy says \"host_files\": \"allow\";\n"
	  "without a policy it is the only rule.\n"
	  "Exit 0 passed, 1 failed, 2 malformed policy.\n",
	  cmd_gate_opts, 15, "task" },
	{ "accept", cmd_accept,
	  "agenttask accept [NAME] [--ff-only | --squash] [-m] [--keep] [--force]\n"
	  "                        [--tree] [--override] [--policy] [--json]\n"
	  "                        [--exclude PATHSPEC]... [--drop-rest] [-- PATHSPEC...]\n"
	  "agenttask accept [NAME] -p",
	  "merge the task into its base branch",
	  "\nPending changes are committed on the task branch first. When the base branch is\n"
	  "checked out, its files are updated too; uncommitted changes of yours in any file\n"
	  "the task changes make accept refuse, other changes of yours are left as they are.\n"
	  "Unless --keep, accept refuses while a command of the task runs (--force kills it).\n"
	  "The gate runs with or without a policy: a change to a file that tools on the host\n"
	  "run (see 'agenttask help gate') is refused unless you give --override REASON or\n"
	  "the policy allows it, and is named on stderr, one warning line per file.\n"
	  "\n"
	  "-- PATHSPEC... (and --exclude) accepts part of the change: the files\n"
	  "'agenttask diff NAME -- PATHSPEC' shows (a rename whole when either of its\n"
	  "paths matches, a type change whole). The part, the merge base with exactly\n"
	  "those changes, lands in the base as one commit; the task's branch moves to\n"
	  "it and the rest stays in the task as uncommitted changes (its files are not\n"
	  "touched), or with --drop-rest goes to the trash with the task. --tree then\n"
	  "names the part's tree. A pathspec that matches no change is refused.\n"
	  "\n"
	  "-p walks the hunks on the terminal with git's keys (y n q a d s e ?; e opens\n"
	  "$VISUAL or $EDITOR), shows the --stat of the part they make and accepts\n"
	  "exactly that tree when you say y; without a terminal it is refused (exit 2).\n",
	  cmd_accept_opts, 19, "task" },
	{ "discard", cmd_discard, "agenttask discard [NAME] [--force] [--quiet] [--max-file-size]\n"
	  "                         [--json]",
	  "throw a task away (saved in the trash first)",
	  "\nThe task's full state (commits, uncommitted and untracked files, modes) is\n"
	  "saved under refs/agenttask/trash/NAME/ first; 'agenttask restore NAME' brings\n"
	  "it back until 'agenttask gc' prunes it (" AT_STR(AT_TRASH_DAYS_DEFAULT) " days by default). "
	  "Ignored files\n"
	  "(build output, node_modules/, .env) are not saved: they go with the worktree.\n"
	  "The task's checkpoints (its runs' states: 'agenttask log NAME') and its\n"
	  "review comments are kept in the trash with it, and come back with it.\n"
	  "A task whose worktree was moved ('git worktree move') is refused.\n",
	  cmd_discard_opts, 15, "task" },
	{ "drop", cmd_drop, "agenttask drop [NAME] [--exclude PATHSPEC]... [--force] [--json]\n"
	  "                      -- PATHSPEC...\n"
	  "agenttask drop [NAME] -p [--force]",
	  "throw part of a task's change away (saved in the trash first)",
	  "\nThe changes 'agenttask diff NAME -- PATHSPEC' shows (a rename whole when\n"
	  "either of its paths matches) are undone in the task's worktree: those files\n"
	  "become what the merge base has, the rest of the change stays. The task's\n"
	  "full state is saved in the trash first; 'agenttask restore NAME' puts the\n"
	  "dropped files back while the task is there (refused, naming it, when one of\n"
	  "them changed since). A pathspec that matches no change is refused (exit 2).\n"
	  "-p walks the hunks on the terminal as accept -p does (no e) and drops exactly\n"
	  "the picked ones; without a terminal it is refused (exit 2).\n",
	  cmd_drop_opts, 15, "task" },
	{ "restore", cmd_restore, "agenttask restore NAME [ENTRY] [--json]",
	  "bring a discarded task back (the most recently discarded NAME by default)",
	  "ENTRY is one of 'agenttask trash NAME': its number (1 the newest, 2 the one\n"
	  "before...), its time (SECONDS.NANOS) or its ref.\n"
	  "\n"
	  "The task comes back as it was discarded: its branch at the same commit, its\n"
	  "worktree with the same files, uncommitted changes still uncommitted (unstaged)\n"
	  "and untracked files still untracked, its checkpoints ('agenttask log NAME',\n"
	  "'diff --run N', 'rewind N' work as before the discard) and its review\n"
	  "comments ('agenttask comments NAME'). The trash entry is then deleted; other\n"
	  "entries of the same name stay in the trash.\n"
	  "Prints the worktree path. Exit 1 when a task NAME exists, 2 when there is no\n"
	  "trash for NAME ('agenttask gc --trash-days N' prunes old entries).\n"
	  "An entry of 'agenttask drop' while its task is there puts the dropped files\n"
	  "back into the task instead (exit 1, nothing written, when one changed since).\n",
	  cmd_restore_opts, 15, "trash" },
	{ "trash", cmd_trash, "agenttask trash [NAME] [--json]",
	  "list the discarded tasks that restore can bring back",
	  "\nOne line an entry, newest first within each task: its name, its ENTRY number\n"
	  "for 'agenttask restore NAME ENTRY', when it was discarded, the tip of its\n"
	  "branch then, its base branch, how many of the task's checkpoints it keeps\n"
	  "(restore gives them back, with its review comments) and its ref.\n"
	  "'agenttask gc' prunes entries older than --trash-days, with what they keep.\n",
	  cmd_trash_opts, 15, "trash" },
	{ "ports", cmd_ports, "agenttask ports [NAME] [--json]",
	  "list the ports the running commands publish (run --publish)",
	  "\nOne line a published port of a run going on now: the task, the sandbox's\n"
	  "port, and the URL on the host's loopback that reaches it. A run's ports\n"
	  "close when it ends.\n",
	  cmd_ports_opts, 15, "task" },
	{ "repair", cmd_repair, "agenttask repair [NAME] [--force]",
	  "set a task's git inside the sandbox back to the host's",
	  "\nWhen the commits made inside cannot be imported (a gitlink, a tree too deep,\n"
	  "an object over the size limit, a corrupt ref), every run and status says so\n"
	  "('the task's commits were not imported') until the task is repaired. What can\n"
	  "be imported is imported first; then the task's git layer is set aside whole,\n"
	  "and the next run sees the task's branch as the host has it, HEAD on it, the\n"
	  "worktree's index on the host, and no branch, tag, stash, config or hook made\n"
	  "inside. The worktree's files are left as they are (what the dropped commits\n"
	  "changed is there, uncommitted). The commit HEAD named inside is printed and\n"
	  "logged, and the old layer is kept under\n"
	  "<git-common-dir>/agenttask/git/NAME/dropped/ until the task is removed.\n"
	  "Exit 1, nothing changed, while a command of the task runs (--force kills it).\n",
	  cmd_repair_opts, 15, "task" },
	{ "comment", cmd_comment,
	  "agenttask comment NAME [PATH:LINE] TEXT [--json]\n"
	  "agenttask comment NAME --resolve [--json]",
	  "comment on a line of the task's change (or on all of it) for the agent",
	  "\nPATH is repository-relative, as the diff names it; LINE a line of the task's\n"
	  "new version, or a range FIRST-LAST of them, in its current full state: a path\n"
	  "not in it or a line outside the file is refused, nothing recorded. Without\n"
	  "PATH:LINE the comment is on the whole change. The agent reads the open\n"
	  "comments (docs/agents.md): the MCP tool review_comments, run --json's\n"
	  "comments, and inside the sandbox the file $AGENTTASK_COMMENTS. A comment also\n"
	  "marks the state reviewed (diff --since-review). Comments go with the task.\n",
	  cmd_comment_opts, 15, "task" },
	{ "comments", cmd_comments, "agenttask comments [NAME] [--json] [--all]",
	  "list the task's review comments",
	  "\nEach comment is shown against the task's current state: its line carried\n"
	  "through the diff of its file since the comment was made (lines inserted above\n"
	  "move it), or 'outdated' where its line changed or went.\n",
	  cmd_comments_opts, 15, "task" },
	{ "review", cmd_review, "agenttask review [NAME]",
	  "comment on the task's diff in your editor",
	  "Writes the task's diff to a temporary file and opens your editor on it\n"
	  "(GIT_EDITOR, core.editor, VISUAL, EDITOR, else vi: as git picks it). Each line\n"
	  "you add that starts with '>>' becomes a comment on the diff line above it:\n"
	  "under an added or context line, that line of the new version; under a removed\n"
	  "line, the nearest line of the new version (said so); before the first file, the\n"
	  "whole change. Consecutive '>>' lines are one comment. Saving with nothing\n"
	  "added records nothing; the rest of the file must stay as it was.\n",
	  cmd_review_opts, 15, "task" },
	{ "rewind", cmd_rewind, "agenttask rewind [NAME] N [--force] [--json]",
	  "put a task back to how it was just before its run N",
	  "\nBefore every run the task's full state is kept as a checkpoint whose number is\n"
	  "the run's ('agenttask log' shows each run's number and what it changed). rewind\n"
	  "brings back checkpoint N: the worktree's tracked and untracked (not ignored)\n"
	  "files, byte for byte with their modes and links, the task's branch at the\n"
	  "commit it had then, what was uncommitted uncommitted again, and the task's git\n"
	  "inside the sandbox (its branch, HEAD and index) the same. The state it replaces\n"
	  "is kept first as a checkpoint of its own (its number is printed): rewind to it\n"
	  "undoes the rewind.\n"
	  "Not rewound: ignored files, the task's lasting HOME, its caches, and the other\n"
	  "branches and tags made inside.\n"
	  "Exit 1, nothing changed, while a command of the task runs (--force kills it),\n"
	  "or when the worktree holds what cannot be kept (a file over the size limit,\n"
	  "a name git refuses); exit 2 when N is not one of the task's. Interrupted, it\n"
	  "leaves the old state or the new, or a record that 'agenttask gc' (or rewind\n"
	  "again) completes; no run of the task starts meanwhile.\n",
	  cmd_rewind_opts, 15, "task" },
	{ "log", cmd_log, "agenttask log [NAME] [--json] [--color | --no-color]",
	  "show the task's audit log",
	  "\nEvery run is logged: argv, start, duration, exit status, resource use, its\n"
	  "number (see 'agenttask rewind') and, while the task exists, the files it\n"
	  "changed (--json: files, additions, deletions); and every new, commit, gate,\n"
	  "accept (and --override), discard, restore, repair and rewind.\n"
	  "The log outlives the task's removal. The text shows every control character\n"
	  "of what the task chose (argv, reasons), tab and newline too, as \\xNN; --json\n"
	  "has the exact strings.\n",
	  cmd_log_opts, 15, "task" },
	{ "gc", cmd_gc, "agenttask gc [--trash-days] [--max-age [--dry-run]] [--force] [--quiet] [--json]",
	  "remove what interrupted commands left behind",
	  "\nA failure with one thing is reported and gc goes on with the rest (exit 1).\n"
	  "With --max-age, a task's last activity is the newest entry of its log\n"
	  "('agenttask log NAME': a run's end, a commit, a gate, an import...) or its\n"
	  "creation; such a task goes to the trash as discard sends it, and\n"
	  "'agenttask restore NAME' brings it back.\n",
	  cmd_gc_opts, 17, NULL },
	{ "fork", cmd_fork, "agenttask fork NAME NEW [--json]",
	  "make a task that starts from another task's whole state",
	  "\nNEW's branch starts at NAME's tip; its worktree gets NAME's uncommitted and\n"
	  "untracked files (not the files git ignores: build output, node_modules/);\n"
	  "its git inside the sandbox is NAME's as a run sees it (HEAD, index, other\n"
	  "branches, stashes, config); its lasting HOME is a copy of NAME's (data shared\n"
	  "by reflink where the file system can); its base is NAME's. Nothing is made\n"
	  "when NEW exists or a command of NAME runs. Prints NEW's path. Compare the two\n"
	  "attempts with 'agenttask diff NAME --against NEW'.\n",
	  cmd_fork_opts, 15, "task" },
	{ "du", cmd_du, "agenttask du [NAME] [--json]",
	  "show the disk each task takes",
	  "\nEach task's worktree (a layered task's: its own layer, not the base it\n"
	  "shares), HOME, caches and git view, counted as du(1) counts\n"
	  "them: the blocks allocated, a file with several links once (where it is first\n"
	  "met), no symbolic link followed, no other mount entered; then the total, and\n"
	  "the task's entries in the trash (their objects share the repository's store:\n"
	  "'git count-objects -v' measures it). Without NAME, every task. --json gives\n"
	  "the sizes in bytes. Nothing is changed.\n",
	  cmd_du_opts, 15, "task" },
	{ "doctor", cmd_doctor, "agenttask doctor [--json]",
	  "check what the sandbox needs from this machine",
	  "\nEach check tries the real thing in a throw-away process: user namespaces (and\n"
	  "AppArmor's restriction of them), overlayfs in a user namespace, the cgroup a\n"
	  "run's limits would get, seccomp, openat2, the mount API and mount_setattr. Each\n"
	  "says ok, fallback (the sandbox works, weaker) or fail, and the fix. Exit 0 when\n"
	  "agenttask can sandbox here, even with fallbacks; 1 when it cannot.\n",
	  cmd_doctor_opts, 15, NULL },
	{ "mcp", cmd_mcp, "agenttask [-C DIR] mcp [--allow-accept] [--task] [--allow-host]...",
	  "serve the tasks to an agent over the Model Context Protocol (stdio)",
	  "\nJSON-RPC 2.0 on stdin and stdout, one message a line, protocol revision\n"
	  "2025-11-25. Tools: task_new, task_list, task_status, run, read_file,\n"
	  "write_file, edit_file, list_files, delete_file, diff, commit, review_comments\n"
	  "(the person's open review comments), checkpoints, rewind. The repository is\n"
	  "the one holding DIR (default the current directory). Started inside a task's\n"
	  "worktree, the server reaches that task only, as with --task; a tool's 'task'\n"
	  "defaults to it. task_new starts from a commit on your branches only (not a\n"
	  "task's). See docs/agents.md.\n",
	  cmd_mcp_opts, 17, NULL },
	{ "help", NULL, "agenttask help [--man] [COMMAND]",
	  "show a command's manual, or the overview of them all",
	  "\nThe text is the same as 'agenttask COMMAND --help' and the installed manual\n"
	  "page agenttask-COMMAND(1): all three are made from one table.\n",
	  NULL, 15, "command" },
	{ NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL },
};

const char at_overview[] =
	"Run an AI agent's work in a task of its own: an ephemeral git worktree and\n"
	"branch, a sandbox bound to it, a review, then accept or discard.\n"
	"\n"
	"Where NAME is optional it defaults to the task whose worktree holds the\n"
	"current directory. A task NAME is the branch agenttask/NAME checked out in a\n"
	"linked worktree at <base>/<repo>-<id>/NAME ('agenttask path NAME' prints it),\n"
	"outside the git directory: <base> is git config's agenttask.worktreeDir, else\n"
	"${XDG_DATA_HOME:-~/.local/share}/agenttask/worktrees; <repo> the repository's\n"
	"directory name, <id> a hash of its git common dir. Older tasks, made under\n"
	"<git-common-dir>/agenttask/worktrees/NAME, stay there and keep working.\n"
	"\n"
	"On a terminal, diff and log go through a pager as git's do: GIT_PAGER, else\n"
	"core.pager, else PAGER, else less (with LESS=FRX unless LESS is set). Colour\n"
	"is used on a terminal unless TERM is dumb or NO_COLOR is set; --color=always\n"
	"and --color=never (or --no-color) decide instead.\n";

const char at_global_options[] =
	"  -C DIR         run as if started in DIR, as with git\n"
	"  -P, --no-pager  do not page the output of diff and log\n"
	"  --version      print the version, and those of libgit2 and libseccomp\n"
	"  -h, --help     print this overview\n";

const char at_exit_status[] =
	"  0              done (gate: passed)\n"
	"  1              refused or failed for a stated reason: a conflict, changes in\n"
	"                 the way, a failed gate, a name already taken\n"
	"  2              usage error, unknown task, not a repository, malformed policy\n"
	"  124            run: the command timed out\n"
	"  125            run: the sandbox could not be set up (the command never ran)\n"
	"  126, 127       run: the command could not be executed, or was not found\n"
	"  128+N          run: the command was killed by signal N\n";

const struct at_command *at_command_find(const char *name)
{
	const struct at_command *c;

	for (c = at_commands; c->name; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}
