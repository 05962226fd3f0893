/*
 * child_mounts.c - the sandbox's file system view, built by the child from
 * the plan the supervisor made (plan.c).
 *
 * The plan is a list of operations on paths relative to the new root. The
 * child opens every host source first (openat2 with RESOLVE_NO_SYMLINKS, so
 * a planted symbolic link anywhere on the path is refused, never followed),
 * then builds the new root on a tmpfs with the file-descriptor-based mount
 * API: open_tree() clones a source, mount_setattr() makes it read-only /
 * nosuid / nodev *before* it is attached, and move_mount() attaches it onto
 * a mount point that was itself opened the same way. No path string is ever
 * handed to mount(2), so nothing planted in a path can redirect a mount; an
 * overlay's layers are descriptors too (fsconfig FSCONFIG_SET_FD).
 */
#include "sandbox/child.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/fs.h"
#include "core/util.h"

#define ROOT_SIZE "16m"

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
	const struct at_sb_cg *cg;  /* what OP_CGROUP shows */
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

/* A clone of the mount tree at src, given attrs before it is attached at op's target. */
static int clone_attach(struct build *b, int src, unsigned int attrs, const struct at_sb_op *op)
{
	struct mount_attr attr = { .attr_set = attrs };
	int tree, rc;

	tree = open_tree(src, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH | AT_RECURSIVE);
	if (tree < 0)
		return -1;
	rc = mount_setattr(tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof(attr));
	if (rc == 0)
		rc = attach(b, tree, op);
	close(tree);
	return rc;
}

static int do_bind(struct build *b, struct at_sb_op *op)
{
	unsigned int attrs = MOUNT_ATTR_NOSUID;
	int src = op->src_fd, rc;

	if (op->flags & OPF_INROOT) {
		src = walk(b->rootfd, op->source, str_len(op->source), false);
		if (src < 0 && errno == ENOENT && (op->flags & OPF_OPTIONAL))
			return 0;
	}
	if (src < 0)
		return -1;
	attrs |= (op->flags & OPF_DEV) ? MOUNT_ATTR_NOEXEC : MOUNT_ATTR_NODEV;
	if (op->flags & OPF_RO)
		attrs |= MOUNT_ATTR_RDONLY;
	rc = clone_attach(b, src, attrs, op);
	if (op->flags & OPF_INROOT)
		close(src);
	return rc;
}

