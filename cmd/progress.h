/*
 * progress.h - the terminal's view of a long use case's progress hook
 * (core/progress.h): new's files checked out and copied (.worktreeinclude),
 * discard's and gc's steps, the gate's checks.
 */
#ifndef AT_CMD_PROGRESS_H
#define AT_CMD_PROGRESS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/progress.h"

struct at_cli_progress {
	bool on;                 /* stderr is a terminal and no --quiet */
	uint64_t start_ms, delay_ms, step_ms;
	char what[128];          /* the current step */
	size_t done, total;
	uint64_t bytes;          /* copied so far (a step that copies), or 0 */
	bool shown;              /* its line is on the screen */
	int len;                 /* the length of that line */
	pthread_mutex_t lock;    /* the ticker thread draws too */
	pthread_cond_t wake;
	pthread_t ticker;
	bool ticking, stop;
};

/* Ready to show progress on stderr, unless quiet or stderr is no terminal. */
void at_cli_progress_init(struct at_cli_progress *p, bool quiet);

/* The hook to put in a use case's options: a NULL fn when nothing is shown. */
struct at_progress_hook at_cli_progress_hook(struct at_cli_progress *p);

/* The work is over (ok: it succeeded): finish the line, stop the ticker. */
void at_cli_progress_end(struct at_cli_progress *p, bool ok);

/* "512 bytes", "3.50 KiB", "1.25 GiB", as git shows sizes. */
void at_cli_human_bytes(char *buf, size_t size, uint64_t n);

#endif
