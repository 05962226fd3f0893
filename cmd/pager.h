/*
 * pager.h - the pager of diff and log, and whether output is a terminal.
 */
#ifndef AT_CMD_PAGER_H
#define AT_CMD_PAGER_H

#include <stdbool.h>

/* No pager for this process (the global --no-pager). */
void at_cli_pager_disable(void);

/*
 * Start the pager when stdout is a terminal and it is not disabled: the
 * command of GIT_PAGER, else core_pager (the repository's core.pager, NULL
 * when unset), else PAGER, else less; none for "" or "cat". stdout, and
 * stderr when it is a terminal, then go to it until exit. Starting it is
 * best effort: when it cannot start, output stays where it was.
 */
void at_cli_pager_start(const char *core_pager);

/* Output goes to a terminal: stdout is one, or the pager started here is. */
bool at_cli_stdout_tty(void);

#endif
