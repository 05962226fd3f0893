/*
 * spec.c - building a struct at_sandbox_spec: each function appends one
 * operation, copying what it is given. Out of memory marks the spec
 * failed, and at_sandbox_run refuses a failed spec, so a caller may add
 * many operations and check once.
 */
#include "sandbox/sandbox.h"

#include <stdlib.h>
#include <string.h>

#include "core/array.h"

void at_sandbox_spec_init(struct at_sandbox_spec *s)
{
	memset(s, 0, sizeof(*s));
	s->proc.cancel_fd = -1;
}

void at_sandbox_spec_release(struct at_sandbox_spec *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nmounts; i++) {
		free(s->mounts[i].src);
		free(s->mounts[i].dest);
		free(s->mounts[i].data);
		free(s->mounts[i].upper);
		free(s->mounts[i].work);
	}
	free(s->mounts);
	at_strlist_release(&s->protect);
	at_strlist_release(&s->except);
	at_strlist_release(&s->argv);
	at_strlist_release(&s->envp);
	free(s->cwd);
	at_sandbox_spec_init(s);
}

static int fail(struct at_sandbox_spec *s)
{
	s->failed = true;
	return -1;
}

/* A copy of len bytes of data, NUL-terminated (data NULL: an empty string). */
static char *copy_data(const char *data, size_t len)
{
	char *p = malloc(len + 1);

	if (p) {
		if (len)
			memcpy(p, data, len);
		p[len] = '\0';
	}
	return p;
}

static struct at_sandbox_mount *add(struct at_sandbox_spec *s, enum at_mount_kind kind,
				    const char *dest, unsigned int flags)
{
	struct at_sandbox_mount *m;

	if (s->failed || AT_ARRAY_GROW(s->mounts, s->cap, s->nmounts + 1) < 0) {
		fail(s);
		return NULL;
	}
	m = &s->mounts[s->nmounts];
	memset(m, 0, sizeof(*m));
	m->kind = kind;
	m->flags = flags;
	m->fd = -1;
	if (!(m->dest = strdup(dest))) {
		fail(s);
		return NULL;
	}
	s->nmounts++;
	return m;
}

int at_sandbox_bind(struct at_sandbox_spec *s, const char *src, const char *dest,
		    unsigned int flags)
{
	struct at_sandbox_mount *m = add(s, AT_MOUNT_BIND, dest, flags);

	return m && (m->src = strdup(src)) ? 0 : fail(s);
}

int at_sandbox_tmpfs(struct at_sandbox_spec *s, const char *dest, uint64_t size, unsigned int mode)
{
	struct at_sandbox_mount *m = add(s, AT_MOUNT_TMPFS, dest, 0);

	if (!m)
		return -1;
	m->size = size;
	m->mode = mode;
	return 0;
}

static int add_data(struct at_sandbox_spec *s, enum at_mount_kind kind, const char *dest,
		    const char *data, size_t len)
{
	struct at_sandbox_mount *m = add(s, kind, dest, 0);

	if (!m)
		return -1;
	m->len = len;
	return (m->data = copy_data(data, len)) ? 0 : fail(s);
}

int at_sandbox_file(struct at_sandbox_spec *s, const char *dest, const char *data, size_t len)
{
	return add_data(s, AT_MOUNT_FILE, dest, data, len);
}

int at_sandbox_bind_data(struct at_sandbox_spec *s, const char *dest, const char *data,
			 size_t len)
{
	return add_data(s, AT_MOUNT_BIND_DATA, dest, data, len);
}

static int add_fd(struct at_sandbox_spec *s, enum at_mount_kind kind, const char *dest, int fd)
{
	struct at_sandbox_mount *m = add(s, kind, dest, 0);

	if (!m)
		return -1;
	m->fd = fd;
	return 0;
}

int at_sandbox_file_fd(struct at_sandbox_spec *s, const char *dest, int fd)
{
	return add_fd(s, AT_MOUNT_FILE, dest, fd);
}

int at_sandbox_bind_data_fd(struct at_sandbox_spec *s, const char *dest, int fd)
{
	return add_fd(s, AT_MOUNT_BIND_DATA, dest, fd);
}

int at_sandbox_symlink(struct at_sandbox_spec *s, const char *text, const char *dest)
{
	return add_data(s, AT_MOUNT_SYMLINK, dest, text, strlen(text));
}

int at_sandbox_dir(struct at_sandbox_spec *s, const char *dest, unsigned int mode)
{
	struct at_sandbox_mount *m = add(s, AT_MOUNT_DIR, dest, 0);

	if (!m)
		return -1;
	m->mode = mode;
	return 0;
}

int at_sandbox_proc(struct at_sandbox_spec *s, const char *dest)
{
	return add(s, AT_MOUNT_PROC, dest, 0) ? 0 : -1;
}

int at_sandbox_devpts(struct at_sandbox_spec *s, const char *dest)
{
	return add(s, AT_MOUNT_DEVPTS, dest, 0) ? 0 : -1;
}

int at_sandbox_remount_ro(struct at_sandbox_spec *s, const char *dest)
{
	return add(s, AT_MOUNT_REMOUNT_RO, dest, 0) ? 0 : -1;
}

int at_sandbox_cgroup(struct at_sandbox_spec *s, const char *dest)
{
	return add(s, AT_MOUNT_CGROUP, dest, 0) ? 0 : -1;
}

int at_sandbox_protect(struct at_sandbox_spec *s, const char *path)
{
	return at_strlist_push(&s->protect, path) < 0 ? fail(s) : 0;
}

int at_sandbox_except(struct at_sandbox_spec *s, const char *path)
{
	return at_strlist_push(&s->except, path) < 0 ? fail(s) : 0;
}

int at_sandbox_overlay(struct at_sandbox_spec *s, const char *lower, const char *upper,
		       const char *work, const char *dest)
{
	struct at_sandbox_mount *m = add(s, AT_MOUNT_OVERLAY, dest, 0);

	if (!m)
		return -1;
	m->src = strdup(lower);
	m->upper = strdup(upper);
	m->work = strdup(work);
	return m->src && m->upper && m->work ? 0 : fail(s);
}
