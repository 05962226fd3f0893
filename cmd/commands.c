#include "cmd/commands.h"

#include <string.h>

#include "core/run.h"

const struct at_command at_commands[] = {
	{ "new", cmd_new, "agenttask new NAME [--base REV] [--quiet] [--json]",
	  "create a task: a branch and a worktree of its own",
	  "  --base REV     start from REV (a branch, tag or commit; default HEAD)\n"
	  "  -q, --quiet    no progress on the terminal\n"
	  "  --json         print the task as a JSON object (docs/json.md); no progress\n"
	  "\nPrints the worktree's path. Files git ignores that .worktreeinclude lists\n"
	  "(gitignore syntax) are copied from the main worktree. On a terminal, a\n"
	  "checkout or copy that takes more than a second shows its progress on stderr\n"
	  "(\"Updating files\", \"Copying included files\": files and bytes), as git's does.\n" },
	{ "list", cmd_list, "agenttask list [--json | --name-only] [--color[=WHEN] | --no-color]",
	  "list tasks",
	  "  --json         print a JSON array of tasks\n"
	  "  --name-only    only the names, one a line\n"
	  "  --color[=WHEN] colour the states: auto (on a terminal; default), always, never\n"
	  "  --no-color     the same as --color=never\n"
	  "\nA table of every task with a header: its name, its state (clean, modified,\n"
	  "missing: the worktree is gone, half-made: interrupted while being made), its\n"
	  "branch, the branch it is based on, the tip of its branch (or its base commit),\n"
	  "when it was made and its worktree's path.\n" },
	{ "status", cmd_status, "agenttask status [NAME] [--json] [--color[=WHEN] | --no-color]",
	  "show one task's state",
	  "  --json         print a JSON object\n"
	  "  --color[=WHEN] colour the output: auto (on a terminal; default), always, never\n"
	  "  --no-color     the same as --color=never\n" },
	{ "path", cmd_path, "agenttask path NAME", "print a task's worktree path (for cd)", "" },
	{ "run", cmd_run, "agenttask run [NAME] [OPTIONS] -- CMD [ARG...]",
	  "run a command in the task's sandbox",
	  "  --ro PATH          also show PATH (read-only) at the same path\n"
	  "  --rw PATH          also show PATH read-write (never git metadata or state)\n"
	  "  --net              share the host's network (default: loopback only)\n"
	  "  --allow-host PATTERN  reach hosts matching PATTERN through a proxy: host,\n"
	  "                     host:port, *.domain (subdomains); ports 80 and 443 by default\n"
	  "  --forward PORT[:INNER]  the sandbox's loopback port INNER (default PORT)\n"
	  "                     reaches the host's 127.0.0.1:PORT\n"
	  "  --allow-private    the proxy may dial private addresses (RFC 1918, 100.64/10,\n"
	  "                     fc00::/7), refused by default whatever allowed the host\n"
	  "  --deny-private     refuse them even where your config.json allows them\n"
	  "  --secret NAME[:HOST[,HOST...]]  the proxy puts the value of NAME (your\n"
	  "                     variable, or your config.json's secret) into requests to\n"
	  "                     HOST over https; inside, NAME holds a placeholder\n"
	  "  --env K=V          set K in the command's environment\n"
	  "  --pass-env K       pass K from agenttask's environment\n"
	  "  --timeout SEC      kill everything after SEC seconds (exit 124)\n"
	  "  --memory SIZE      memory limit of the whole run, like 512M or 2G\n"
	  "                     (default: half of RAM)\n"
	  "  --pids N           at most N processes and threads (default: 4096)\n"
	  "  --cpus N           at most N CPUs' worth of time, like 2 or 0.5\n"
	  "  --cpu SEC          CPU seconds per process\n"
	  "  --file-size SIZE   largest file the command may write\n"
	  "  --no-limits        no default limits (those given still apply)\n"
	  "  --tmp-size SIZE    cap of /tmp, a tmpfs new on every run (default 512M)\n"
	  "  --shm-size SIZE    cap of /dev/shm (default 64M)\n"
	  "  --profile NAME     add the run configuration's profile NAME (see below)\n"
	  "  --no-config        read no run configuration file\n"
	  "  --cache DIR        show the host cache DIR (~/.npm, ~/.cache/pip, ...) warm:\n"
	  "                     read-only below, the task's writes kept in the task; one\n"
	  "                     under your home shows at the same place under HOME\n"
	  "  --fresh-home       HOME an empty tmpfs for this run, not the task's own\n"
	  "  --home-size SIZE   cap of that tmpfs HOME (default 256M); of the task's own\n"
	  "                     HOME (default none): it is measured after the run, and\n"
	  "                     the next run with a cap is refused while it is over\n"
	  "                     (each cap also at most a share of --memory)\n"
	  "  --cwd DIR          start in DIR, a directory of the worktree (relative to its top)\n"
	  "  --json             capture output; print a JSON result (stdout, stderr and both\n"
	  "                     interleaved; errors as {\"error\": {code, message}})\n"
	  "  --output-max SIZE  with --json: keep SIZE bytes of each stream, half from its\n"
	  "                     start and half from its end (default 1M)\n"
	  "  -t, --tty          run on a pty even when stdin is not a terminal\n"
	  "  -T, --no-tty       never a pty: a terminal is passed as it is\n"
	  "  -v, --verbose      say how each limit is enforced, and time each setup step\n"
	  "\n"
	  "Run configuration: ~/.config/agenttask/config.json (yours) and\n"
	  ".agenttask/run.json (the repository's, from the task's base commit), each\n"
	  "{\"run\": {...}, \"profiles\": {\"NAME\": {...}}} with keys ro, env, path, cache,\n"
	  "allow_hosts, forward, deny_private, limits, and allow_private (yours only);\n"
	  "'~/' is your home. Lowest first:\n"
	  "yours, your profile, the repository's, its profile, the options. The\n"
	  "repository's may ask for less than yours gives (its ro and cache within yours,\n"
	  "its hosts among yours, its forwards to host ports yours forwards, lower\n"
	  "limits), never more; deny_private anywhere holds.\n"
	  "HOME=" AT_RUN_HOME " is the task's own directory, kept from run to run (not in\n"
	  "the trash: it goes when the task goes); /tmp is new on every run.\n"
	  "The environment is cleared but for PATH, HOME, TERM, LANG, LC_* and TZ.\n"
	  "Exit status: the command's; 128+N when killed by signal N; 124 timeout; 125\n"
	  "the sandbox could not be set up; 126 cannot execute; 127 not found; 137 out of\n"
	  "memory (the kernel's OOM killer took a process of the run).\n" },
	{ "diff", cmd_diff,
	  "agenttask diff [NAME] [--stat | --name-only | --json [--patch]] [--color[=WHEN] | --no-color]\n"
	  "               [-- PATH...]\n"
	  "agenttask diff --base REV [--head REV] [--stat | --name-only | --json] [-- PATH...]",
	  "show the task's whole change against its base",
	  "  --stat         a summary per file, like git diff --stat\n"
	  "  --name-only    only the names of the changed files\n"
	  "  --json         print a JSON object: merge_base, tree, files, additions, deletions,\n"
	  "                 host_files\n"
	  "  -p, --patch    with --json: the patch text too (\"patch\"), as diff prints it\n"
	  "  --color[=WHEN] colour the output: auto (on a terminal; default), always, never\n"
	  "  --no-color     the same as --color=never\n"
	  "  --base REV     CI mode, without a task: the head's change against its merge\n"
	  "                 base with REV, what gate --base judges\n"
	  "  --head REV     with --base: the head revision (default HEAD)\n"
	  AT_CLI_MAX_FILE_SIZE_HELP
	  "\n"
	  "The change is everything accept would integrate: the task branch's commits\n"
	  "and the worktree's uncommitted and untracked (not ignored) files, against\n"
	  "the merge base of the task branch and its base branch. Paths are quoted as\n"
	  "git quotes them (see core.quotepath). The worktree is not changed.\n"
	  "\n"
	  "PATH... limits it to those files, as git's pathspec does: a file, a directory,\n"
	  "or a glob; relative to the current directory, ':/PATH' from the top. A rename\n"
	  "is shown whole when either of its paths matches. The JSON's tree stays the\n"
	  "whole state's: what accept --tree takes is never a part of it.\n"
	  "On a terminal the output goes through the pager (see 'agenttask help').\n"
	  "\n"
	  "Each changed file that tools on the host run or obey (editor and agent\n"
	  "configuration, .envrc, hooks, CI, .gitattributes, a package.json's scripts:\n"
	  "docs/ci.md) gets one warning line on stderr: the gate fails on it.\n" },
	{ "commit", cmd_commit, "agenttask commit [NAME] [-m MSG] [--max-file-size SIZE] [--json]",
	  "record every change in the worktree as one commit on the task branch",
	  "  -m, --message MSG   commit message\n"
	  "  --json              print {task, made, commit, branch, warnings}\n"
	  AT_CLI_MAX_FILE_SIZE_HELP },
	{ "gate", cmd_gate, "agenttask gate [NAME] [--json | --markdown] [--policy FILE]\n"
			    "agenttask gate --base REV --head REV [--json | --markdown] [--policy FILE]",
	  "check a task (or a branch, in CI) against the review policy",
	  "  --json         print {passed, merge_base, tree, policy, results: [{rule,\n"
	  "                 kind, passed, message, paths}], host_files} (policy null: no\n"
	  "                 policy), and network: [{check, network}] for checks\n"
	  "                 with allow_hosts\n"
	  "  --markdown     print a summary for a pull-request comment\n"
	  "  -q, --quiet    no progress of the checks on the terminal\n"
	  "  --color[=WHEN] colour the text report: auto (on a terminal; default), always,\n"
	  "                 never\n"
	  "  --no-color     the same as --color=never\n"
	  "  --policy FILE  judge by FILE instead of the base's .agenttask/policy.json\n"
	  "  --base REV     CI: judge the change from merge-base(REV, HEAD REV) to HEAD REV,\n"
	  "                 with the policy read from REV, in any checkout, without a task\n"
	  "  --head REV     with --base: the head to judge (default HEAD)\n"
	  AT_CLI_MAX_FILE_SIZE_HELP
	  "\nThe policy is read from the base: the tip of the task's base branch (the\n"
	  "task's base commit when it has none), so a task cannot loosen its own policy.\n"
	  "Checks run sandboxed, each in a fresh scratch worktree of the state judged; on\n"
	  "a terminal, the one running and its time so far are shown on stderr.\n"
	  "With or without a policy, the rule host_files fails on a change to a file\n"
	  "that tools on the host run or obey (editor and agent configuration, .envrc,\n"
	  "hooks, CI, .gitattributes, .gitmodules, .agenttask/, a package.json's\n"
	  "scripts: docs/ci.md), unless the policy says \"host_files\": \"allow\";\n"
	  "without a policy it is the only rule.\n"
	  "Exit 0 passed, 1 failed, 2 malformed policy.\n" },
	{ "accept", cmd_accept,
	  "agenttask accept [NAME] [--ff-only | --squash] [-m MSG] [--keep] [--force]\n"
	  "                        [--tree ID] [--override REASON] [--policy FILE] [--json]",
	  "merge the task into its base branch",
	  "  --ff-only          fast-forward only; refuse when the base has moved on\n"
	  "  --squash           one new commit on the base with the task's whole change\n"
	  "  -m, --message MSG  message of the merge or squash commit; a task that would\n"
	  "                     fast-forward gets a merge commit instead (not with --ff-only)\n"
	  "  --keep             keep the task (worktree and branch) after accepting it\n"
	  "  -q, --quiet        no progress of the gate's checks on the terminal\n"
	  "  --json             print what moved as JSON (docs/json.md)\n"
	  "  -f, --force        kill the task's running commands ('agenttask run') first\n"
	  "  --tree ID          refuse unless the task's full state is still tree ID (as reviewed)\n"
	  "  --override REASON  accept although the review gate fails; REASON is recorded in the\n"
	  "                     audit log and as an Agenttask-Override trailer of a merge commit\n"
	  "  --policy FILE      judge the task by FILE instead of the base's .agenttask/policy.json\n"
	  AT_CLI_MAX_FILE_SIZE_HELP
	  "\nPending changes are committed on the task branch first. When the base branch is\n"
	  "checked out, its files are updated too; uncommitted changes of yours in any file\n"
	  "the task changes make accept refuse, other changes of yours are left as they are.\n"
	  "Unless --keep, accept refuses while a command of the task runs (--force kills it).\n"
	  "The gate runs with or without a policy: a change to a file that tools on the host\n"
	  "run (see 'agenttask help gate') is refused unless you give --override REASON or\n"
	  "the policy allows it, and is named on stderr, one warning line per file.\n" },
	{ "discard", cmd_discard, "agenttask discard [NAME] [--force] [--quiet] [--max-file-size SIZE]\n"
	  "                         [--json]",
	  "throw a task away (saved in the trash first)",
	  "  -f, --force    kill the task's running commands ('agenttask run') first, and\n"
	  "                 when the worktree holds something agenttask will not record\n"
	  "                 (a name git refuses, an unreadable file, an embedded\n"
	  "                 repository, a file over the size limit), save the commits only\n"
	  "  -q, --quiet    no progress on the terminal\n"
	  "  --json         print {task, ref, commits_only, warnings}\n"
	  AT_CLI_MAX_FILE_SIZE_HELP
	  "\nThe task's full state (commits, uncommitted and untracked files, modes) is\n"
	  "saved under refs/agenttask/trash/NAME/ first; 'agenttask restore NAME' brings\n"
	  "it back until 'agenttask gc' prunes it (" AT_STR(AT_TRASH_DAYS_DEFAULT) " days by default). "
	  "Ignored files\n"
	  "(build output, node_modules/, .env) are not saved: they go with the worktree.\n"
	  "A task whose worktree was moved ('git worktree move') is refused.\n" },
	{ "restore", cmd_restore, "agenttask restore NAME [ENTRY] [--json]",
	  "bring a discarded task back (the most recently discarded NAME by default)",
	  "ENTRY is one of 'agenttask trash NAME': its number (1 the newest, 2 the one\n"
	  "before...), its time (SECONDS.NANOS) or its ref.\n"
	  "\n"
	  "The task comes back as it was discarded: its branch at the same commit, its\n"
	  "worktree with the same files, uncommitted changes still uncommitted (unstaged)\n"
	  "and untracked files still untracked. The trash entry is then deleted; other\n"
	  "entries of the same name stay in the trash.\n"
	  "Prints the worktree path. Exit 1 when a task NAME exists, 2 when there is no\n"
	  "trash for NAME ('agenttask gc --trash-days N' prunes old entries).\n" },
	{ "trash", cmd_trash, "agenttask trash [NAME] [--json]",
	  "list the discarded tasks that restore can bring back",
	  "  --json         print a JSON array: task, entry, ref, discarded, tip, base_branch\n"
	  "\nOne line an entry, newest first within each task: its name, its ENTRY number\n"
	  "for 'agenttask restore NAME ENTRY', when it was discarded, the tip of its\n"
	  "branch then, its base branch and its ref. 'agenttask gc' prunes entries older\n"
	  "than --trash-days.\n" },
	{ "repair", cmd_repair, "agenttask repair [NAME] [--force]",
	  "set a task's git inside the sandbox back to the host's",
	  "  -f, --force    kill the task's running commands ('agenttask run') first\n"
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
	  "Exit 1, nothing changed, while a command of the task runs (--force kills it).\n" },
	{ "log", cmd_log, "agenttask log [NAME] [--json] [--color[=WHEN] | --no-color]",
	  "show the task's audit log",
	  "  --json         print the log as a JSON array (one object per event)\n"
	  "  --color[=WHEN] colour the output: auto (on a terminal; default), always, never\n"
	  "  --no-color     the same as --color=never\n"
	  "\nEvery run is logged: argv, start, duration, exit status, resource use; and\n"
	  "every new, commit, gate, accept (and --override), discard, restore and repair.\n"
	  "The log outlives the task's removal. The text shows every control character\n"
	  "of what the task chose (argv, reasons), tab and newline too, as \\xNN; --json\n"
	  "has the exact strings.\n" },
	{ "gc", cmd_gc, "agenttask gc [--trash-days N] [--force] [--quiet] [--json]",
	  "remove what interrupted commands left behind",
	  "  --trash-days N   prune discarded tasks older than N days (default "
	  AT_STR(AT_TRASH_DAYS_DEFAULT) ")\n"
	  "  -q, --quiet      no progress on the terminal\n"
	  "  --json           print {actions: [{message, failed}], failures}\n"
	  "  -f, --force      kill the running commands of a task gc removes; without it\n"
	  "                   such a task is left alone, and gc says so\n"
	  "\nA failure with one thing is reported and gc goes on with the rest (exit 1).\n" },
	{ "doctor", cmd_doctor, "agenttask doctor [--json]",
	  "check what the sandbox needs from this machine",
	  "  --json         print {can_sandbox, checks: [{check, title, state, detail, fix}]}\n"
	  "\nEach check tries the real thing in a throw-away process: user namespaces (and\n"
	  "AppArmor's restriction of them), overlayfs in a user namespace, the cgroup a\n"
	  "run's limits would get, seccomp, openat2, the mount API and mount_setattr. Each\n"
	  "says ok, fallback (the sandbox works, weaker) or fail, and the fix. Exit 0 when\n"
	  "agenttask can sandbox here, even with fallbacks; 1 when it cannot.\n" },
	{ "mcp", cmd_mcp, "agenttask [-C DIR] mcp [--allow-accept] [--task NAME] [--allow-host HOST]...",
	  "serve the tasks to an agent over the Model Context Protocol (stdio)",
	  "  --allow-accept   also offer the accept and discard tools (by default a person\n"
	  "                   reviews and merges with the command line); accept still\n"
	  "                   refuses a change to a file the host runs, whatever the policy\n"
	  "  --task NAME      reach that task only (no task_new); by default the server\n"
	  "                   reaches only the tasks its own session makes\n"
	  "  --allow-host HOST  a host the run tool's allow_hosts may name (repeatable),\n"
	  "                   beside config.json's run.allow_hosts; any other is refused\n"
	  "\nJSON-RPC 2.0 on stdin and stdout, one message a line, protocol revision\n"
	  "2025-11-25. Tools: task_new, task_list, task_status, run, read_file,\n"
	  "write_file, edit_file, list_files, delete_file, diff, commit. The repository is\n"
	  "the one holding DIR (default the current directory). Started inside a task's\n"
	  "worktree, the server reaches that task only, as with --task; a tool's 'task'\n"
	  "defaults to it. task_new starts from a commit on your branches only (not a\n"
	  "task's). See docs/agents.md.\n" },
	{ "help", NULL, "agenttask help [--man] [COMMAND]",
	  "show a command's manual, or the overview of them all",
	  "  --man          print the manual page's source (roff) instead, for man -l -\n"
	  "\nThe text is the same as 'agenttask COMMAND --help' and the installed manual\n"
	  "page agenttask-COMMAND(1): all three are made from one table.\n" },
	{ NULL, NULL, NULL, NULL, NULL },
};

const char at_overview[] =
	"Run an AI agent's work in a task of its own: an ephemeral git worktree and\n"
	"branch, a sandbox bound to it, a review, then accept or discard.\n"
	"\n"
	"Where NAME is optional it defaults to the task whose worktree holds the\n"
	"current directory. A task NAME is the branch agenttask/NAME checked out in a\n"
	"linked worktree under <git-common-dir>/agenttask/worktrees/NAME.\n"
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
