/*
 * mounts.c - the sandbox's file system view: a plan made by the supervisor,
 * carried out by the child.
 *
 * The plan is a list of operations on paths relative to the new root. The
 * child opens every host source first (openat2 with RESOLVE_NO_SYMLINKS, so
 * a planted symbolic link anywhere on the path is refused, never followed),
 * then builds the new root on a tmpfs with the file-descriptor-based mount
 * API: open_tree() clones a source, mount_setattr() makes it read-only /
 * nosuid / nodev *before* it is attached, and move_mount() attaches it onto
 * a mount point that was itself opened the same way. No path string is ever
 * handed to mount(2), so nothing planted in a path can redirect a mount.
 */
#include "sandbox/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/fs.h"
#include "core/util.h"

#define ROOT_SIZE "16m"
/* The private tmpfs: at most these, and 1/2, 1/4, 1/8 of the memory limit (tmpfs_size). */
#define TMP_SIZE (512ULL << 20)
#define HOME_SIZE (256ULL << 20)
#define SHM_SIZE (64ULL << 20)
#define DEV_SIZE "64k"
#define STATE_SIZE "64k"
#define STAGE_DIR "run/agenttask"
#define STAGE_CONFIG STAGE_DIR "/gitconfig"
#define STAGE_EMPTY STAGE_DIR "/empty"

/* Directories of the host bound read-only; a symlink (merged /usr) stays one. */
static const char *const system_dirs[] = {
	"usr", "bin", "sbin", "lib", "lib64", "lib32", "libx32",
};

/*
 * What of /etc the command sees: what programs need to run, resolve names
 * and speak TLS. Never shadow, gshadow, sudoers, ssh (host keys), the
 * system gitconfig, nor anything else that holds secrets or policy.
 */
static const char *const etc_entries[] = {
	"passwd", "group", "hosts", "resolv.conf", "nsswitch.conf", "host.conf", "gai.conf",
	"ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "timezone", "ssl",
	"ca-certificates", "ca-certificates.conf", "alternatives", "mime.types", "protocols",
	"services", "bash.bashrc", "profile", "profile.d", "inputrc", "os-release",
	"debian_version", "locale.alias", "manpath.config",
};

/*
 * Parts of the sandbox's own /proc that are global to the machine and
 * writable by uid 0 on file permissions alone (sysctls such as
 * kernel.core_pattern, the sysrq trigger): read-only, as in bubblewrap and
 * container runtimes. This matters when agenttask runs as root: root inside
 * is the host's uid 0, capabilities or not.
 */
static const char *const proc_read_only[] = {
	"sys", "sysrq-trigger", "irq", "bus", "fs", "scsi", "acpi", "asound",
};

static const char *const dev_nodes[] = { "null", "zero", "full", "random", "urandom", "tty" };

/* ---- the plan (supervisor side) ---- */

struct plan {
	struct at_sb_op *ops;
	size_t n, alloc;
	bool oom;
	uint64_t memory;          /* the run's memory limit, or 0 */
};

/*
 * A private tmpfs is memory: its pages are charged to the run's cgroup, and
 * where the run has a memory limit its tmpfs together stay inside it (7/8
 * of it at most), so that filling /tmp meets ENOSPC before the limit.
 */
static void tmpfs_size(const struct plan *p, uint64_t max, unsigned int share, char *buf,
		       size_t size)
{
	uint64_t v = max;

	if (p->memory && p->memory / share < v)
		v = p->memory / share;
	snprintf(buf, size, "%llu", (unsigned long long)(v < 4096 ? 4096 : v));
}

static struct at_sb_op *plan_add(struct plan *p, enum at_sb_op_kind kind, const char *target,
				 unsigned int flags)
{
	struct at_sb_op *op;

	if (p->n == p->alloc) {
		size_t na = p->alloc ? p->alloc * 2 : 64;
		struct at_sb_op *n = realloc(p->ops, na * sizeof(*n));
		if (!n) {
			p->oom = true;
			return NULL;
		}
		p->ops = n;
		p->alloc = na;
	}
	op = &p->ops[p->n];
	memset(op, 0, sizeof(*op));
	op->kind = kind;
	op->flags = flags;
	op->src_fd = -1;
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
	if (!s)
		return;
	*dst = strdup(s);
	if (!*dst)
		p->oom = true;
}

