/*
 * etc.c - /etc and /sys as an ordinary user of the host sees them.
 *
 * /etc is the host's, bound read-only whole, so that any tool finds the
 * world-readable files it looks for (javac's /etc/java-17-openjdk, say),
 * with every entry that is not world-readable covered: a file by an empty
 * one, a directory by an empty read-only tmpfs (shadow, gshadow, sudoers,
 * ssh host keys, NetworkManager connections, ssl/private, ...). The test is
 * the mode bits alone, because root inside the sandbox is uid 0 of the host
 * when agenttask runs as root, and would read what its owner may. Devices,
 * fifos and sockets are covered too. Symbolic links are left as they are:
 * what they lead to inside /etc is judged where it is; a top-level link out
 * of /etc and /usr (resolv.conf -> /run/...) gets its target bound, read-only,
 * where it points, when that is a world-readable file. passwd and group are
 * the run's own (identity.c). /etc belongs to the host's administrator, not
 * the agent: walking it here is safe. /etc/gitconfig is covered too, as
 * before: git inside reads the sanitized config alone (the repository's
 * settings that run programs or hold credentials stay out).
 *
 * /sys: an empty read-only tmpfs with the CPU and memory topology only
 * (devices/system/cpu, memory and node), for lscpu, nproc and runtimes sizing
 * their thread pools; no device tree, no firmware, no kernel knobs.
 */
#include "sandbox/internal.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Deeper than anything /etc holds; a loop cannot happen (no link is followed). */
#define ETC_DEPTH 12
#define HIDDEN_DIR_SIZE ((uint64_t)4096)

static bool world_readable(const struct stat *st)
{
	if (S_ISDIR(st->st_mode))
		return (st->st_mode & (S_IROTH | S_IXOTH)) == (S_IROTH | S_IXOTH);
	return S_ISREG(st->st_mode) && (st->st_mode & S_IROTH);
}

/*
 * What the walk found, as strings that say what to mount: "d/etc/x" an
 * empty read-only tmpfs over a directory, "f/etc/x" an empty file over
 * another entry, "l/run/x" a link's target bound read-only where it is.
 */
struct at_sandbox_etc {
	struct at_strlist found;
	bool failed;        /* out of memory: the spec is refused */
	bool threaded;      /* a thread walks; joined once */
	bool walked;        /* the walk is over */
	bool opened;        /* and /etc was there to walk */
	pthread_t thread;
};

static void note(struct at_sandbox_etc *e, char kind, const char *path)
{
	if (at_strlist_pushf(&e->found, "%c%s", kind, path) < 0)
		e->failed = true;
}

/* A top-level link that leads out of /etc and /usr: its target, where it points. */
static void link_target(struct at_sandbox_etc *e, const char *path)
{
	char real[PATH_MAX];
	struct stat st;

	if (!realpath(path, real) || strncmp(real, "/etc/", 5) == 0 ||
	    strncmp(real, "/usr/", 5) == 0 || strncmp(real, "/proc/", 6) == 0 ||
	    stat(real, &st) < 0 || !S_ISREG(st.st_mode) || !(st.st_mode & S_IROTH))
		return;
	note(e, 'l', real);
}

static void walk(struct at_sandbox_etc *e, int dfd, const char *dir, int depth);

/*
 * One entry of a directory of /etc. Most of /etc is links (alternatives,
 * ssl/certs), and below the top they are left as they are: the type that
 * getdents gives spares them the lookup of a stat. A directory is opened
 * first and judged by its descriptor, one lookup where a stat and an open
 * would be two. Those lookups were most of a run's start-up CPU.
 */
