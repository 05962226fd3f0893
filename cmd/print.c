/*
 * print.c - showing a conflict preview and a gate report: text for a
 * terminal, Markdown for a pull-request comment.
 */
#include "cmd/print.h"

#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "core/esc.h"

/* A failing check's output in the text and Markdown reports: its tail. */
#define TEXT_OUTPUT_LINES 20
#define MD_OUTPUT_BYTES 4000
/* Paths listed per rule before "and N more". */
#define MD_PATHS 10
#define TEXT_PATHS 20

/*
 * Paths, symlink targets, rule names and a check's output are the task's:
 * written raw, ESC ... could move the cursor and rewrite a FAIL line as
 * ok, set the window title or the clipboard. Their controls are shown as
 * \xNN (core/esc.h); a name or message also its tabs and newlines, which
 * could forge a line of the report.
 */
static void put_safe(const char *s, FILE *f)
{
	at_esc_fputs(f, s, 0);
}

static const char *rule_label(const struct at_rule_result *r)
{
	return r->is_check ? "check" : "rule";
}

/* The start of the last `lines` lines of s (a trailing newline does not count). */
static const char *tail_lines(const char *s, size_t lines)
{
	const char *p = s + strlen(s);

	if (p > s && p[-1] == '\n')
		p--;
	while (p > s) {
		if (p[-1] == '\n' && lines-- <= 1)
			break;
		p--;
	}
	return p;
}

static void print_output(const char *output, FILE *f)
{
	const char *p = tail_lines(output, TEXT_OUTPUT_LINES), *nl;

	if (p != output)
		fprintf(f, "        | ...\n");
	for (; *p; p = nl + 1) {
		nl = strchrnul(p, '\n');
		fputs("        | ", f);
		at_esc_write(f, p, (size_t)(nl - p), AT_ESC_TEXT);
		fputc('\n', f);
		if (!*nl)
			break;
	}
}

/* How many paths a rule lists: every file the host runs, each one to review. */
static size_t paths_shown(const struct at_rule_result *r, size_t most)
{
	return !r->is_check && strcmp(r->rule, "host_files") == 0 ? r->npaths : most;
}

static void print_paths(const struct at_rule_result *r, FILE *f)
{
	size_t i, most = paths_shown(r, TEXT_PATHS);

	for (i = 0; i < r->npaths && i < most; i++) {
		fputs("        ", f);
		put_safe(r->paths[i], f);
		fputc('\n', f);
	}
	if (r->npaths > most)
		fprintf(f, "        ... and %zu more\n", r->npaths - most);
}

void at_cli_print_gate_failures(const struct at_gate_report *rep, FILE *f)
{
	size_t i;

	for (i = 0; rep && i < rep->res.count; i++) {
		const struct at_rule_result *r = &rep->res.rules[i];

		if (r->passed)
			continue;
		fprintf(f, "  failed %s '", rule_label(r));
		put_safe(r->rule, f);
		fputs("': ", f);
		put_safe(r->message, f);
		fputc('\n', f);
		print_paths(r, f);
		if (r->output && *r->output)
			print_output(r->output, f);
	}
}

/* Colours: passed green, failed red, as a test runner's. */
void at_cli_print_gate(const struct at_gate_report *rep, FILE *f, bool color)
{
	const char *green = at_cli_c(color, AT_COLOR_GREEN), *red = at_cli_c(color, AT_COLOR_RED);
	const char *reset = at_cli_c(color, AT_COLOR_RESET);
	char base[AT_OID_HEXSZ + 1], tree[AT_OID_HEXSZ + 1];
	size_t i;

	at_oid_fmt(base, &rep->base);
	at_oid_fmt(tree, &rep->tree);
	fprintf(f, "gate %s%s%s\n", at_gate_report_passed(rep) ? green : red,
		at_gate_report_passed(rep) ? "passed" : "FAILED", reset);
	if (rep->has_policy)
		fprintf(f, "  policy  %s\n", rep->policy);
	else   /* the note is about the base, which may name a branch of the task's */
		at_esc_printf(f, "  policy  none (%s): only host_files is judged\n", rep->note);
	fprintf(f, "  base    %s\n  tree    %s\n\n", base, tree);
	for (i = 0; i < rep->res.count; i++) {
		const struct at_rule_result *r = &rep->res.rules[i];

		fprintf(f, "  %s%-4s%s  ", r->passed ? green : red, r->passed ? "ok" : "FAIL", reset);
		put_safe(r->rule, f);
		fprintf(f, "%*s", strlen(r->rule) < 20 ? (int)(21 - strlen(r->rule)) : 1, "");
		put_safe(r->message, f);
		fputc('\n', f);
		if (r->passed)
			continue;
		print_paths(r, f);
		if (r->output && *r->output)
			print_output(r->output, f);
	}
}

