/*
 * plan.c - a spec checked against the sandbox's invariants (sandbox.h) and
 * turned into the child's plan: operations on paths relative to the new
 * root, every string the child needs prepared here, since the child may
 * not allocate or format.
 */
#include "sandbox/internal.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/array.h"
#include "core/util.h"

/* Where BIND_DATA's files are written in the root before they are bound. */
#define STAGE_DIR "run/agenttask"

struct plan {
	struct at_sb_op *ops;
	size_t n, cap;
	bool oom;
};

static struct at_sb_op *plan_add(struct plan *p, enum at_sb_op_kind kind, const char *target,
				 unsigned int flags)
{
	struct at_sb_op *op;

	if (AT_ARRAY_GROW(p->ops, p->cap, p->n + 1) < 0) {
		p->oom = true;
		return NULL;
	}
	op = &p->ops[p->n];
	memset(op, 0, sizeof(*op));
	op->kind = kind;
	op->flags = flags;
	op->src_fd = -1;
	op->upper_fd = -1;
	op->work_fd = -1;
	op->data_fd = -1;
	op->target = strdup(target[0] == '/' ? target + 1 : target);
	if (!op->target) {
		p->oom = true;
		return NULL;
	}
	p->n++;
	return op;
}

static void plan_strdup(struct plan *p, const char **dst, const char *s)
{
	if (s && !(*dst = strdup(s)))
		p->oom = true;
}

static void plan_printf(struct plan *p, const char **dst, const char *fmt,
			unsigned long long v)
{
	char *s = NULL;

	if (asprintf(&s, fmt, v) < 0)
		p->oom = true;
	else
		*dst = s;
}

void at_sb_plan_free(struct at_sb_op *ops, size_t nops)
{
	size_t i;

	for (i = 0; i < nops; i++) {
		free((char *)ops[i].target);
		free((char *)ops[i].source);
		free((char *)ops[i].arg);
		free((char *)ops[i].mode);
		if (ops[i].src_fd >= 0)
			close(ops[i].src_fd);
		if (ops[i].upper_fd >= 0)
			close(ops[i].upper_fd);
		if (ops[i].work_fd >= 0)
			close(ops[i].work_fd);
	}
	free(ops);
}

/* ---- the invariants ---- */

/* The deepest rule at or above path: 1 protected, -1 excepted, 0 none. */
static int protection(const struct at_sandbox_spec *s, const char *path)
{
	size_t best = 0, i;
	int verdict = 0;

	for (i = 0; i < s->protect.n; i++)
		if (at_sandbox_path_within(path, s->protect.v[i]) &&
		    strlen(s->protect.v[i]) + 1 > best) {
			best = strlen(s->protect.v[i]) + 1;
			verdict = 1;
		}
	for (i = 0; i < s->except.n; i++)
		if (at_sandbox_path_within(path, s->except.v[i]) &&
		    strlen(s->except.v[i]) + 1 > best) {
			best = strlen(s->except.v[i]) + 1;
			verdict = -1;
		}
	return verdict;
}

/*
 * The child of dir on the way to path (below it) into buf: "/a/b" and
 * "/a/b/c/d" give "/a/b/c". The only directory a writable bind of dir may
 * hold a protected path below: nothing between them can be renamed while a
 * read-only mount sits on that child.
 */
static int child_towards(const char *path, const char *dir, char *buf, size_t size)
{
	size_t n = strcmp(dir, "/") == 0 ? 0 : strlen(dir);
	const char *end = strchr(path + n + 1, '/');
	size_t len = end ? (size_t)(end - path) : strlen(path);

	if (len >= size)
		return -1;
	memcpy(buf, path, len);
	buf[len] = '\0';
	return 0;
}

/* Does an operation after `after` put a read-only mount (or a tmpfs) exactly at dest? */
static bool covered_later(const struct at_sandbox_spec *s, size_t after, const char *dest)
{
	size_t i;

	for (i = after + 1; i < s->nmounts; i++) {
		const struct at_sandbox_mount *m = &s->mounts[i];

		if (strcmp(m->dest, dest) != 0)
			continue;
		if ((m->kind == AT_MOUNT_BIND && (m->flags & AT_MOUNT_RO)) ||
		    m->kind == AT_MOUNT_BIND_DATA || m->kind == AT_MOUNT_TMPFS)
			return true;
	}
	return false;
}

