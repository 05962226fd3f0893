#include "core/vault.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

void at_vault_wipe(void *p, size_t len)
{
	if (p && len)
		explicit_bzero(p, len);
}

int at_vault_open(struct at_vault *v, size_t size, struct at_error *err)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *m;

	v->mem = NULL;
	v->used = 0;
	v->size = (size + page - 1) / page * page;
	if (!v->size || v->size > AT_VAULT_MAX)
		return at_error_set(err, AT_EUSAGE, "secret values too large (%zu bytes; at most %zu)",
				    size, AT_VAULT_MAX);
	m = mmap(NULL, v->size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return at_error_sys(err, AT_ESYS, "cannot map memory for secrets");
	/* The one property secrets cannot go without: the sandbox's init is a clone. */
	if (madvise(m, v->size, MADV_WIPEONFORK) < 0) {
		int e = errno;
		munmap(m, v->size);
		errno = e;
		return at_error_sys(err, AT_ESYS, "cannot keep secrets from child processes "
				    "(MADV_WIPEONFORK, Linux 4.14)");
	}
	(void)madvise(m, v->size, MADV_DONTDUMP);
	(void)mlock(m, v->size);  /* RLIMIT_MEMLOCK may refuse: best effort */
	v->mem = m;
	return 0;
}

const char *at_vault_put(struct at_vault *v, const void *bytes, size_t len)
{
	char *at;

	if (!v->mem || len + 1 > v->size - v->used)
		return NULL;
	at = v->mem + v->used;
	memcpy(at, bytes, len);
	at[len] = '\0';
	v->used += len + 1;
	return at;
}

void at_vault_close(struct at_vault *v)
{
	if (!v || !v->mem)
		return;
	at_vault_wipe(v->mem, v->size);
	munlock(v->mem, v->size);
	munmap(v->mem, v->size);
	v->mem = NULL;
	v->size = v->used = 0;
}
