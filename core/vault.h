/*
 * vault.h - memory for secret values: never inherited, never dumped.
 *
 * A secret's value (issue: secrets at the proxy, docs/security.md) lives in
 * the agenttask process alone, for the proxy to put into requests. The
 * sandbox's init is a clone of that process: without care it would carry a
 * copy of every byte agenttask holds. A vault is anonymous memory marked
 * MADV_WIPEONFORK (a child made by fork or clone without CLONE_VM sees it
 * zeroed) and MADV_DONTDUMP (not in a core file), locked in memory where
 * the limit allows (never swapped out), and wiped before it is unmapped.
 *
 * at_vault_put copies bytes in and returns where they are, NUL-terminated;
 * at_vault_wipe_str clears a string that held a value elsewhere (the
 * caller's environment, a read buffer) so that no copy is left behind.
 * Not thread-safe while being filled; read-only afterwards.
 */
#ifndef AT_CORE_VAULT_H
#define AT_CORE_VAULT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"

#define AT_VAULT_MAX ((size_t)1 << 20)  /* all of a run's secret values together */

struct at_vault {
	char *mem;
	size_t size, used;
};

#define AT_VAULT_INIT { NULL, 0, 0 }

/* Map size bytes (rounded to pages). AT_ESYS when the kernel cannot wipe on fork. */
int at_vault_open(struct at_vault *v, size_t size, struct at_error *err);

/* Copy len bytes in; NULL when the vault is full. */
const char *at_vault_put(struct at_vault *v, const void *bytes, size_t len);

/* Wipe and unmap; NULL-safe, idempotent. */
void at_vault_close(struct at_vault *v);

/* Zero len bytes where the compiler cannot drop it. */
void at_vault_wipe(void *p, size_t len);

#endif