/* A writable bind of host path m->src (the i-th operation) must not reach a protected path. */
static int check_writable(const struct at_sandbox_spec *s, size_t i, struct at_error *err)
{
	const struct at_sandbox_mount *m = &s->mounts[i];
	char child[PATH_MAX], shown[PATH_MAX];
	size_t k, n = strcmp(m->src, "/") == 0 ? 0 : strlen(m->src);

	if (protection(s, m->src) > 0)
		return at_error_set(err, AT_ESANDBOX, "'%s' is protected: refusing to bind it "
				    "read-write", m->src);
	for (k = 0; k < s->protect.n; k++) {
		const char *p = s->protect.v[k];

		if (strcmp(p, m->src) == 0 || !at_sandbox_path_within(p, m->src))
			continue;
		/* A read-only mount later, on the child of the source on the way to it. */
		if (child_towards(p, m->src, child, sizeof(child)) == 0 &&
		    at_fmt(shown, sizeof(shown), "%s%s", strcmp(m->dest, "/") ? m->dest : "",
			   child + n) == 0 &&
		    covered_later(s, i, shown))
			continue;
		return at_error_set(err, AT_ESANDBOX, "'%s' holds the protected '%s': refusing to "
				    "bind it read-write", m->src, p);
	}
	return 0;
}

static int check_path(const char *path, const char *what, struct at_error *err)
{
	if (!path || !at_sandbox_path_normal(path))
		return at_error_set(err, AT_ESANDBOX, "%s is not a normalised absolute path '%s'",
				    what, path ? path : "(null)");
	return 0;
}

/* A host source: its type for the mount point, and never a symbolic link. */
static int check_source(const struct at_sandbox_mount *m, unsigned int *flags, bool *skip,
			struct at_error *err)
{
	struct stat st;

	*skip = false;
	if (lstat(m->src, &st) < 0) {
		/* Absent: skipped when optional, else the child's open reports it. */
		*skip = (m->flags & AT_MOUNT_OPTIONAL) && errno == ENOENT;
		return 0;
	}
	if (S_ISLNK(st.st_mode))
		return at_error_set(err, AT_ESANDBOX,
				    "'%s' is a symbolic link: refusing to mount over it", m->src);
	if (!S_ISDIR(st.st_mode))
		*flags |= OPF_ISFILE;
	return 0;
}

/* ---- turning operations into the plan ---- */

static int plan_bind(struct plan *p, const struct at_sandbox_spec *s, size_t i,
		     struct at_error *err)
{
	const struct at_sandbox_mount *m = &s->mounts[i];
	unsigned int flags = 0;
	struct at_sb_op *op;
	bool skip = false;
	int rc;

	if ((rc = check_path(m->src, "a bind's source", err)) < 0)
		return rc;
	flags |= (m->flags & AT_MOUNT_RO) ? OPF_RO : 0;
	flags |= (m->flags & AT_MOUNT_DEV) ? OPF_DEV : 0;
	flags |= (m->flags & AT_MOUNT_OPTIONAL) ? OPF_OPTIONAL : 0;
	if (m->flags & AT_MOUNT_IN_SANDBOX)
		flags |= OPF_INROOT;
	else if ((rc = check_source(m, &flags, &skip, err)) < 0)
		return rc;
	if (skip)
		return 0;
	if (!(m->flags & (AT_MOUNT_RO | AT_MOUNT_IN_SANDBOX)) &&
	    (rc = check_writable(s, i, err)) < 0)
		return rc;
	op = plan_add(p, OP_BIND, m->dest, flags);
	if (op)
		plan_strdup(p, &op->source, (flags & OPF_INROOT) ? m->src + 1 : m->src);
	return 0;
}

/*
 * An overlay's upper and work dirs are written to from inside: each is held
 * to the rules of a writable bind's source, without the exception for a
 * read-only mount later (overlayfs writes there from below any mount).
 */
static int check_layer(const struct at_sandbox_spec *s, const char *dir, struct at_error *err)
{
	size_t k;

	if (protection(s, dir) > 0)
		return at_error_set(err, AT_ESANDBOX, "'%s' is protected: refusing it as an "
				    "overlay's writable layer", dir);
	for (k = 0; k < s->protect.n; k++)
		if (at_sandbox_path_within(s->protect.v[k], dir))
			return at_error_set(err, AT_ESANDBOX, "'%s' holds the protected '%s': "
					    "refusing it as an overlay's writable layer", dir,
					    s->protect.v[k]);
	return 0;
}

static int plan_overlay(struct plan *p, const struct at_sandbox_spec *s,
			const struct at_sandbox_mount *m, struct at_error *err)
{
	struct at_sb_op *op;
	struct stat st;
	int rc;

	if ((rc = check_path(m->src, "an overlay's lower dir", err)) < 0 ||
	    (rc = check_path(m->upper, "an overlay's upper dir", err)) < 0 ||
	    (rc = check_path(m->work, "an overlay's work dir", err)) < 0)
		return rc;
	if (lstat(m->src, &st) == 0 && !S_ISDIR(st.st_mode))
		return at_error_set(err, AT_ESANDBOX, "'%s' is not a directory: refusing it as an "
				    "overlay's lower dir", m->src);
	if ((rc = check_layer(s, m->upper, err)) < 0 || (rc = check_layer(s, m->work, err)) < 0)
		return rc;
	if ((op = plan_add(p, OP_OVERLAY, m->dest, 0))) {
		plan_strdup(p, &op->source, m->src);
		plan_strdup(p, &op->arg, m->upper);
		plan_strdup(p, &op->mode, m->work);
	}
	return 0;
}