static void add_bind(struct plan *p, const char *source, const char *target, unsigned int flags)
{
	struct at_sb_op *op = plan_add(p, OP_BIND, target, flags);

	if (op)
		plan_strdup(p, &op->source, source);
}

static void add_tmpfs(struct plan *p, const char *target, const char *size, const char *mode)
{
	struct at_sb_op *op = plan_add(p, OP_TMPFS, target, 0);

	if (!op)
		return;
	plan_strdup(p, &op->arg, size);
	plan_strdup(p, &op->mode, mode);
}

static void add_symlink(struct plan *p, const char *target, const char *to)
{
	struct at_sb_op *op = plan_add(p, OP_SYMLINK, target, 0);

	if (op)
		plan_strdup(p, &op->arg, to);
}

static void add_file(struct plan *p, const char *target, const char *data, size_t len)
{
	struct at_sb_op *op = plan_add(p, OP_FILE, target, 0);

	if (!op)
		return;
	op->arg = malloc(len + 1);
	if (!op->arg) {
		p->oom = true;
		return;
	}
	memcpy((char *)op->arg, data, len);
	((char *)op->arg)[len] = '\0';
	op->arg_len = len;
}

/* A host path that is present: 1 directory, 2 other, 3 symlink, 0 absent. */
static int host_kind(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return 0;
	if (S_ISLNK(st.st_mode))
		return 3;
	return S_ISDIR(st.st_mode) ? 1 : 2;
}

static void plan_system(struct plan *p)
{
	char host[PATH_MAX], link[PATH_MAX], real[PATH_MAX];
	size_t i;
	ssize_t n;

	for (i = 0; i < sizeof(system_dirs) / sizeof(system_dirs[0]); i++) {
		snprintf(host, sizeof(host), "/%s", system_dirs[i]);
		switch (host_kind(host)) {
		case 1:
			add_bind(p, host, host, OPF_RO);
			break;
		case 3:
			n = readlink(host, link, sizeof(link) - 1);
			if (n > 0) {
				link[n] = '\0';
				add_symlink(p, host, link);
			}
			break;
		default:
			break;
		}
	}
	for (i = 0; i < sizeof(etc_entries) / sizeof(etc_entries[0]); i++) {
		snprintf(host, sizeof(host), "/etc/%s", etc_entries[i]);
		switch (host_kind(host)) {
		case 1:
			add_bind(p, host, host, OPF_RO);
			break;
		case 2:
			add_bind(p, host, host, OPF_RO | OPF_ISFILE);
			break;
		case 3:
			/*
			 * A link into /usr (localtime, os-release) stays a link;
			 * one elsewhere (resolv.conf -> /run/...) is replaced by
			 * a bind of what it points to, resolved here by the
			 * supervisor: /etc is the host administrator's, not the
			 * agent's, so following it is safe.
			 */
			n = readlink(host, link, sizeof(link) - 1);
			if (n <= 0 || !realpath(host, real))
				break;
			link[n] = '\0';
			if (strncmp(real, "/usr/", 5) == 0)
				add_symlink(p, host, link);
			else
				add_bind(p, real, host, OPF_RO | (host_kind(real) == 1 ? 0 : OPF_ISFILE));
			break;
		default:
			break;
		}
	}
}

static void plan_dev(struct plan *p)
{
	char host[64], size[32];
	size_t i;

	add_tmpfs(p, "dev", DEV_SIZE, "0755");
	for (i = 0; i < sizeof(dev_nodes) / sizeof(dev_nodes[0]); i++) {
		snprintf(host, sizeof(host), "/dev/%s", dev_nodes[i]);
		if (host_kind(host) == 2)
			add_bind(p, host, host, OPF_DEV | OPF_ISFILE);
	}
	plan_add(p, OP_DEVPTS, "dev/pts", 0);
	add_symlink(p, "dev/ptmx", "pts/ptmx");
	tmpfs_size(p, SHM_SIZE, 8, size, sizeof(size));
	add_tmpfs(p, "dev/shm", size, "1777");
	add_symlink(p, "dev/fd", "/proc/self/fd");
	add_symlink(p, "dev/stdin", "/proc/self/fd/0");
	add_symlink(p, "dev/stdout", "/proc/self/fd/1");
	add_symlink(p, "dev/stderr", "/proc/self/fd/2");
	plan_add(p, OP_RDONLY, "dev", 0);
}