/* ---- Markdown ---- */

/*
 * Text inside a table cell, in <code> or not: HTML-escaped (GitHub decodes
 * entities in cells and in <code>, unlike in `backticks`), '|' as an entity
 * so it cannot end the cell, newlines as spaces.
 */
static void md_escape(const char *s, FILE *f)
{
	size_t n;
	bool control;

	for (; *s; s += n) {
		n = 1;
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '|': fputs("&#124;", f); break;
		case '`': fputs("&#96;", f); break;
		case '*': fputs("&#42;", f); break;
		case '_': fputs("&#95;", f); break;
		case '[': fputs("&#91;", f); break;
		case '\\': fputs("&#92;", f); break;
		case '\n':
		case '\r': fputc(' ', f); break;
		default:
			n = at_esc_unit(s, strnlen(s, 4), AT_ESC_TEXT, &control);
			at_esc_write(f, s, n, AT_ESC_TEXT);
		}
	}
}

static void md_code(const char *s, FILE *f)
{
	fputs("<code>", f);
	md_escape(s, f);
	fputs("</code>", f);
}

static void md_paths(const struct at_rule_result *r, FILE *f)
{
	size_t i;

	size_t most = paths_shown(r, MD_PATHS);

	for (i = 0; i < r->npaths && i < most; i++) {
		if (i)
			fputs(", ", f);
		md_code(r->paths[i], f);
	}
	if (r->npaths > most)
		fprintf(f, " and %zu more", r->npaths - most);
}

/* The longest run of backticks in s, so that a fence can be longer. */
static size_t longest_backticks(const char *s)
{
	size_t best = 0, run = 0;

	for (; *s; s++) {
		run = *s == '`' ? run + 1 : 0;
		if (run > best)
			best = run;
	}
	return best;
}

/* The last MD_OUTPUT_BYTES of output, cut at a character boundary. */
static const char *md_tail(const char *output)
{
	size_t len = strlen(output);
	const char *p;

	if (len <= MD_OUTPUT_BYTES)
		return output;
	p = output + len - MD_OUTPUT_BYTES;
	while (*p && ((unsigned char)*p & 0xC0) == 0x80)
		p++;
	return p;
}

static void md_details(const struct at_rule_result *r, FILE *f)
{
	const char *out = r->output && *r->output ? md_tail(r->output) : "(no output)\n";
	size_t fence = longest_backticks(out) + 1, i;

	fputs("<details><summary>❌ check ", f);
	md_code(r->rule, f);
	fputs(": ", f);
	md_escape(r->message, f);
	fputs("</summary>\n\n", f);
	if (out != r->output && r->output && *r->output)
		fprintf(f, "Last %d bytes of the output:\n\n", MD_OUTPUT_BYTES);
	for (i = 0; i < (fence < 3 ? 3 : fence); i++)
		fputc('`', f);
	fputs("text\n", f);
	at_esc_fputs(f, out, AT_ESC_TEXT);   /* a fenced block of lines */
	if (!*out || out[strlen(out) - 1] != '\n')
		fputc('\n', f);
	for (i = 0; i < (fence < 3 ? 3 : fence); i++)
		fputc('`', f);
	fputs("\n\n</details>\n\n", f);
}

