/*
 * server.c - the transport (one JSON-RPC message a line on the descriptors),
 * the reader thread, the lifecycle and the dispatch of requests.
 */
#include "mcp/mcp.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app/net.h"
#include "core/array.h"
#include "core/util.h"
#include "mcp/internal.h"

/* JSON-RPC's error codes. */
enum {
	RPC_PARSE = -32700,
	RPC_INVALID_REQUEST = -32600,
	RPC_NO_METHOD = -32601,
	RPC_INVALID_PARAMS = -32602,
	RPC_INTERNAL = -32603,
};

/* Protocol revisions a client may ask for; the first is ours. */
static const char *const versions[] = { AT_MCP_PROTOCOL, "2025-06-18", "2025-03-26",
					"2024-11-05" };

static const char instructions[] =
	"agenttask gives you a task: a git worktree of its own on a branch agenttask/NAME, "
	"and a sandbox bound to it. Work like this:\n"
	"- One task per change: task_new with a short name, then pass that name as 'task' to "
	"every other tool.\n"
	"- Read and change files with read_file, write_file, edit_file (an exact, unique "
	"search and replace), list_files and delete_file. Paths are relative to the task's "
	"worktree; nothing outside it, and nothing in .git, can be reached.\n"
	"- Build and test through run: it runs the command in the task's sandbox (no network "
	"unless allow_hosts names hosts the person allows; any other is refused), and gives "
	"the exit code, the reason the run ended, and the output (its head and tail when "
	"long).\n"
	"- Check your change with diff, and record it with commit.\n"
	"- The person's review comments on lines of your change are in review_comments: "
	"address the open ones (only the person resolves them).\n"
	"A person reviews the task with the agenttask command line and merges or discards it; "
	"you cannot accept or discard it yourself unless the server was started with "
	"--allow-accept.";

/* A message read, waiting for the main thread. */
struct item {
	at_json *msg;             /* NULL: the line was no JSON (err says why) */
	int code;                 /* RPC_PARSE or RPC_INVALID_REQUEST when msg is NULL */
	char err[AT_ERROR_MSG_MAX + 32];
};

struct server {
	const struct at_mcp_opts *o;
	at_json *parsed[64];      /* per tool: its input schema, its output schema */
	struct at_mcp_session session;   /* the main thread's alone */

	pthread_mutex_t lock;     /* everything below */
	pthread_cond_t cond;
	struct item *q;
	size_t qhead, qn, qcap;
	bool eof;
	char active[128];         /* the id (compact JSON) of the call running, or "" */
	at_json *token;           /* its progressToken, or NULL */
	uint64_t ticks;
	int cancel[2];            /* written when the active call is cancelled */

	pthread_mutex_t out;      /* one message at a time on out_fd */
	bool out_gone;
};

/* ---- output ---- */