static void hide_if_present(struct plan *p, const char *dir, const char *name)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return;
	if (host_kind(path) == 2)
		add_bind(p, STAGE_EMPTY, path, OPF_RO | OPF_ISFILE | OPF_INROOT);
}

/*
 * The repository: the common dir read-only with a sanitized config, the
 * state dir (other tasks, records, logs, the lock) under an empty tmpfs in
 * which only this task's worktree is re-created, read-write, and its .git
 * pointer read-only. The order matters: each step goes over the last.
 */
static void plan_git(struct plan *p, const struct at_sandbox_opts *o)
{
	char config[PATH_MAX];
	const char *text = o->sanitized_config ? o->sanitized_config : "";

	add_file(p, STAGE_CONFIG, text, strlen(text));
	add_file(p, STAGE_EMPTY, "", 0);
	add_bind(p, o->common_dir, o->common_dir, OPF_RO);
	snprintf(config, sizeof(config), "%s/config", o->common_dir);
	add_bind(p, STAGE_CONFIG, config, OPF_RO | OPF_ISFILE | OPF_INROOT);
	hide_if_present(p, o->common_dir, "config.worktree");
	if (o->admin_dir)
		hide_if_present(p, o->admin_dir, "config.worktree");
	add_tmpfs(p, o->state_dir, STATE_SIZE, "0755");
	add_bind(p, o->worktree, o->worktree, 0);
	add_bind(p, o->git_pointer_file, o->git_pointer_file, OPF_RO | OPF_ISFILE);
	plan_add(p, OP_RDONLY, o->state_dir, 0);
}

int at_sb_plan_build(const struct at_sandbox_opts *o, struct at_sb_op **ops_out,
		     size_t *nops_out, struct at_error *err)
{
	struct plan p = { NULL, 0, 0, false, o->limits[AT_LIMIT_MEMORY] };
	char size[32];
	size_t i;

	plan_system(&p);
	tmpfs_size(&p, TMP_SIZE, 2, size, sizeof(size));
	add_tmpfs(&p, "tmp", size, "1777");
	tmpfs_size(&p, HOME_SIZE, 4, size, sizeof(size));
	add_tmpfs(&p, AT_SANDBOX_HOME, size, "0700");
	plan_dev(&p);
	plan_add(&p, OP_PROC, "proc", 0);
	for (i = 0; i < sizeof(proc_read_only) / sizeof(proc_read_only[0]); i++) {
		char path[64];

		snprintf(path, sizeof(path), "proc/%s", proc_read_only[i]);
		add_bind(&p, path, path, OPF_RO | OPF_INROOT | OPF_OPTIONAL |
				 (strcmp(proc_read_only[i], "sysrq-trigger") == 0 ? OPF_ISFILE : 0));
	}
	/* The caller's binds, then the repository over them: a --ro of a
	 * parent of the repository cannot uncover its config or state. */
	for (i = 0; i < o->nbinds; i++) {
		const char *path = o->binds[i].path;
		unsigned int flags = o->binds[i].writable ? 0 : OPF_RO;

		if (host_kind(path) != 1)
			flags |= OPF_ISFILE;
		add_bind(&p, path, path, flags);
	}
	plan_git(&p, o);
	plan_add(&p, OP_RDONLY, "", 0);
	if (p.oom) {
		at_sb_plan_free(p.ops, p.n);
		return at_error_set(err, AT_ESYS, "out of memory");
	}
	*ops_out = p.ops;
	*nops_out = p.n;
	return 0;
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
	}
	free(ops);
}

/* ---- carrying it out (child side: async-signal-safe from here on) ---- */

/*
 * Every planned path is normalised (at_sandbox_path_normal, and the plan's
 * own constants): checked again here, so that "." and ".." never reach the
 * kernel and every component fits NAME_MAX.
 */
static bool rel_path_ok(const char *rel, size_t len)
{
	size_t pos = 0;

	if (len >= PATH_MAX)
		return false;
	while (pos < len) {
		size_t end = pos;

		while (end < len && rel[end] != '/')
			end++;
		if (end == pos || end - pos > NAME_MAX)
			return false;
		if (rel[pos] == '.' && (end - pos == 1 || (end - pos == 2 && rel[pos + 1] == '.')))
			return false;
		pos = end + 1;
	}
	return len == 0 || rel[len - 1] != '/';
}