/* A file of data, written where it goes (FILE) or staged and bound over dest (BIND_DATA). */
static void plan_data(struct plan *p, const struct at_sandbox_mount *m, size_t i)
{
	char stage[64];
	struct at_sb_op *op;

	snprintf(stage, sizeof(stage), STAGE_DIR "/data-%zu", i);
	op = plan_add(p, OP_FILE, m->kind == AT_MOUNT_FILE ? m->dest : stage, 0);
	if (!op)
		return;
	op->data_fd = m->fd;
	if (m->fd < 0) {
		op->arg = malloc(m->len + 1);
		if (!op->arg) {
			p->oom = true;
			return;
		}
		memcpy((char *)op->arg, m->data ? m->data : "", m->len);
		((char *)op->arg)[m->len] = '\0';
		op->arg_len = m->len;
	}
	if (m->kind == AT_MOUNT_BIND_DATA &&
	    (op = plan_add(p, OP_BIND, m->dest, OPF_RO | OPF_ISFILE | OPF_INROOT)))
		plan_strdup(p, &op->source, stage);
}

static int plan_one(struct plan *p, const struct at_sandbox_spec *s, size_t i,
		    struct at_error *err)
{
	const struct at_sandbox_mount *m = &s->mounts[i];
	struct at_sb_op *op;
	int rc;

	if ((rc = check_path(m->dest, "a mount's destination", err)) < 0)
		return rc;
	switch (m->kind) {
	case AT_MOUNT_BIND:
		return plan_bind(p, s, i, err);
	case AT_MOUNT_TMPFS:
		if ((op = plan_add(p, OP_TMPFS, m->dest, 0))) {
			if (m->size)
				plan_printf(p, &op->arg, "%llu", (unsigned long long)m->size);
			plan_printf(p, &op->mode, "%llo", (unsigned long long)m->mode);
		}
		return 0;
	case AT_MOUNT_FILE:
	case AT_MOUNT_BIND_DATA:
		plan_data(p, m, i);
		return 0;
	case AT_MOUNT_SYMLINK:
		if ((op = plan_add(p, OP_SYMLINK, m->dest, 0)))
			plan_strdup(p, &op->arg, m->data);
		return 0;
	case AT_MOUNT_DIR:
		if ((op = plan_add(p, OP_DIR, m->dest, 0)))
			op->perm = m->mode ? m->mode : 0755;
		return 0;
	case AT_MOUNT_PROC:
		plan_add(p, OP_PROC, m->dest, 0);
		return 0;
	case AT_MOUNT_DEVPTS:
		plan_add(p, OP_DEVPTS, m->dest, 0);
		return 0;
	case AT_MOUNT_REMOUNT_RO:
		plan_add(p, OP_RDONLY, m->dest, 0);
		return 0;
	case AT_MOUNT_OVERLAY:
		return plan_overlay(p, s, m, err);
	case AT_MOUNT_CGROUP:
		plan_add(p, OP_CGROUP, m->dest, 0);
		return 0;
	}
	return at_error_set(err, AT_ESANDBOX, "unknown mount operation %d at '%s'", (int)m->kind,
			    m->dest);
}

static int check_process(const struct at_sandbox_spec *s, struct at_error *err)
{
	size_t i;

	if (s->failed)
		return at_error_set(err, AT_ESYS, "out of memory building the sandbox");
	if (s->argv.n == 0 || !s->envp.v)
		return at_error_set(err, AT_EUSAGE, "no command to run");
	if (s->nlisten && (s->proc.share_net || !s->on_listen || s->nlisten > AT_SANDBOX_LISTEN_MAX))
		return at_error_set(err, AT_EUSAGE, "listening sockets need the sandbox's own "
				    "network, a server, and at most %d of them",
				    AT_SANDBOX_LISTEN_MAX);
	for (i = 0; i < s->protect.n; i++)
		if (check_path(s->protect.v[i], "a protected path", err) < 0)
			return err->code;
	for (i = 0; i < s->except.n; i++)
		if (check_path(s->except.v[i], "an excepted path", err) < 0)
			return err->code;
	return check_path(s->cwd, "the working directory", err);
}

int at_sb_plan_build(const struct at_sandbox_spec *s, struct at_sb_op **ops_out,
		     size_t *nops_out, struct at_error *err)
{
	struct plan p = { NULL, 0, 0, false };
	size_t i;
	int rc;

	if ((rc = check_process(s, err)) < 0)
		return rc;
	for (i = 0; rc == 0 && i < s->nmounts; i++)
		rc = plan_one(&p, s, i, err);
	/* The root itself read-only last: nothing can be made at its top level. */
	if (rc == 0)
		plan_add(&p, OP_RDONLY, "", 0);
	if (rc == 0 && p.oom)
		rc = at_error_set(err, AT_ESYS, "out of memory");
	if (rc < 0) {
		at_sb_plan_free(p.ops, p.n);
		return rc;
	}
	*ops_out = p.ops;
	*nops_out = p.n;
	return 0;
}
