/*
 * schemas.h - each tool's description and its input and output schemas
 * (JSON Schema, as JSON text: parsed once when the server starts, checked
 * by the tests against what the tools give).
 */
#ifndef AT_MCP_SCHEMAS_H
#define AT_MCP_SCHEMAS_H

#define S_STR "{\"type\":\"string\"}"
#define S_INT "{\"type\":\"integer\",\"minimum\":0}"
#define S_BOOL "{\"type\":\"boolean\"}"
#define S_STRS "{\"type\":\"array\",\"items\":{\"type\":\"string\"}}"

#define P_TASK "\"task\":{\"type\":\"string\",\"description\":\"the task's name: one this " \
	"server made with task_new (default: the one task the server serves, when it serves one)\"}"
#define P_PATH "\"path\":{\"type\":\"string\",\"description\":\"a path in the task's " \
	"worktree, relative to its top\"}"

#define OBJ(props, required) \
	"{\"type\":\"object\",\"properties\":{" props "},\"required\":[" required "]}"

/* ---- inputs ---- */

#define AT_MCP_IN_NONE OBJ("", "")
#define AT_MCP_IN_TASK OBJ(P_TASK, "")
#define AT_MCP_IN_TASK_REQUIRED OBJ(P_TASK, "\"task\"")
#define AT_MCP_IN_TASK_NEW \
	OBJ(P_TASK ",\"base\":{\"type\":\"string\",\"description\":\"the revision it starts " \
	    "from (default HEAD): a commit on the person's branches, not a task's\"}", "\"task\"")
#define AT_MCP_IN_RUN \
	OBJ(P_TASK ",\"command\":{\"type\":\"string\",\"description\":\"a shell command line, " \
	    "run by /bin/sh -c\"},\"argv\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}," \
	    "\"description\":\"the command as words, instead of command\"}," \
	    "\"timeout\":{\"type\":\"integer\",\"minimum\":0,\"description\":\"seconds; then " \
	    "everything is killed (exit 124)\"},\"allow_hosts\":{\"type\":\"array\",\"items\":" \
	    "{\"type\":\"string\"},\"description\":\"hosts the command may reach through a " \
	    "proxy: only hosts the person allows, named exactly as the person did (host, " \
	    "host:port, *.domain); any other is refused\"},\"cwd\":{\"type\":\"string\",\"description\":" \
	    "\"the directory it starts in, relative to the worktree's top\"},\"env\":{\"type\":" \
	    "\"object\",\"additionalProperties\":{\"type\":\"string\"},\"description\":" \
	    "\"variables set in its environment\"},\"output_max\":{\"type\":\"integer\"," \
	    "\"minimum\":1,\"description\":\"bytes kept of each stream (half head, half " \
	    "tail; default 1 MiB)\"}", "")
#define AT_MCP_IN_READ \
	OBJ(P_TASK "," P_PATH ",\"offset\":{\"type\":\"integer\",\"minimum\":0,\"description\":" \
	    "\"the first line to give, from 1\"},\"limit\":{\"type\":\"integer\",\"minimum\":0," \
	    "\"description\":\"lines to give at most (default 2000)\"}", "\"path\"")
#define AT_MCP_IN_WRITE \
	OBJ(P_TASK "," P_PATH ",\"content\":{\"type\":\"string\",\"description\":\"the whole " \
	    "new text\"},\"content_base64\":{\"type\":\"string\",\"description\":\"the bytes, " \
	    "base64, for content that is not text\"}", "\"path\"")
#define AT_MCP_IN_EDIT \
	OBJ(P_TASK "," P_PATH ",\"old_string\":{\"type\":\"string\",\"description\":\"the exact " \
	    "text to replace; it must occur once\"},\"new_string\":{\"type\":\"string\"}", \
	    "\"path\",\"old_string\",\"new_string\"")
#define AT_MCP_IN_LIST \
	OBJ(P_TASK ",\"path\":{\"type\":\"string\",\"description\":\"a directory to list " \
	    "(default: the whole worktree)\"}", "")
#define AT_MCP_IN_PATH OBJ(P_TASK "," P_PATH, "\"path\"")
#define AT_MCP_IN_COMMIT \
	OBJ(P_TASK ",\"message\":{\"type\":\"string\",\"description\":\"the commit message\"}", "")
#define AT_MCP_IN_ACCEPT \
	OBJ(P_TASK ",\"message\":" S_STR ",\"expect_tree\":{\"type\":\"string\",\"description\":" \
	    "\"refuse unless the task's full state is still this tree (from diff)\"}", "\"task\"")

#define AT_MCP_IN_REWIND \
	OBJ(P_TASK ",\"to\":{\"type\":\"integer\",\"minimum\":1,\"description\":\"the run " \
	    "(its number, from checkpoints or run) to go back to just before\"}", "\"to\"")