/*
 * One openat2() for a whole path (at_open_beneath: no link followed, the
 * last component included, no escape from dirfd), O_PATH. Mount points are
 * crossed, so the result is the topmost mount at that path.
 */
static int open_beneath(int dirfd, const char *path)
{
	return at_open_beneath(dirfd, path, O_PATH);
}

/*
 * Make the directories missing of path below dirfd: the deepest existing
 * ancestor is found first, then each missing component is created and
 * opened as above. path is modified while working, and restored.
 */
static int make_dirs(int dirfd, char *path, size_t len)
{
	size_t end = len, pos;
	int cur;

	for (;;) {
		while (end > 0 && path[end - 1] != '/')
			end--;
		if (end == 0) {
			cur = open_beneath(dirfd, ".");
			break;
		}
		path[--end] = '\0';
		cur = open_beneath(dirfd, path);
		path[end] = '/';
		if (cur >= 0 || errno != ENOENT)
			break;
	}
	for (pos = end ? end + 1 : 0; cur >= 0 && pos < len;) {
		size_t stop = pos;
		int next;

		while (stop < len && path[stop] != '/')
			stop++;
		path[stop] = '\0';
		(void)mkdirat(cur, path + pos, 0755);
		next = open_beneath(cur, path + pos);
		if (stop < len)
			path[stop] = '/';
		close(cur);
		cur = next;
		pos = stop + 1;
	}
	return cur;
}

/* Open rel[0..len) below dirfd (see open_beneath); with make, make what is missing. */
static int walk(int dirfd, const char *rel, size_t len, bool make)
{
	char path[PATH_MAX];
	int fd;

	if (!rel_path_ok(rel, len)) {
		errno = len >= PATH_MAX ? ENAMETOOLONG : EINVAL;
		return -1;
	}
	memcpy(path, rel, len);
	path[len] = '\0';
	fd = open_beneath(dirfd, len ? path : ".");
	if (fd >= 0 || errno != ENOENT || !make)
		return fd;
	return make_dirs(dirfd, path, len);
}