void at_cli_print_gate_markdown(const struct at_gate_report *rep, FILE *f)
{
	char base[AT_OID_HEXSZ + 1], tree[AT_OID_HEXSZ + 1];
	bool passed = at_gate_report_passed(rep);
	size_t i;

	fprintf(f, "## %s agenttask gate %s\n\n", passed ? "✅" : "❌",
		passed ? "passed" : "failed");
	at_oid_fmt(base, &rep->base);
	at_oid_fmt(tree, &rep->tree);
	if (rep->has_policy) {
		fputs("Policy ", f);
		md_code(rep->policy, f);
	} else {
		fputs("No policy (", f);
		md_escape(rep->note, f);
		fputs("): only <code>host_files</code> is judged", f);
	}
	fprintf(f, " · base <code>%.12s</code> · tree <code>%.12s</code>\n\n", base, tree);
	fputs("| | Rule | Result | Paths |\n|---|---|---|---|\n", f);
	for (i = 0; i < rep->res.count; i++) {
		const struct at_rule_result *r = &rep->res.rules[i];

		fprintf(f, "| %s | ", r->passed ? "✅" : "❌");
		md_code(r->rule, f);
		fputs(r->is_check ? " (check) | " : " | ", f);
		md_escape(r->message, f);
		fputs(" | ", f);
		md_paths(r, f);
		fputs(" |\n", f);
	}
	fputc('\n', f);
	for (i = 0; i < rep->res.count; i++)
		if (!rep->res.rules[i].passed && rep->res.rules[i].is_check)
			md_details(&rep->res.rules[i], f);
}

/* ---- the conflict preview ---- */

void at_cli_print_preview(FILE *f, const struct at_task *t, const struct at_app_preview *p,
			  bool color)
{
	const char *base = at_branch_short(t->base_branch);
	size_t i;

	if (!p->ok) {
		at_esc_printf(f, "cannot preview: %s\n", p->err.msg);
		return;
	}
	if (!p->pv.has_base_branch) {
		fprintf(f, "no base branch to accept into (the task began on a detached HEAD)\n");
		return;
	}
	if (p->pv.base_moved)
		fprintf(f, "%s moved on by %zu commit%s since the task began; ", base,
			p->pv.base_ahead, p->pv.base_ahead == 1 ? "" : "s");
	else
		fprintf(f, "%s has not moved since the task began; ", base);
	if (p->pv.clean) {
		fprintf(f, "%smerges cleanly%s\n", at_cli_c(color, AT_COLOR_GREEN),
			at_cli_c(color, AT_COLOR_RESET));
		return;
	}
	/*
	 * The task's paths: their control characters shown, never sent to the
	 * terminal. The list in red too: the escaped names, then our reset.
	 */
	fprintf(f, "%swould conflict in: ", at_cli_c(color, AT_COLOR_RED));
	for (i = 0; i < p->pv.conflicts.n; i++) {
		fputs(i ? ", " : "", f);
		put_safe(p->pv.conflicts.v[i], f);
	}
	fputs(at_cli_c(color, AT_COLOR_RESET), f);
	fputc('\n', f);
}

/* ---- run --verbose ---- */

/* The proxy's start and stop, and each connection it saw. */
static void print_net(const struct at_app_net *n)
{
	struct at_app_net_report r;

	at_app_net_report(n, &r);
	if (!r.active)
		return;
	fprintf(stderr, "agenttask: proxy on 127.0.0.1:%d started in %.3f ms, stopped in %.3f ms\n",
		AT_APP_NET_PROXY_PORT, (double)r.start_us / 1000, (double)r.stop_us / 1000);
	for (size_t i = 0; i < r.nconns; i++) {
		const struct at_app_net_conn *c = &r.conns[i];
		/* The host is what the sandboxed program asked for: its controls shown. */
		char host[4 * sizeof(c->host) + 4];

		fprintf(stderr, "agenttask: net %s %s %s:%u%s%s%s%s up %llu down %llu bytes %lld ms"
			"%s%s\n", c->allowed ? "allowed" : "denied", c->proto,
			c->host[0] ? at_esc(host, sizeof(host), c->host) : "?", c->port, c->addr[0] ? " at " : "", c->addr,
			c->rule[0] ? " by " : "", c->rule, (unsigned long long)c->bytes_up,
			(unsigned long long)c->bytes_down, (long long)c->duration_ms,
			c->reason[0] ? ": " : "", c->reason);
	}
	for (size_t i = 0; i < r.nrequests; i++) {
		const struct at_app_net_request *q = &r.requests[i];
		/* The method and path are what the sandboxed program sent: escaped. */
		char method[4 * sizeof(q->method) + 4], path[4 * sizeof(q->path) + 4];

		fprintf(stderr, "agenttask: request %s %s %s: %d up %llu down %llu bytes %lld ms%s%s%s%s\n",
			at_esc(method, sizeof(method), q->method), q->host,
			at_esc(path, sizeof(path), q->path), q->status,
			(unsigned long long)q->bytes_up, (unsigned long long)q->bytes_down,
			(long long)q->duration_ms, q->secret[0] ? " with secret " : "", q->secret,
			q->refused[0] ? ": " : "", q->refused);
	}
	if (r.dropped)
		fprintf(stderr, "agenttask: net %llu more connections not recorded\n",
			(unsigned long long)r.dropped);
}