/* ---- outputs ---- */

#define AT_MCP_OUT_TASK \
	OBJ("\"name\":" S_STR ",\"phase\":" S_STR ",\"branch\":" S_STR ",\"base_branch\":" S_STR \
	    ",\"base_commit\":" S_STR ",\"head_commit\":" S_STR ",\"path\":" S_STR ",\"created\":" \
	    S_STR ",\"dirty\":" S_BOOL ",\"commits_ahead\":" S_INT ",\"setup\":{\"type\":" \
	    "\"object\",\"description\":\"the run configuration's setup, run by task_new (absent " \
	    "when it has none): state done or failed, steps, done, command, exit_code, timed_out\"}", \
	    "\"name\",\"branch\",\"base_commit\",\"path\",\"dirty\"")
#define AT_MCP_OUT_TASK_LIST \
	OBJ("\"tasks\":{\"type\":\"array\",\"items\":" AT_MCP_OUT_TASK "}", "\"tasks\"")
#define AT_MCP_OUT_RUN \
	OBJ("\"task\":" S_STR ",\"exit_code\":{\"type\":\"integer\"},\"reason\":{\"enum\":" \
	    "[\"exit\",\"signal\",\"timeout\",\"oom\",\"pids\",\"cpu\",\"file-size\"]}," \
	    "\"signal\":" S_INT ",\"duration_ms\":" S_INT ",\"max_rss_kb\":{\"type\":\"integer\"}," \
	    "\"user_cpu_ms\":{\"type\":\"integer\"},\"sys_cpu_ms\":{\"type\":\"integer\"}," \
	    "\"stdout\":" S_STR ",\"stderr\":" S_STR ",\"output\":" S_STR ",\"stdout_base64\":" \
	    S_STR ",\"stderr_base64\":" S_STR ",\"output_base64\":" S_STR ",\"stdout_truncated\":" \
	    S_BOOL ",\"stderr_truncated\":" S_BOOL ",\"output_truncated\":" S_BOOL \
	    ",\"stdout_dropped\":" S_INT ",\"stderr_dropped\":" S_INT ",\"output_dropped\":" S_INT \
	    ",\"number\":{\"type\":[\"integer\",\"null\"],\"description\":\"the run's number " \
	    "(rewind: its checkpoint), null when none could be kept\"},\"files\":{\"type\":" \
	    "\"array\",\"items\":{\"type\":\"object\"},\"description\":\"what it changed\"}", \
	    "\"task\",\"exit_code\",\"reason\",\"stdout\",\"stderr\",\"output\"," \
	    "\"stdout_truncated\",\"stderr_truncated\",\"output_truncated\"")
#define AT_MCP_OUT_READ \
	OBJ("\"task\":" S_STR ",\"path\":" S_STR ",\"content\":" S_STR ",\"content_base64\":" \
	    S_STR ",\"first_line\":" S_INT ",\"lines\":" S_INT ",\"total_lines\":" S_INT \
	    ",\"size\":" S_INT ",\"truncated\":" S_BOOL, \
	    "\"task\",\"path\",\"content\",\"first_line\",\"lines\",\"total_lines\",\"size\"," \
	    "\"truncated\"")
#define AT_MCP_OUT_CHANGE \
	OBJ("\"task\":" S_STR ",\"path\":" S_STR ",\"bytes\":" S_INT ",\"existed\":" S_BOOL \
	    ",\"warning\":" S_STR, "\"task\",\"path\",\"bytes\"")
#define AT_MCP_OUT_LIST \
	OBJ("\"task\":" S_STR ",\"files\":" S_STRS ",\"truncated\":" S_BOOL, \
	    "\"task\",\"files\",\"truncated\"")
#define AT_MCP_OUT_DIFF \
	OBJ("\"task\":" S_STR ",\"merge_base\":" S_STR ",\"tree\":" S_STR ",\"files\":{\"type\":" \
	    "\"array\",\"items\":{\"type\":\"object\"}},\"additions\":" S_INT ",\"deletions\":" \
	    S_INT ",\"patch\":" S_STR ",\"stat\":" S_STR ",\"host_files\":" S_STRS, \
	    "\"task\",\"merge_base\",\"tree\",\"files\",\"patch\",\"stat\",\"host_files\"")
#define AT_MCP_OUT_COMMIT \
	OBJ("\"task\":" S_STR ",\"made\":" S_BOOL ",\"commit\":" S_STR ",\"branch\":" S_STR, \
	    "\"task\",\"made\",\"commit\",\"branch\"")
#define AT_MCP_OUT_ACCEPT \
	OBJ("\"task\":" S_STR ",\"result\":" S_STR ",\"base_branch\":" S_STR ",\"new_tip\":" S_STR \
	    ",\"removed\":" S_BOOL ",\"host_files\":" S_STRS, \
	    "\"task\",\"result\",\"base_branch\",\"new_tip\"")