static size_t str_len(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

/*
 * The new root being built. dir is the last directory something was made in,
 * kept open: most targets are siblings (/etc/..., /dev/...), and each would
 * otherwise walk the same path again. A mount attached at that directory or
 * above it would hide what the descriptor refers to: attaching one there
 * forgets it (see attach).
 */
struct build {
	int rootfd;
	int dir_fd;
	size_t dir_len;
	char dir[PATH_MAX];
};

/* The directory holding target, made as needed (borrowed: do not close); *base is the rest. */
static int target_dir(struct build *b, const char *target, const char **base)
{
	size_t cut = str_len(target), len;
	int fd;

	if (cut == 0 || !rel_path_ok(target, cut)) {
		errno = EINVAL;
		return -1;
	}
	while (cut > 0 && target[cut - 1] != '/')
		cut--;
	*base = target + cut;
	len = cut > 0 ? cut - 1 : 0;
	if (b->dir_fd >= 0 && b->dir_len == len && memcmp(b->dir, target, len) == 0)
		return b->dir_fd;
	fd = walk(b->rootfd, target, len, true);
	if (fd < 0)
		return -1;
	if (b->dir_fd >= 0)
		close(b->dir_fd);
	b->dir_fd = fd;
	b->dir_len = len;
	memcpy(b->dir, target, len);
	return fd;
}

/*
 * The mount point of op, made if missing (a directory, or an empty file for
 * OPF_ISFILE), opened without following links.
 */
static int open_target(struct build *b, const struct at_sb_op *op)
{
	const char *base;
	int dir = target_dir(b, op->target, &base), fd;

	if (dir < 0)
		return -1;
	if (op->flags & OPF_ISFILE) {
		/* A file we have just made (O_EXCL) is a mount point as good as its O_PATH twin. */
		fd = openat(dir, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	} else {
		(void)mkdirat(dir, base, 0755);
	}
	return open_beneath(dir, base);
}

static int attach(struct build *b, int mnt, const struct at_sb_op *op)
{
	size_t len = str_len(op->target);
	int tgt = open_target(b, op), rc;

	if (tgt < 0)
		return -1;
	rc = move_mount(mnt, "", tgt, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH);
	close(tgt);
	if (b->dir_fd >= 0 && len <= b->dir_len && memcmp(b->dir, op->target, len) == 0 &&
	    (len == b->dir_len || b->dir[len] == '/')) {
		close(b->dir_fd);
		b->dir_fd = -1;
	}
	return rc;
}

static int do_bind(struct build *b, struct at_sb_op *op)
{
	struct mount_attr attr = { 0 };
	int src = op->src_fd, tree, rc;

	if (op->flags & OPF_INROOT) {
		src = walk(b->rootfd, op->source, str_len(op->source), false);
		if (src < 0 && errno == ENOENT && (op->flags & OPF_OPTIONAL))
			return 0;
	}
	if (src < 0)
		return -1;
	tree = open_tree(src, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH | AT_RECURSIVE);
	if (op->flags & OPF_INROOT)
		close(src);
	if (tree < 0)
		return -1;
	attr.attr_set = MOUNT_ATTR_NOSUID;
	attr.attr_set |= (op->flags & OPF_DEV) ? MOUNT_ATTR_NOEXEC : MOUNT_ATTR_NODEV;
	if (op->flags & OPF_RO)
		attr.attr_set |= MOUNT_ATTR_RDONLY;
	rc = mount_setattr(tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof(attr));
	if (rc == 0)
		rc = attach(b, tree, op);
	close(tree);
	return rc;
}

/* A new file system instance (tmpfs, proc, devpts), configured, then attached. */
static int do_newfs(struct build *b, const struct at_sb_op *op, const char *type,
		    unsigned int attrs)
{
	int fs = fsopen(type, FSOPEN_CLOEXEC), mnt, rc = -1;

	if (fs < 0)
		return -1;
	if (op->arg && fsconfig(fs, FSCONFIG_SET_STRING, "size", op->arg, 0) < 0)
		goto out;
	if (op->mode && fsconfig(fs, FSCONFIG_SET_STRING, "mode", op->mode, 0) < 0)
		goto out;
	if (op->kind == OP_DEVPTS &&
	    (fsconfig(fs, FSCONFIG_SET_FLAG, "newinstance", NULL, 0) < 0 ||
	     fsconfig(fs, FSCONFIG_SET_STRING, "ptmxmode", "0666", 0) < 0 ||
	     fsconfig(fs, FSCONFIG_SET_STRING, "mode", "0620", 0) < 0))
		goto out;
	if (fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		goto out;
	mnt = fsmount(fs, FSMOUNT_CLOEXEC, attrs);
	if (mnt < 0)
		goto out;
	rc = attach(b, mnt, op);
	close(mnt);
out:
	close(fs);
	return rc;
}

static int do_symlink(struct build *b, const struct at_sb_op *op)
{
	const char *base;
	int dir = target_dir(b, op->target, &base);

	return dir < 0 ? -1 : symlinkat(op->arg, dir, base);
}

static int do_file(struct build *b, const struct at_sb_op *op)
{
	const char *base;
	int dir = target_dir(b, op->target, &base), fd;
	size_t off = 0;

	if (dir < 0)
		return -1;
	fd = openat(dir, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	while (off < op->arg_len) {
		ssize_t n = write(fd, op->arg + off, op->arg_len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			close(fd);
			return -1;
		}
		off += (size_t)n;
	}
	return close(fd);
}

static int do_rdonly(struct build *b, const struct at_sb_op *op)
{
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_RDONLY };
	int fd = walk(b->rootfd, op->target, str_len(op->target), false), rc;

	if (fd < 0)
		return -1;
	rc = mount_setattr(fd, "", AT_EMPTY_PATH, &attr, sizeof(attr));
	close(fd);
	return rc;
}

static int do_op(struct build *b, struct at_sb_op *op, int *step)
{
	switch (op->kind) {
	case OP_BIND:
		*step = SB_BIND;
		return do_bind(b, op);
	case OP_TMPFS:
		*step = SB_TMPFS;
		return do_newfs(b, op, "tmpfs", MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
	case OP_PROC:
		*step = SB_PROC;
		return do_newfs(b, op, "proc",
				MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC);
	case OP_DEVPTS:
		/* Devices allowed here, or no pty could be opened. */
		*step = SB_DEVPTS;
		return do_newfs(b, op, "devpts", MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC);
	case OP_SYMLINK:
		*step = SB_SYMLINK;
		return do_symlink(b, op);
	case OP_FILE:
		*step = SB_FILE;
		return do_file(b, op);
	case OP_DIR: {
		int fd = walk(b->rootfd, op->target, str_len(op->target), true);
		*step = SB_MKPATH;
		return fd < 0 ? -1 : close(fd);
	}
	case OP_RDONLY:
		*step = SB_RDONLY;
		return do_rdonly(b, op);
	}
	errno = EINVAL;
	return -1;
}

/* The new root: a tmpfs attached over /tmp of this (private) mount namespace. */
static int make_root(void)
{
	struct at_sb_op op = { .kind = OP_TMPFS, .arg = ROOT_SIZE, .mode = "0755" };
	int fs, mnt, tmp;

	tmp = open("/tmp", O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
	if (tmp < 0)
		return -1;
	fs = fsopen("tmpfs", FSOPEN_CLOEXEC);
	if (fs < 0 || fsconfig(fs, FSCONFIG_SET_STRING, "size", op.arg, 0) < 0 ||
	    fsconfig(fs, FSCONFIG_SET_STRING, "mode", op.mode, 0) < 0 ||
	    fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0) {
		if (fs >= 0)
			close(fs);
		close(tmp);
		return -1;
	}
	mnt = fsmount(fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
	close(fs);
	if (mnt >= 0 &&
	    move_mount(mnt, "", tmp, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0) {
		close(mnt);
		mnt = -1;
	}
	close(tmp);
	return mnt;
}

/* Every source is opened before anything is mounted over anything. */
static int open_sources(struct at_sb_child *c, const char **what)
{
	int host = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	size_t i;

	if (host < 0)
		return -1;
	for (i = 0; i < c->nops; i++) {
		struct at_sb_op *op = &c->ops[i];

		if (op->kind != OP_BIND || (op->flags & OPF_INROOT))
			continue;
		*what = op->source;
		op->src_fd = walk(host, op->source + 1, str_len(op->source + 1), false);
		if (op->src_fd < 0) {
			c->failed_op = (int)i;
			close(host);
			return -1;
		}
	}
	close(host);
	*what = NULL;
	return 0;
}

int at_sb_mounts_build(struct at_sb_child *c, int *step, const char **what)
{
	struct build b;
	size_t i;

	*what = NULL;
	*step = SB_PRIVATE;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return -1;
	*step = SB_SOURCE;
	if (open_sources(c, what) < 0)
		return -1;

	*step = SB_ROOT;
	b.rootfd = make_root();
	b.dir_fd = -1;
	b.dir_len = 0;
	if (b.rootfd < 0)
		return -1;
	for (i = 0; i < c->nops; i++) {
		struct at_sb_op *op = &c->ops[i];

		*what = (op->kind == OP_BIND && !(op->flags & OPF_INROOT)) ? op->source : op->target;
		if (do_op(&b, op, step) < 0) {
			c->failed_op = (int)i;
			if (b.dir_fd >= 0)
				close(b.dir_fd);
			close(b.rootfd);
			return -1;
		}
		if (op->src_fd >= 0) {
			close(op->src_fd);
			op->src_fd = -1;
		}
	}
	if (b.dir_fd >= 0)
		close(b.dir_fd);
	*what = NULL;
	return b.rootfd;
}

int at_sb_pivot(int rootfd, const char *cwd, int *step, const char **what)
{
	/* pivot_root(".", "."): the old root ends up stacked on the new one
	 * and is detached at once, so nothing of the host stays reachable. */
	*step = SB_PIVOT;
	*what = NULL;
	if (fchdir(rootfd) < 0 || syscall(SYS_pivot_root, ".", ".") < 0 ||
	    umount2(".", MNT_DETACH) < 0 || chdir("/") < 0) {
		close(rootfd);
		return -1;
	}
	close(rootfd);

	*step = SB_CHDIR;
	*what = cwd;
	if (chdir(cwd) < 0)
		return -1;
	*what = NULL;
	return 0;
}