/* A write to a reader that left must not kill the server: SIGPIPE held and taken back. */
static int write_all(int fd, const char *s, size_t n)
{
	sigset_t set, old;
	struct timespec zero = { 0, 0 };
	int rc;

	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	rc = at_write_all(fd, s, n);
	if (rc < 0 && errno == EPIPE)
		while (sigtimedwait(&set, NULL, &zero) == SIGPIPE)
			;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

/* Send msg (freed) as one line. */
static void send_msg(struct server *s, at_json *msg)
{
	char *text = msg ? at_json_print(msg, false) : NULL;

	at_json_free(msg);
	pthread_mutex_lock(&s->out);
	if (!text || write_all(s->o->out_fd, text, strlen(text)) < 0 ||
	    write_all(s->o->out_fd, "\n", 1) < 0)
		s->out_gone = true;
	pthread_mutex_unlock(&s->out);
	free(text);
}

static at_json *envelope(const at_json *id)
{
	at_json *m = at_json_object();

	if (at_json_add_string(m, "jsonrpc", "2.0") < 0 ||
	    (id ? at_json_add(m, "id", at_json_dup(id)) : at_json_add_null(m, "id")) < 0) {
		at_json_free(m);
		return NULL;
	}
	return m;
}

static void send_error(struct server *s, const at_json *id, int code, const char *message);

static void send_result(struct server *s, const at_json *id, at_json *result)
{
	at_json *m = result ? envelope(id) : NULL;

	if (m && at_json_add(m, "result", result) == 0) {
		send_msg(s, m);
		return;
	}
	if (!m)
		at_json_free(result);
	at_json_free(m);
	/* Every request is answered, out of memory too. */
	send_error(s, id, RPC_INTERNAL, "out of memory");
}

static void send_error(struct server *s, const at_json *id, int code, const char *message)
{
	at_json *m = envelope(id), *e = at_json_object();

	if (at_json_add_number(e, "code", code) < 0 || at_json_add_string(e, "message", message) < 0 ||
	    !m) {
		at_json_free(e);
		at_json_free(m);
		return;
	}
	if (at_json_add(m, "error", e) == 0)
		send_msg(s, m);
	else
		at_json_free(m);
}

/* ---- the reader thread ---- */

/* Make the cancel pipe readable (a full pipe is readable already). */
static void poke(int fd, char c)
{
	ssize_t n = write(fd, &c, 1);

	(void)n;
}

/* Whether the line holds the escape of U+0000, which the parser would cut a string at. */
static bool has_nul_escape(const char *s, size_t n)
{
	size_t i, back;

	for (i = 0; i + 6 <= n; i++) {
		if (s[i] != '\\' || (s[i + 1] != 'u' && s[i + 1] != 'U') || memcmp(s + i + 2, "0000", 4))
			continue;
		for (back = 0; back < i && s[i - 1 - back] == '\\'; back++)
			;
		if (back % 2 == 0)   /* the backslash is not itself escaped */
			return true;
	}
	return false;
}

static void push(struct server *s, struct item it)
{
	pthread_mutex_lock(&s->lock);
	if (AT_ARRAY_GROW(s->q, s->qcap, s->qhead + s->qn + 1) < 0) {
		at_json_free(it.msg);
	} else {
		s->q[s->qhead + s->qn++] = it;
	}
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
}

/* Whether msg is the request with this id (compact JSON). */
static bool has_id(const at_json *msg, const char *id)
{
	char *mine = msg ? at_json_print(at_json_get(msg, "id"), false) : NULL;
	bool same = mine && strcmp(mine, id) == 0;

	free(mine);
	return same;
}

/*
 * A cancellation is acted on here, at once: the active call's run is killed;
 * a request still queued is dropped unanswered (as the protocol asks). All
 * else is queued.
 */
static bool cancels(struct server *s, const at_json *msg)
{
	const char *method = at_json_get_string(msg, "method");
	at_json *params = at_json_get(msg, "params");
	char *id;
	size_t i;

	if (!method || strcmp(method, "notifications/cancelled") != 0)
		return false;
	id = at_json_print(at_json_get(params, "requestId"), false);
	pthread_mutex_lock(&s->lock);
	if (id && s->active[0] && strcmp(id, s->active) == 0)
		poke(s->cancel[1], 'c');
	for (i = 0; id && i < s->qn; i++) {
		struct item *it = &s->q[s->qhead + i];

		if (has_id(it->msg, id)) {
			at_json_free(it->msg);
			it->msg = NULL;
			it->code = 0;   /* skipped */
		}
	}
	pthread_mutex_unlock(&s->lock);
	free(id);
	return true;   /* a cancellation is never answered */
}

static void take_line(struct server *s, char *line, size_t n)
{
	struct item it = { NULL, 0, "" };
	struct at_error err = AT_ERROR_INIT;

	while (n > 0 && (line[n - 1] == '\r' || line[n - 1] == ' ' || line[n - 1] == '\t'))
		line[--n] = '\0';
	if (n == 0)
		return;
	if (memchr(line, '\0', n)) {
		it.code = RPC_PARSE;
		snprintf(it.err, sizeof(it.err), "parse error: a NUL byte in the message");
	} else if (at_json_parse(&it.msg, line, "the message", &err) < 0) {
		it.code = RPC_PARSE;
		snprintf(it.err, sizeof(it.err), "parse error: %s", err.msg);
	} else if (has_nul_escape(line, n)) {
		at_json_free(it.msg);
		it.msg = NULL;
		it.code = RPC_INVALID_PARAMS;
		snprintf(it.err, sizeof(it.err), "a string holds \\u0000: send bytes that are not "
			 "text as content_base64");
	} else if (cancels(s, it.msg)) {
		at_json_free(it.msg);
		return;
	}
	push(s, it);
}

/* Every second of a call that asked for progress: a notification. */
static void tick(struct server *s)
{
	at_json *m = NULL, *p = NULL;
	char msg[64];

	pthread_mutex_lock(&s->lock);
	if (s->active[0] && s->token) {
		s->ticks++;
		m = at_json_object();
		p = at_json_object();
		snprintf(msg, sizeof(msg), "running, %llus", (unsigned long long)s->ticks);
		if (at_json_add(p, "progressToken", at_json_dup(s->token)) < 0 ||
		    at_json_add_number(p, "progress", (double)s->ticks) < 0 ||
		    at_json_add_string(p, "message", msg) < 0) {
			at_json_free(p);
			p = NULL;
		}
	}
	pthread_mutex_unlock(&s->lock);
	if (!m)
		return;
	if (p && at_json_add_string(m, "jsonrpc", "2.0") == 0 &&
	    at_json_add_string(m, "method", "notifications/progress") == 0 &&
	    at_json_add(m, "params", p) == 0)
		send_msg(s, m);
	else
		at_json_free(m);
}

struct linebuf {
	char *v;
	size_t n, cap;
	bool skipping;            /* over AT_MCP_LINE_MAX: the rest of this line is dropped */
};

static void feed(struct server *s, struct linebuf *b, const char *chunk, size_t n)
{
	const char *nl;

	while (n > 0) {
		size_t part = (nl = memchr(chunk, '\n', n)) ? (size_t)(nl - chunk) : n;

		if (!b->skipping && b->n + part > AT_MCP_LINE_MAX) {
			struct item it = { NULL, RPC_INVALID_REQUEST, "" };

			snprintf(it.err, sizeof(it.err), "message longer than %zu bytes: refused",
				 AT_MCP_LINE_MAX);
			push(s, it);
			b->skipping = true;
			b->n = 0;
		}
		if (!b->skipping) {
			if (AT_ARRAY_GROW(b->v, b->cap, b->n + part + 1) < 0) {
				b->skipping = true;   /* no memory for it: refused as too long */
				b->n = 0;
			} else {
				memcpy(b->v + b->n, chunk, part);
				b->n += part;
			}
		}
		if (!nl)
			return;
		if (!b->skipping) {
			b->v[b->n] = '\0';
			take_line(s, b->v, b->n);
		}
		b->n = 0;
		b->skipping = false;
		chunk = nl + 1;
		n -= part + 1;
	}
}

static void *reader(void *arg)
{
	struct server *s = arg;
	struct linebuf b = { NULL, 0, 0, false };
	char chunk[65536];
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);   /* signals are the main thread's */
	for (;;) {
		struct pollfd p = { .fd = s->o->in_fd, .events = POLLIN };
		int rc = poll(&p, 1, 1000);
		ssize_t n;

		if (rc == 0) {
			tick(s);
			continue;
		}
		if (rc < 0 && errno == EINTR)
			continue;
		n = rc < 0 ? -1 : read(s->o->in_fd, chunk, sizeof(chunk));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			break;
		feed(s, &b, chunk, (size_t)n);
	}
	if (b.n && !b.skipping) {   /* a last message without its newline */
		b.v[b.n] = '\0';
		take_line(s, b.v, b.n);
	}
	free(b.v);
	/* The client is gone: whatever runs for it is killed, and the server ends. */
	pthread_mutex_lock(&s->lock);
	s->eof = true;
	if (s->active[0])
		poke(s->cancel[1], 'e');
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

/* The next message, or false at the end of the input. */
static bool next_item(struct server *s, struct item *out)
{
	bool got = false;

	pthread_mutex_lock(&s->lock);
	while (!s->qn && !s->eof)
		pthread_cond_wait(&s->cond, &s->lock);
	if (s->qn) {
		*out = s->q[s->qhead++];
		s->qn--;
		got = true;
		if (!s->qn)
			s->qhead = 0;
	}
	pthread_mutex_unlock(&s->lock);
	return got;
}

/* ---- the lifecycle and the methods ---- */

static at_json *initialize(struct server *s, const at_json *params)
{
	const char *asked = at_json_get_string(params, "protocolVersion");
	const char *v = versions[0];
	at_json *r = at_json_object(), *caps = at_json_object(), *tools = at_json_object(),
		*info = at_json_object();
	size_t i;
	int bad = !r || !caps || !tools || !info;

	/* Negotiation: the client's revision when we speak it, else ours (it may then leave). */
	for (i = 0; asked && i < sizeof(versions) / sizeof(versions[0]); i++)
		if (strcmp(asked, versions[i]) == 0)
			v = versions[i];
	bad |= at_json_add_bool(tools, "listChanged", false);
	bad |= at_json_add(caps, "tools", tools);
	bad |= at_json_add_string(info, "name", "agenttask");
	bad |= at_json_add_string(info, "title", "agenttask: sandboxed tasks in git worktrees");
	bad |= at_json_add_string(info, "version", s->o->version ? s->o->version : "0");
	bad |= at_json_add_string(r, "protocolVersion", v);
	bad |= at_json_add(r, "capabilities", caps);
	bad |= at_json_add(r, "serverInfo", info);
	bad |= at_json_add_string(r, "instructions", instructions);
	if (bad) {
		at_json_free(r);
		return NULL;
	}
	return r;
}

static bool offered(const struct server *s, const struct at_mcp_tool *t)
{
	return !t->accepting || s->o->allow_accept;
}

static at_json *tools_list(struct server *s)
{
	at_json *r = at_json_object(), *arr = at_json_array();
	size_t i;
	int bad = !r || !arr;

	for (i = 0; !bad && at_mcp_tools[i].name; i++) {
		const struct at_mcp_tool *t = &at_mcp_tools[i];
		at_json *o;

		if (!offered(s, t))
			continue;
		o = at_json_object();
		bad |= at_json_add_string(o, "name", t->name);
		bad |= at_json_add_string(o, "title", t->title);
		bad |= at_json_add_string(o, "description", t->description);
		bad |= at_json_add(o, "inputSchema", at_json_dup(s->parsed[2 * i]));
		bad |= at_json_add(o, "outputSchema", at_json_dup(s->parsed[2 * i + 1]));
		bad |= at_json_append(arr, o);
	}
	bad |= at_json_add(r, "tools", arr);
	if (bad) {
		at_json_free(r);
		return NULL;
	}
	return r;
}

/*
 * The result of tools/call: the structured content, and its text for older
 * clients. A failure's JSON ({"error": ...}, or a run's result with its
 * error) is text only: structuredContent must match the output schema.
 */
static at_json *call_result(at_json *structured, bool is_error)
{
	at_json *r = at_json_object(), *content = at_json_array(), *text = at_json_object();
	char *printed = structured ? at_json_print(structured, false) : NULL;
	int bad = !r || !content || !text || !printed;

	bad |= at_json_add_string(text, "type", "text");
	bad |= at_json_add_string(text, "text", printed);
	bad |= at_json_append(content, text);
	bad |= at_json_add(r, "content", content);
	if (is_error)
		at_json_free(structured);
	else
		bad |= at_json_add(r, "structuredContent", structured);
	bad |= at_json_add_bool(r, "isError", is_error);
	free(printed);
	if (bad) {
		at_json_free(r);
		return NULL;
	}
	return r;
}

/* Mark the call active (cancellable, with progress) for the reader thread. */
static void activate(struct server *s, const at_json *id, const at_json *params)
{
	at_json *meta = at_json_get(params, "_meta");
	char *text = at_json_print(id, false);
	char c;

	pthread_mutex_lock(&s->lock);
	while (read(s->cancel[0], &c, 1) == 1)   /* a stale cancellation is not this call's */
		;
	snprintf(s->active, sizeof(s->active), "%s", text && strlen(text) < sizeof(s->active)
							? text : "");
	s->token = at_json_dup(at_json_get(meta, "progressToken"));
	s->ticks = 0;
	/* The client left while the call was queued: it is cancelled before it starts. */
	if (s->eof)
		poke(s->cancel[1], 'e');
	pthread_mutex_unlock(&s->lock);
	free(text);
}

static void deactivate(struct server *s)
{
	pthread_mutex_lock(&s->lock);
	s->active[0] = '\0';
	at_json_free(s->token);
	s->token = NULL;
	pthread_mutex_unlock(&s->lock);
}

static const struct at_mcp_tool *find_tool(const struct server *s, const char *name, size_t *index)
{
	size_t i;

	for (i = 0; name && at_mcp_tools[i].name; i++)
		if (strcmp(at_mcp_tools[i].name, name) == 0 && offered(s, &at_mcp_tools[i])) {
			*index = i;
			return &at_mcp_tools[i];
		}
	return NULL;
}

static void tools_call(struct server *s, const at_json *id, const at_json *params)
{
	const char *name = at_json_get_string(params, "name");
	const at_json *args = at_json_get(params, "arguments");
	struct at_error err = AT_ERROR_INIT;
	struct at_mcp_call c = { s->o->app, s->o->allow_accept, s->cancel[0], { NULL, NULL },
				 &s->session, s->o->allow_hosts, s->o->nallow_hosts };
	const struct at_mcp_tool *t;
	at_json *out = NULL, *empty = NULL;
	size_t i = 0;
	int rc;

	if (!(t = find_tool(s, name, &i))) {
		char msg[160];

		snprintf(msg, sizeof(msg), "unknown tool '%.100s'", name ? name : "");
		send_error(s, id, RPC_INVALID_PARAMS, msg);
		return;
	}
	if (!args)
		args = empty = at_json_object();
	rc = at_mcp_check_args(s->parsed[2 * i], args, &err);
	if (rc == 0) {
		activate(s, id, params);
		rc = t->fn(&c, args, &out, &err);
		deactivate(s);
	}
	at_json_free(empty);
	if (rc < 0 && !out)
		out = at_mcp_error_result(&err);
	send_result(s, id, call_result(out, rc < 0));
}

static void request(struct server *s, const char *method, const at_json *id,
		    const at_json *params)
{
	if (strcmp(method, "initialize") == 0) {
		send_result(s, id, initialize(s, params));
	} else if (strcmp(method, "ping") == 0) {
		send_result(s, id, at_json_object());
	} else if (strcmp(method, "tools/list") == 0) {
		send_result(s, id, tools_list(s));
	} else if (strcmp(method, "tools/call") == 0) {
		if (!at_json_is_object(params))
			send_error(s, id, RPC_INVALID_PARAMS, "tools/call needs params {name, arguments}");
		else
			tools_call(s, id, params);
	} else {
		send_error(s, id, RPC_NO_METHOD, "method not found");
	}
}

static void handle(struct server *s, const struct item *it)
{
	const at_json *m = it->msg, *id;
	const char *method;

	if (!m) {
		if (it->code)   /* 0: a request cancelled while queued */
			send_error(s, NULL, it->code, it->err);
		return;
	}
	id = at_json_get(m, "id");
	/* An id must be a string or a number; null or anything else is no request. */
	if (id && !at_json_is_string(id) && !at_json_is_number(id))
		id = NULL;
	method = at_json_get_string(m, "method");
	if (!at_json_is_object(m) || !at_json_get_string(m, "jsonrpc") ||
	    strcmp(at_json_get_string(m, "jsonrpc"), "2.0") != 0 || !method) {
		/* A response from the client (we send no requests) is dropped. */
		if (at_json_is_object(m) && (at_json_get(m, "result") || at_json_get(m, "error")))
			return;
		send_error(s, id, RPC_INVALID_REQUEST, at_json_is_array(m)
				  ? "invalid request: batches are not part of the protocol"
				  : "invalid request: not a JSON-RPC 2.0 request");
		return;
	}
	if (id)
		request(s, method, id, at_json_get(m, "params"));
	/* Notifications (initialized, cancelled of a call already over) need no answer. */
}

/* ---- the server ---- */

static int parse_schemas(struct server *s, struct at_error *err)
{
	size_t i;

	for (i = 0; at_mcp_tools[i].name; i++) {
		if (2 * i + 1 >= sizeof(s->parsed) / sizeof(s->parsed[0]))
			return at_error_set(err, AT_ESYS, "too many tools");
		if (at_json_parse(&s->parsed[2 * i], at_mcp_tools[i].input_schema,
				  at_mcp_tools[i].name, err) < 0 ||
		    at_json_parse(&s->parsed[2 * i + 1], at_mcp_tools[i].output_schema,
				  at_mcp_tools[i].name, err) < 0)
			return err->code;
	}
	return 0;
}

/* --allow-host: each a pattern --allow-host takes, or the server does not start. */
static int check_hosts(const struct at_mcp_opts *o, struct at_error *err)
{
	struct at_app_net *n = NULL;
	size_t i;
	int rc = at_app_net_new(&n, err);

	for (i = 0; rc == 0 && i < o->nallow_hosts; i++)
		rc = at_app_net_allow(n, o->allow_hosts[i], err);
	at_app_net_free(n);
	return rc;
}

static void server_release(struct server *s)
{
	size_t i;

	for (i = 0; i < sizeof(s->parsed) / sizeof(s->parsed[0]); i++)
		at_json_free(s->parsed[i]);
	for (i = 0; i < s->qn; i++)
		at_json_free(s->q[s->qhead + i].msg);
	free(s->q);
	at_json_free(s->token);
	at_mcp_session_release(&s->session);
	if (s->cancel[0] >= 0)
		close(s->cancel[0]);
	if (s->cancel[1] >= 0)
		close(s->cancel[1]);
	pthread_mutex_destroy(&s->lock);
	pthread_mutex_destroy(&s->out);
	pthread_cond_destroy(&s->cond);
}

int at_mcp_serve(const struct at_mcp_opts *o, struct at_error *err)
{
	struct server s;
	struct item it;
	pthread_t th;
	int rc;

	memset(&s, 0, sizeof(s));
	s.o = o;
	s.cancel[0] = s.cancel[1] = -1;
	pthread_mutex_init(&s.lock, NULL);
	pthread_mutex_init(&s.out, NULL);
	pthread_cond_init(&s.cond, NULL);
	rc = parse_schemas(&s, err);
	if (rc == 0)
		rc = check_hosts(o, err);
	if (rc == 0)
		rc = at_mcp_session_init(&s.session, o->app, o->task, err);
	if (rc == 0 && pipe2(s.cancel, O_CLOEXEC | O_NONBLOCK) < 0)
		rc = at_error_sys(err, AT_ESYS, "cannot make a pipe");
	if (rc == 0 && (errno = pthread_create(&th, NULL, reader, &s)) != 0)
		rc = at_error_sys(err, AT_ESYS, "cannot start the reader thread");
	if (rc < 0) {
		server_release(&s);
		return rc;
	}
	while (next_item(&s, &it)) {
		handle(&s, &it);
		at_json_free(it.msg);
	}
	pthread_join(th, NULL);
	if (s.out_gone)
		rc = at_error_set(err, AT_ESYS, "the client stopped reading");
	server_release(&s);
	return rc;
}
