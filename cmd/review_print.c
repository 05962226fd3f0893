/*
 * review_print.c - showing a gate report: text for a terminal, JSON for
 * programs, Markdown for a pull-request comment.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/review.h"
#include "cmd/review_report.h"
#include "core/esc.h"
#include "core/json.h"

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

static void print_paths(const struct at_rule_result *r, FILE *f)
{
	size_t i;

	for (i = 0; i < r->npaths && i < TEXT_PATHS; i++) {
		fputs("        ", f);
		put_safe(r->paths[i], f);
		fputc('\n', f);
	}
	if (r->npaths > TEXT_PATHS)
		fprintf(f, "        ... and %zu more\n", r->npaths - TEXT_PATHS);
}

void at_gate_report_print_failures(const struct at_gate_report *rep, FILE *f)
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
void at_gate_report_print(const struct at_gate_report *rep, FILE *f, bool color)
{
	const char *green = at_cli_c(color, AT_COLOR_GREEN), *red = at_cli_c(color, AT_COLOR_RED);
	const char *reset = at_cli_c(color, AT_COLOR_RESET);
	size_t i;

	if (!rep->has_policy) {
		fprintf(f, "gate %spassed%s: nothing to judge (%s)\n", green, reset, rep->note);
		return;
	}
	fprintf(f, "gate %s%s%s\n", at_gate_report_passed(rep) ? green : red,
		at_gate_report_passed(rep) ? "passed" : "FAILED", reset);
	fprintf(f, "  policy  %s\n  base    %s\n  tree    %s\n\n", rep->policy, rep->base,
		rep->tree);
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

/* ---- JSON ---- */

static at_json *rule_json(const struct at_rule_result *r)
{
	at_json *o = at_json_object(), *paths = at_json_array();
	int bad = 0;
	size_t i;

	for (i = 0; paths && i < r->npaths; i++)
		bad |= at_json_append(paths, at_json_string(r->paths[i]));
	bad |= at_json_add_string(o, "rule", r->rule);
	bad |= at_json_add_bool(o, "passed", r->passed);
	bad |= at_json_add_string(o, "message", r->message);
	bad |= at_json_add(o, "paths", paths);
	if (r->is_check) {
		bad |= at_json_add_bool(o, "check", true);
		bad |= at_json_add_string(o, "output", r->output ? r->output : "");
	}
	if (bad) {
		at_json_free(o);
		return NULL;
	}
	return o;
}

at_json *at_gate_report_json(const struct at_gate_report *rep)
{
	at_json *o = at_json_object(), *results = at_json_array();
	int bad = 0;
	size_t i;

	for (i = 0; results && i < rep->res.count; i++)
		bad |= at_json_append(results, rule_json(&rep->res.rules[i]));
	bad |= at_json_add_bool(o, "passed", at_gate_report_passed(rep));
	bad |= at_json_add_string(o, "base", rep->base);
	bad |= at_json_add_string(o, "tree", rep->tree);
	if (rep->has_policy)
		bad |= at_json_add_string(o, "policy", rep->policy);
	else
		bad |= at_json_add_null(o, "policy");
	if (rep->policy_commit[0])
		bad |= at_json_add_string(o, "policy_commit", rep->policy_commit);
	if (rep->note[0])
		bad |= at_json_add_string(o, "note", rep->note);
	bad |= at_json_add(o, "results", results);
	if (bad) {
		at_json_free(o);
		return NULL;
	}
	return o;
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

	for (i = 0; i < r->npaths && i < MD_PATHS; i++) {
		if (i)
			fputs(", ", f);
		md_code(r->paths[i], f);
	}
	if (r->npaths > MD_PATHS)
		fprintf(f, " and %zu more", r->npaths - MD_PATHS);
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

void at_gate_report_print_markdown(const struct at_gate_report *rep, FILE *f)
{
	bool passed = at_gate_report_passed(rep);
	size_t i;

	fprintf(f, "## %s agenttask gate %s\n\n", passed ? "✅" : "❌",
		passed ? "passed" : "failed");
	if (!rep->has_policy) {
		fputs("Nothing was judged: ", f);
		md_escape(rep->note, f);
		fputs(".\n", f);
		return;
	}
	fputs("Policy ", f);
	md_code(rep->policy, f);
	fprintf(f, " · base <code>%.12s</code> · tree <code>%.12s</code>\n\n", rep->base,
		rep->tree);
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