#define AT_MCP_OUT_CHECKPOINTS \
	OBJ("\"task\":" S_STR ",\"checkpoints\":{\"type\":\"array\",\"items\":{\"type\":" \
	    "\"object\"}},\"runs\":{\"type\":\"array\",\"items\":{\"type\":\"object\"}}," \
	    "\"warnings\":" S_STRS, "\"task\",\"checkpoints\",\"runs\"")
#define AT_MCP_OUT_REWIND \
	OBJ("\"task\":" S_STR ",\"to\":" S_INT ",\"saved\":" S_INT ",\"head\":" S_STR \
	    ",\"paths\":" S_INT ",\"warnings\":" S_STRS, "\"task\",\"to\",\"saved\",\"head\"")
#define AT_MCP_OUT_DISCARD OBJ("\"task\":" S_STR ",\"ref\":" S_STR, "\"task\",\"ref\"")

/* ---- descriptions ---- */

#define AT_MCP_DOC_TASK_NEW \
	"Create a task: a git worktree of its own on branch agenttask/NAME, from the " \
	"repository's HEAD (or base), with the person's setup commands run in it (setup " \
	"says how they went; a failed setup keeps the task). One task per change."
#define AT_MCP_DOC_TASK_LIST "List the repository's tasks with their state."
#define AT_MCP_DOC_TASK_STATUS \
	"One task's state: its branch, its commits, whether its worktree has changes, and " \
	"whether it still merges into its base."
#define AT_MCP_DOC_RUN \
	"Run a command in the task's sandbox, in its worktree: a shell command line " \
	"(command) or words (argv). No network but the hosts in allow_hosts. Gives the " \
	"exit code, why it ended (reason), stdout, stderr and both interleaved (output), " \
	"keeping the head and the tail of long output. Build and test through this."
#define AT_MCP_DOC_CHECKPOINTS \
	"The task's checkpoints: its full state kept before each run (number = the run's), " \
	"and for each run the files it changed (additions, deletions)."
#define AT_MCP_DOC_REWIND \
	"Put the task's worktree and git (branch, HEAD, index) back to how they were just " \
	"before run `to`, whatever wrote them (shell commands too). The state replaced is " \
	"kept as a checkpoint (saved): rewind to it undoes this. Ignored files and HOME are " \
	"not rewound. Refused while a command of the task runs."
#define AT_MCP_DOC_READ \
	"Read a file of the task's worktree: lines from offset (from 1), at most limit of them."
#define AT_MCP_DOC_WRITE \
	"Write a whole file of the task's worktree (made, with its directories, when missing)."
#define AT_MCP_DOC_EDIT \
	"Replace old_string by new_string in a file of the task's worktree. old_string must " \
	"occur exactly once: give enough of the text around it to make it unique."
#define AT_MCP_DOC_LIST \
	"List the files of the task's worktree (below path), as git would record them: " \
	"what .gitignore ignores is left out."
#define AT_MCP_DOC_DELETE "Delete a file of the task's worktree."
#define AT_MCP_OUT_REVIEW_COMMENTS \
	OBJ("\"task\":" S_STR ",\"open\":" S_INT ",\"comments\":{\"type\":\"array\",\"items\":" \
	    "{\"type\":\"object\",\"properties\":{\"id\":" S_INT ",\"text\":" S_STR ",\"outdated\":" \
	    S_BOOL "},\"required\":[\"id\",\"path\",\"line\",\"end_line\",\"outdated\",\"made_on\"," \
	    "\"text\",\"author\",\"time\",\"resolved\"]}}", "\"task\",\"open\",\"comments\"")
#define AT_MCP_DOC_REVIEW_COMMENTS \
	"The person's open review comments on the task: each on a line of a file (path, line, " \
	"end_line, carried to the task's current state; outdated when that line changed or " \
	"went since) or on the whole change (path null). Address them, then tell the person; " \
	"only the person resolves a comment. Inside the sandbox the same list is the file " \
	"named by $AGENTTASK_COMMENTS."
#define AT_MCP_DOC_DIFF \
	"The task's whole change against its base, committed or not: the patch, the stat " \
	"and the files changed."
#define AT_MCP_DOC_COMMIT "Commit everything the task's worktree holds to its branch."
#define AT_MCP_DOC_ACCEPT \
	"Merge the task into its base branch and remove it (the review gate applies). A change " \
	"to a file that tools on the host run (editor, agent or CI configuration, hooks, " \
	".envrc, package.json scripts, ...) is refused: the person accepts it on the command line."
#define AT_MCP_DOC_DISCARD "Discard the task (it is kept in the trash: agenttask restore)."

#endif