static void entry(struct at_sandbox_etc *e, int dfd, const char *dir, const char *name,
		  unsigned char type, int depth)
{
	char path[PATH_MAX];
	struct stat st;
	int fd = -1;

	if ((depth > 0 && type == DT_LNK) ||
	    snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return;
	if (type == DT_DIR)
		fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 ? fstat(fd, &st) < 0 : fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		goto out;
	if (S_ISLNK(st.st_mode)) {
		if (depth == 0)
			link_target(e, path);
	} else if (!world_readable(&st) || (depth == 0 && strcmp(name, "gitconfig") == 0)) {
		note(e, S_ISDIR(st.st_mode) ? 'd' : 'f', path);
	} else if (S_ISDIR(st.st_mode) && depth < ETC_DEPTH) {
		if (fd < 0)
			fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0)
			walk(e, fd, path, depth + 1);
		else
			note(e, 'd', path);   /* unseen, so hidden */
		fd = -1;   /* walk closed it */
	}
out:
	if (fd >= 0)
		close(fd);
}

/* Every entry of the directory open at dfd, which is closed after. */
static void walk(struct at_sandbox_etc *e, int dfd, const char *dir, int depth)
{
	char buf[8192] __attribute__((aligned(8)));
	ssize_t n, off;

	while ((n = getdents64(dfd, buf, sizeof(buf))) > 0) {
		for (off = 0; off < n;) {
			const struct dirent64 *de = (const struct dirent64 *)(buf + off);

			off += de->d_reclen;
			if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
				entry(e, dfd, dir, de->d_name, de->d_type, depth);
		}
	}
	if (n < 0)
		note(e, 'd', dir);   /* not listed to the end: hidden whole */
	close(dfd);
}

static void *walk_etc(void *arg)
{
	struct at_sandbox_etc *e = arg;
	int fd = open("/etc", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	e->opened = fd >= 0;
	if (fd >= 0)
		walk(e, fd, "/etc", 0);
	e->walked = true;
	return NULL;
}

struct at_sandbox_etc *at_sandbox_etc_start(void)
{
	struct at_sandbox_etc *e = calloc(1, sizeof(*e));

	if (e && pthread_create(&e->thread, NULL, walk_etc, e) == 0)
		e->threaded = true;
	return e;
}

static void join(struct at_sandbox_etc *e)
{
	if (e->threaded)
		pthread_join(e->thread, NULL);
	e->threaded = false;
}

void at_sandbox_etc_free(struct at_sandbox_etc *e)
{
	if (!e)
		return;
	join(e);
	at_strlist_release(&e->found);
	free(e);
}

/* The walk's findings as mounts: the caller's early one (joined), else one walked now. */
void at_sb_add_etc(struct at_sandbox_spec *s)
{
	struct at_sandbox_etc own = { .found = AT_STRLIST_INIT }, *e = s->etc ? s->etc : &own;
	size_t i;

	join(e);
	if (!e->walked)
		walk_etc(e);
	if (e->opened)
		at_sandbox_bind(s, "/etc", "/etc", AT_MOUNT_RO);
	for (i = 0; i < e->found.n; i++) {
		const char *path = e->found.v[i] + 1;

		switch (e->found.v[i][0]) {
		case 'd':
			at_sandbox_tmpfs(s, path, HIDDEN_DIR_SIZE, 0755);
			at_sandbox_remount_ro(s, path);
			break;
		case 'f':
			at_sandbox_bind_data(s, path, "", 0);
			break;
		default:
			at_sandbox_bind(s, path, path, AT_MOUNT_RO);
		}
	}
	if (e->failed)
		s->failed = true;
	if (e == &own)
		at_strlist_release(&own.found);
}

void at_sb_add_sys(struct at_sandbox_spec *s)
{
	static const char *const topology[] = { "/sys/devices/system/cpu",
						"/sys/devices/system/memory",
						"/sys/devices/system/node" };
	size_t i;

	at_sandbox_tmpfs(s, "/sys", HIDDEN_DIR_SIZE, 0755);
	for (i = 0; i < sizeof(topology) / sizeof(topology[0]); i++)
		at_sandbox_bind(s, topology[i], topology[i], AT_MOUNT_RO | AT_MOUNT_OPTIONAL);
	at_sandbox_remount_ro(s, "/sys");
}