void at_cli_print_run_stop(const struct at_app_run_opts *o, const struct at_app_run_result *res)
{
	const uint64_t *l = res->limits.value;

	switch (res->run.stop) {
	case AT_STOP_TIMEOUT:
		fprintf(stderr, "agenttask: timed out after %.3fs: everything in the sandbox was "
			"killed\n", (double)o->timeout_ms / 1000);
		break;
	case AT_STOP_OOM:
		fprintf(stderr, "agenttask: out of memory: the run reached its memory limit (%llu MiB) "
			"and the kernel killed a process (exit 137)\n",
			(unsigned long long)(l[AT_LIMIT_MEMORY] >> 20));
		break;
	case AT_STOP_PIDS:
		fprintf(stderr, "agenttask: the run reached its pids limit (%llu): forks failed\n",
			(unsigned long long)l[AT_LIMIT_PIDS]);
		break;
	case AT_STOP_CPU:
		fprintf(stderr, "agenttask: a process used up its CPU time (--cpu %llu) and was "
			"killed\n", (unsigned long long)l[AT_LIMIT_CPU]);
		break;
	case AT_STOP_FSIZE:
		fprintf(stderr, "agenttask: a file reached the file-size limit (%llu bytes): the "
			"writer was killed\n", (unsigned long long)l[AT_LIMIT_FSIZE]);
		break;
	default:
		break;
	}
}

void at_cli_print_run_verbose(const struct at_app_run_opts *o, const struct at_app_run_result *res)
{
	const struct at_run_result *r = &res->run;
	const struct at_limits *l = &res->limits;
	int i;

	for (i = 0; i < AT_LIMIT_COUNT; i++) {
		const char *note = at_limit_mech_note((enum at_limit)i, r->mech[i]);

		if (!l->value[i])
			continue;
		fprintf(stderr, "agenttask: limit %s=%llu%s enforced by %s%s%s%s\n",
			at_limit_name((enum at_limit)i), (unsigned long long)l->value[i],
			(l->defaults >> i) & 1 ? " (default)" : "", at_limit_mech_name(r->mech[i]),
			note ? " (" : "", note ? note : "", note ? ")" : "");
	}
	if (r->limits_note[0])
		fprintf(stderr, "agenttask: no cgroup for the limits: %s\n", r->limits_note);
	if (o->timeout_ms)
		fprintf(stderr, "agenttask: timeout %.3fs enforced by the supervisor\n",
			(double)o->timeout_ms / 1000);
	fprintf(stderr, "agenttask: task resolved in %.3f ms (repository, task, config)\n",
		(double)res->resolve_us / 1000);
	if (r->prepare_us >= 0)
		fprintf(stderr, "agenttask: sandbox prepared in %.3f ms (mounts, seccomp)\n",
			(double)r->prepare_us / 1000);
	for (i = 0; i < AT_STEP_COUNT; i++) {
		if (r->step_us[i] >= 0)
			fprintf(stderr, "agenttask: step %-13s %8.3f ms after clone\n",
				at_run_step_name((enum at_run_step)i), (double)r->step_us[i] / 1000);
	}
	if (o->proxy)
		print_net(o->proxy);
	fprintf(stderr, "agenttask: ran %lld ms, exit %d, max rss %lld KiB, cpu %lld+%lld ms\n",
		(long long)r->duration_ms, r->exit_code, (long long)r->max_rss_kb,
		(long long)r->user_cpu_ms, (long long)r->sys_cpu_ms);
}
