/*
 * mcp.h - agenttask as a Model Context Protocol server: the second front end.
 *
 * JSON-RPC 2.0 over a pair of descriptors, one message a line (the stdio
 * transport), the protocol's lifecycle with version negotiation (revision
 * 2025-11-25, and the older ones a client may ask for), and tools with an
 * input and an output schema whose results carry structuredContent. Each
 * tool calls one use case of app/, as the CLI does; nothing here prints
 * anywhere but out_fd, and nothing picks an exit status.
 *
 * Messages are read by a thread of their own, so that during a long call
 * a notifications/cancelled for it, or the end of the input (the client
 * gone), kills what the call runs at once (the run's cancel descriptor),
 * and progress notifications go out every second to a caller that asked
 * for them. Calls are handled one at a time, in order.
 *
 * Bounds: a message longer than AT_MCP_LINE_MAX is refused unread (the
 * rest of its line skipped); file contents follow app/files.h's bounds.
 *
 * Nothing the client sends widens what it may do (the client is an agent,
 * steered by whatever it read): a server reaches the tasks its own session
 * made, or the one task the person named (opts.task), never the person's
 * others; a run reaches the hosts the person allows and no other; a new
 * task starts from a commit on the person's branches (mcp/session.c).
 */
#ifndef AT_MCP_MCP_H
#define AT_MCP_MCP_H

#include <stdbool.h>

#include "app/app.h"
#include "core/error.h"

#define AT_MCP_LINE_MAX ((size_t)32 << 20)
#define AT_MCP_PROTOCOL "2025-11-25"

struct at_mcp_opts {
	const struct at_app *app;
	int in_fd, out_fd;
	bool allow_accept;        /* offer accept and discard: off unless asked for */
	const char *version;      /* agenttask's, for serverInfo */
	const char *task;         /* --task NAME: the one task the server reaches; NULL: the
				     tasks its session makes (or the task whose worktree holds
				     app->dir, which is then the one) */
	char *const *allow_hosts; /* --allow-host: hosts a run may ask for (allow_hosts), beside
				     config.json's run.allow_hosts; compared exactly */
	size_t nallow_hosts;
};

/*
 * Serve until the input ends. 0 then; < 0 with err set when the server
 * itself could not work (no thread, no memory, output gone).
 */
int at_mcp_serve(const struct at_mcp_opts *o, struct at_error *err);

#endif
