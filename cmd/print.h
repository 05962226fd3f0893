/*
 * print.h - how the CLI shows results several commands print: the conflict
 * preview (status, diff) and the gate report (gate, accept); and run's
 * --verbose report. Text for a
 * terminal and Markdown for a pull-request comment; JSON is app/json.h's,
 * the same for every front end.
 */
#ifndef AT_CMD_PRINT_H
#define AT_CMD_PRINT_H

#include <stdbool.h>
#include <stdio.h>

#include "app/gate.h"
#include "app/run.h"
#include "app/task.h"

/* "main moved on by 2 commits since the task began; merges cleanly", and a newline. */
void at_cli_print_preview(FILE *f, const struct at_task *t, const struct at_app_preview *p,
			  bool color);

/* The whole report, as text; coloured (passed green, failed red) when color. */
void at_cli_print_gate(const struct at_gate_report *rep, FILE *f, bool color);

/* One line per failed rule (with its paths, and a failing check's output). */
void at_cli_print_gate_failures(const struct at_gate_report *rep, FILE *f);

/* The report as a pull-request comment. */
void at_cli_print_gate_markdown(const struct at_gate_report *rep, FILE *f);

/* One line on why the run was stopped, when a limit or the timeout stopped it. */
void at_cli_print_run_stop(const struct at_app_run_opts *o, const struct at_app_run_result *res);

/* run --verbose: how each limit is enforced, and the time of each setup step. */
void at_cli_print_run_verbose(const struct at_app_run_opts *o,
			      const struct at_app_run_result *res);

#endif