/* A configured file system instance created, mounted and attached at op's target. */
static int create_and_attach(struct build *b, int fs, const struct at_sb_op *op,
			     unsigned int attrs)
{
	int mnt, rc;

	if (fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		return -1;
	mnt = fsmount(fs, FSMOUNT_CLOEXEC, attrs);
	if (mnt < 0)
		return -1;
	rc = attach(b, mnt, op);
	close(mnt);
	return rc;
}

/* A new file system instance (tmpfs, proc, devpts), configured, then attached. */
static int do_newfs(struct build *b, const struct at_sb_op *op, const char *type,
		    unsigned int attrs)
{
	int fs = fsopen(type, FSOPEN_CLOEXEC), rc = -1;

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
	rc = create_and_attach(b, fs, op, attrs);
out:
	close(fs);
	return rc;
}

#define CG_ATTRS (MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC)

/*
 * The run's own cgroup, read-only (sandbox.h, AT_MOUNT_CGROUP). v2: a
 * cgroup2 instance of the sandbox's cgroup namespace, made after the init
 * joined the run's cgroup, so its root is that cgroup and no parent is
 * reachable; no option is given (nsdelegate is the host's to set). v1: the
 * run's directory of each controller, opened with the other sources, bound
 * at <target>/<controller>.
 */
static int do_cgroup(struct build *b, const struct at_sb_op *op)
{
	struct at_sb_op sub = *op;
	char target[PATH_MAX];
	size_t tlen = str_len(op->target), nlen;
	int fs, i, rc;

	if (b->cg->view == SB_CG_V2) {
		fs = fsopen("cgroup2", FSOPEN_CLOEXEC);
		if (fs < 0)
			return -1;
		rc = create_and_attach(b, fs, op, CG_ATTRS);
		close(fs);
		return rc;
	}
	for (i = 0; b->cg->view == SB_CG_V1 && i < b->cg->n; i++) {
		nlen = str_len(b->cg->name[i]);
		if (tlen + 1 + nlen >= sizeof(target)) {
			errno = ENAMETOOLONG;
			return -1;
		}
		memcpy(target, op->target, tlen);
		target[tlen] = '/';
		memcpy(target + tlen + 1, b->cg->name[i], nlen + 1);
		sub.target = target;
		sub.flags = 0;
		if (clone_attach(b, b->cg->fd[i], CG_ATTRS, &sub) < 0)
			return -1;
	}
	return 0;
}

static int do_symlink(struct build *b, const struct at_sb_op *op)
{
	const char *base;
	int dir = target_dir(b, op->target, &base);

	return dir < 0 ? -1 : symlinkat(op->arg, dir, base);
}

static int write_whole(int fd, const char *p, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The caller's descriptor from offset 0, without moving its offset (shared with it). */
static int copy_from(int fd, int from)
{
	char buf[8192];
	off_t off = 0;

	for (;;) {
		ssize_t n = pread(from, buf, sizeof(buf), off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			return 0;
		if (write_whole(fd, buf, (size_t)n) < 0)
			return -1;
		off += n;
	}
}

static int do_file(struct build *b, const struct at_sb_op *op)
{
	const char *base;
	int dir = target_dir(b, op->target, &base), fd, rc;

	if (dir < 0)
		return -1;
	fd = openat(dir, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	rc = op->data_fd >= 0 ? copy_from(fd, op->data_fd) : write_whole(fd, op->arg, op->arg_len);
	if (rc < 0) {
		close(fd);
		return -1;
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

/* "/proc/self/fd/N" into buf (at least 32 bytes), async-signal-safe. */
static void fd_path(char *buf, int fd)
{
	static const char head[] = "/proc/self/fd/";
	char digits[12];
	int n = 0;

	do
		digits[n++] = (char)('0' + fd % 10);
	while ((fd /= 10) > 0 && n < (int)sizeof(digits));
	memcpy(buf, head, sizeof(head) - 1);
	buf += sizeof(head) - 1;
	while (n > 0)
		*buf++ = digits[--n];
	*buf = '\0';
}

/*
 * The layers of an overlay: as descriptors (FSCONFIG_SET_FD, Linux 6.8 and
 * later: no path string reaches the kernel), else, on older kernels (Debian
 * 12's 6.1), as the /proc/self/fd paths of the same descriptors, which the
 * kernel resolves to the directories opened, never to a name the task chose.
 */
static int overlay_layers(int fs, const struct at_sb_op *op, bool by_fd)
{
	char lower[32], upper[32], work[32];

	if (by_fd)
		return fsconfig(fs, FSCONFIG_SET_FD, "lowerdir+", NULL, op->src_fd) < 0 ||
		       fsconfig(fs, FSCONFIG_SET_FD, "upperdir", NULL, op->upper_fd) < 0 ||
		       fsconfig(fs, FSCONFIG_SET_FD, "workdir", NULL, op->work_fd) < 0 ? -1 : 0;
	fd_path(lower, op->src_fd);
	fd_path(upper, op->upper_fd);
	fd_path(work, op->work_fd);
	return fsconfig(fs, FSCONFIG_SET_STRING, "lowerdir", lower, 0) < 0 ||
	       fsconfig(fs, FSCONFIG_SET_STRING, "upperdir", upper, 0) < 0 ||
	       fsconfig(fs, FSCONFIG_SET_STRING, "workdir", work, 0) < 0 ? -1 : 0;
}

/*
 * overlayfs makes its scratch, "work" in the work dir, at each mount, with
 * volatile's marker in it, and the supervisor removes it once the sandbox
 * is gone (at_sandbox_overlay_tidy). One left by a supervisor that was
 * killed holds the marker, which makes overlayfs refuse the mount: the
 * marker goes here, and overlayfs empties the rest. The common case, no
 * scratch, costs one failed lookup. The work dir is the caller's, never
 * reachable from inside.
 */
int at_sb_clear_marker(int work_fd)
{
	if ((unlinkat(work_fd, AT_SB_SCRATCH "/incompat/volatile/dirty", 0) < 0 && errno != ENOENT) ||
	    (unlinkat(work_fd, AT_SB_SCRATCH "/incompat/volatile", AT_REMOVEDIR) < 0 &&
	     errno != ENOENT) ||
	    (unlinkat(work_fd, AT_SB_SCRATCH "/incompat", AT_REMOVEDIR) < 0 && errno != ENOENT))
		return -1;
	return 0;
}

static void clear_leftover_marker(int work_fd)
{
	struct stat st;

	if (fstatat(work_fd, AT_SB_SCRATCH, &st, AT_SYMLINK_NOFOLLOW) == 0)
		(void)at_sb_clear_marker(work_fd);
}

/*
 * An overlay, its layers opened before anything was mounted
 * (overlay_layers). In a user namespace overlayfs keeps its metadata in
 * user.* xattrs (userxattr); volatile: sandbox.h says why.
 */
static int overlay_once(struct build *b, const struct at_sb_op *op, bool by_fd)
{
	int fs = fsopen("overlay", FSOPEN_CLOEXEC), rc;

	if (fs < 0)
		return -1;
	clear_leftover_marker(op->work_fd);
	if (fsconfig(fs, FSCONFIG_SET_STRING, "source", "agenttask", 0) < 0 ||
	    fsconfig(fs, FSCONFIG_SET_FLAG, "userxattr", NULL, 0) < 0 ||
	    fsconfig(fs, FSCONFIG_SET_FLAG, "volatile", NULL, 0) < 0 ||
	    overlay_layers(fs, op, by_fd) < 0)
		rc = -2;   /* the configuration, not the mount, was refused */
	else
		rc = create_and_attach(b, fs, op, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
	close(fs);
	return rc;
}

static int do_overlay(struct build *b, const struct at_sb_op *op)
{
	int rc = overlay_once(b, op, true);

	if (rc == -2)
		rc = overlay_once(b, op, false);
	return rc < 0 ? -1 : rc;
}

static int do_op(struct build *b, struct at_sb_op *op, int *step)
{
	switch (op->kind) {
	case OP_BIND:
		*step = AT_STEP_BIND;
		return do_bind(b, op);
	case OP_TMPFS:
		*step = AT_STEP_TMPFS;
		return do_newfs(b, op, "tmpfs", MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
	case OP_PROC:
		*step = AT_STEP_PROC;
		return do_newfs(b, op, "proc",
				MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC);
	case OP_DEVPTS:
		/* Devices allowed here, or no pty could be opened. */
		*step = AT_STEP_DEVPTS;
		return do_newfs(b, op, "devpts", MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC);
	case OP_SYMLINK:
		*step = AT_STEP_SYMLINK;
		return do_symlink(b, op);
	case OP_FILE:
		*step = AT_STEP_FILE;
		return do_file(b, op);
	case OP_DIR: {
		int fd = walk(b->rootfd, op->target, str_len(op->target), true);

		*step = AT_STEP_MKPATH;
		if (fd < 0)
			return -1;
		close(fd);
		/* Just made or found without a link on the way; nothing else runs here. */
		return fchmodat(b->rootfd, op->target, op->perm, 0);
	}
	case OP_RDONLY:
		*step = AT_STEP_RDONLY;
		return do_rdonly(b, op);
	case OP_OVERLAY:
		*step = AT_STEP_OVERLAY;
		return do_overlay(b, op);
	case OP_CGROUP:
		*step = AT_STEP_CGROUP;
		return do_cgroup(b, op);
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

/*
 * An overlay's layer, opened as walk() does, but for reading: overlayfs
 * takes no O_PATH descriptor.
 */
static int open_layer(int host, const char *path, const char **what)
{
	size_t len = str_len(path + 1);

	*what = path;
	if (!rel_path_ok(path + 1, len)) {
		errno = EINVAL;
		return -1;
	}
	return at_open_beneath(host, path + 1, O_RDONLY | O_DIRECTORY);
}

static int open_overlay(int host, struct at_sb_op *op, const char **what)
{
	if ((op->src_fd = open_layer(host, op->source, what)) < 0 ||
	    (op->upper_fd = open_layer(host, op->arg, what)) < 0 ||
	    (op->work_fd = open_layer(host, op->mode, what)) < 0)
		return -1;
	return 0;
}

/* The run's v1 cgroups (OP_CGROUP), opened once however many ops show them. */
static int open_cgroups(int host, struct at_sb_cg *cg, const char **what)
{
	int k;

	for (k = 0; cg->view == SB_CG_V1 && k < cg->n; k++) {
		if (cg->fd[k] >= 0)
			continue;
		*what = cg->dir[k];
		cg->fd[k] = walk(host, cg->dir[k] + 1, str_len(cg->dir[k] + 1), false);
		if (cg->fd[k] < 0)
			return -1;
	}
	return 0;
}

static void close_cgroups(struct at_sb_cg *cg)
{
	int k;

	for (k = 0; k < cg->n; k++) {
		if (cg->fd[k] >= 0)
			close(cg->fd[k]);
		cg->fd[k] = -1;
	}
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

		if (op->kind == OP_CGROUP && open_cgroups(host, &c->cg, what) < 0) {
			c->failed_op = (int)i;
			close(host);
			return -1;
		}
		if (op->kind == OP_OVERLAY && open_overlay(host, op, what) < 0) {
			c->failed_op = (int)i;
			close(host);
			return -1;
		}
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
	*step = AT_STEP_PRIVATE;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return -1;
	*step = AT_STEP_SOURCE;
	if (open_sources(c, what) < 0)
		return -1;

	*step = AT_STEP_ROOT;
	b.cg = &c->cg;
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
			close_cgroups(&c->cg);
			if (b.dir_fd >= 0)
				close(b.dir_fd);
			close(b.rootfd);
			return -1;
		}
		if (op->src_fd >= 0) {
			close(op->src_fd);
			op->src_fd = -1;
		}
		if (op->upper_fd >= 0) {
			close(op->upper_fd);
			op->upper_fd = -1;
		}
		if (op->work_fd >= 0) {
			close(op->work_fd);
			op->work_fd = -1;
		}
	}
	if (b.dir_fd >= 0)
		close(b.dir_fd);
	close_cgroups(&c->cg);
	*what = NULL;
	return b.rootfd;
}

int at_sb_pivot(int rootfd, const char *cwd, int *step, const char **what)
{
	/* pivot_root(".", "."): the old root ends up stacked on the new one
	 * and is detached at once, so nothing of the host stays reachable. */
	*step = AT_STEP_PIVOT;
	*what = NULL;
	if (fchdir(rootfd) < 0 || syscall(SYS_pivot_root, ".", ".") < 0 ||
	    umount2(".", MNT_DETACH) < 0 || chdir("/") < 0) {
		close(rootfd);
		return -1;
	}
	close(rootfd);

	*step = AT_STEP_CHDIR;
	*what = cwd;
	if (chdir(cwd) < 0)
		return -1;
	*what = NULL;
	return 0;
}
