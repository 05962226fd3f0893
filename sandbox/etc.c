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
 * their thread pools; no device tree, no firmware, no kernel knobs; and at
 * /sys/fs/cgroup the run's own cgroup, read-only, where it has one
 * (AT_MOUNT_CGROUP), for runtimes that read their memory and CPU limits.
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
#include <time.h>
#include <unistd.h>

#include "core/array.h"
#include "core/util.h"

/* Deeper than anything /etc holds; a loop cannot happen (no link is followed). */
#define ETC_DEPTH 12
#define HIDDEN_DIR_SIZE ((uint64_t)4096)
#define CACHE_MAX ((size_t)8 << 20)
#define CACHE_MAGIC "agenttask etc listings 1"
/* A directory changed this close to its listing may change again unseen (coarse clocks). */
#define RACY_NS ((int64_t)2000000000)

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
	char root[PATH_MAX];  /* "/etc"; another tree in the unit tests */
	char *cache;          /* the listings' file; NULL: none */
	struct at_strlist found;
	bool failed;        /* out of memory: the spec is refused */
	bool threaded;      /* a thread walks; joined once */
	bool walked;        /* the walk is over */
	bool opened;        /* and /etc was there to walk */
	size_t listed;      /* directories listed anew, not from the cache */
	pthread_t thread;
};

/*
 * The listings of the last walk (at_sandbox_etc_start has the why). The
 * file is NUL-separated records: the magic, then for each directory walked
 * "D<dev> <ino> <mtime s> <ns> <ctime s> <ns> <racy> <path>" and its
 * entries, "<type><name>" each (type: d, f, l, or o for any other), ended
 * by an empty record. A file that does not parse is no cache.
 */
struct listing {
	const char *path, *entries;   /* into the file's text */
	unsigned long long dev, ino;
	long long mtime, mtime_ns, ctime, ctime_ns;
	int racy;
};

/* A growing byte buffer; p NULL once out of memory (failed). */
struct buf {
	char *p;
	size_t len, cap;
	bool failed;
};

struct walk {
	struct at_sandbox_etc *e;
	char *text;                   /* the cache file read */
	struct listing *old;
	size_t nold, next;            /* next: where the walk's order says to look */
	struct buf out;               /* the new file */
	size_t nnew;
	bool changed;
	int64_t start_ns;             /* CLOCK_REALTIME when the walk began */
};

static void note(struct at_sandbox_etc *e, char kind, const char *path)
{
	if (at_strlist_pushf(&e->found, "%c%s", kind, path) < 0)
		e->failed = true;
}

static void put(struct buf *b, const void *p, size_t n)
{
	if (b->failed)
		return;
	if (AT_ARRAY_GROW(b->p, b->cap, b->len + n) < 0) {
		free(b->p);
		*b = (struct buf){ .failed = true };
		return;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static bool entry_ok(const char *r)
{
	const char *name = r + 1;

	return strchr("dflo", r[0]) && name[0] && !strchr(name, '/') && strcmp(name, ".") != 0 &&
	       strcmp(name, "..") != 0;
}

/*
 * The next number of a record's head at *p, then one space: digits, with a
 * '-' first where sign (the times may be before 1970). sscanf() took a
 * third of a run's instructions here. false: not a number so written.
 */
static bool field(const char **p, bool sign, bool *neg, unsigned long long *out)
{
	const char *s = *p;
	unsigned long long v = 0;
	unsigned d;

	*neg = sign && *s == '-';
	s += *neg;
	if (*s < '0' || *s > '9')
		return false;
	for (; *s >= '0' && *s <= '9'; s++) {
		d = (unsigned)(*s - '0');
		if (v > (ULLONG_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	/* A time is a long long: at most LLONG_MAX either way (one less than its least). */
	if (*s != ' ' || (sign && v > (unsigned long long)LLONG_MAX))
		return false;
	*out = v;
	*p = s + 1;
	return true;
}

/* "D<dev> <ino> <mtime s> <ns> <ctime s> <ns> <racy> <path>" into l; false: not a head. */
static bool head(const char *p, struct listing *l)
{
	unsigned long long v[7];
	long long t[4];
	bool neg;
	int i;

	if (*p++ != 'D')
		return false;
	for (i = 0; i < 7; i++) {
		if (!field(&p, i >= 2 && i <= 5, &neg, &v[i]))
			return false;
		if (i >= 2 && i <= 5)
			t[i - 2] = neg ? -(long long)v[i] : (long long)v[i];
	}
	if (*p != '/' || v[6] > 1)
		return false;
	l->dev = v[0];
	l->ino = v[1];
	l->mtime = t[0];
	l->mtime_ns = t[1];
	l->ctime = t[2];
	l->ctime_ns = t[3];
	l->racy = (int)v[6];
	l->path = p;
	return true;
}

/* The file's listings, or none: every record checked before one is used. */
static void load(struct walk *w)
{
	size_t len = 0, n = 0, cap = 0;
	char *p, *end;

	if (!w->e->cache || !(w->text = at_read_file(w->e->cache, CACHE_MAX, &len)) ||
	    len < sizeof(CACHE_MAGIC) || memcmp(w->text, CACHE_MAGIC, sizeof(CACHE_MAGIC)) != 0 ||
	    w->text[len - 1] != '\0')
		return;
	for (p = w->text + sizeof(CACHE_MAGIC), end = w->text + len; p < end;) {
		struct listing l;

		if (!head(p, &l))
			goto bad;
		for (p += strlen(p) + 1, l.entries = p; p < end && *p; p += strlen(p) + 1)
			if (!entry_ok(p))
				goto bad;
		if (p >= end)
			goto bad;
		p++;   /* the empty record */
		if (AT_ARRAY_GROW(w->old, cap, n + 1) < 0)
			goto bad;
		w->old[n++] = l;
	}
	w->nold = n;
	return;
bad:
	free(w->old);
	w->old = NULL;
	w->nold = 0;
}

static int64_t ns(long long s, long long n)
{
	return (int64_t)s * 1000000000 + n;
}

/*
 * The cached entries of dir, if its listing still holds: the same
 * directory (device and inode), unchanged since (mtime and ctime: an entry
 * made, removed or renamed changes both, and touch cannot set a ctime), and
 * not changed so close to its listing that a later change could keep the
 * same times. NULL otherwise.
 */
static const char *cached(struct walk *w, const char *dir, const struct stat *st)
{
	size_t i, k;

	for (k = 0; k < w->nold; k++) {
		i = (w->next + k) % w->nold;
		if (strcmp(w->old[i].path, dir) != 0)
			continue;
		w->next = i + 1;
		if (w->old[i].racy || w->old[i].dev != (unsigned long long)st->st_dev ||
		    w->old[i].ino != (unsigned long long)st->st_ino ||
		    ns(w->old[i].mtime, w->old[i].mtime_ns) !=
			    ns(st->st_mtim.tv_sec, st->st_mtim.tv_nsec) ||
		    ns(w->old[i].ctime, w->old[i].ctime_ns) !=
			    ns(st->st_ctim.tv_sec, st->st_ctim.tv_nsec))
			return NULL;
		return w->old[i].entries;
	}
	return NULL;
}

static char type_of(unsigned char d_type)
{
	return d_type == DT_DIR ? 'd' : d_type == DT_REG ? 'f' : d_type == DT_LNK ? 'l' : 'o';
}

/* dir's entries listed now, in the cache's form; NULL when it cannot be listed to the end. */
static char *list(const char *dir)
{
	char buf[8192] __attribute__((aligned(8)));
	struct buf b = { 0 };
	ssize_t n, off;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	while ((n = getdents64(fd, buf, sizeof(buf))) > 0) {
		for (off = 0; off < n;) {
			const struct dirent64 *de = (const struct dirent64 *)(buf + off);
			/* DT_UNKNOWN is 'o': stat'ed like every entry but a link below the top */
			char t = type_of(de->d_type);

			off += de->d_reclen;
			if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
				continue;
			put(&b, &t, 1);
			put(&b, de->d_name, strlen(de->d_name) + 1);
		}
	}
	close(fd);
	put(&b, "", 1);
	if (n < 0 || b.failed) {
		free(b.p);
		return NULL;
	}
	return b.p;
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

static void walk_dir(struct walk *w, const char *dir, const struct stat *st, int depth);

/*
 * One entry of a directory of /etc, judged by its mode now, whether its
 * directory's listing was cached or not. Most of /etc is links
 * (alternatives, ssl/certs), and below the top they are left as they are:
 * the type of the listing spares them a stat.
 */
static void entry(struct walk *w, const char *dir, char type, const char *name, int depth)
{
	char path[PATH_MAX];
	struct stat st;

	size_t dn = strlen(dir), nn = strlen(name);

	/* Joined by hand: snprintf() was a quarter of a run's instructions, here and in keep(). */
	if ((depth > 0 && type == 'l') || dn + 1 + nn >= sizeof(path))
		return;
	memcpy(path, dir, dn);
	path[dn] = '/';
	memcpy(path + dn + 1, name, nn + 1);
	if (fstatat(AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return;
	if (S_ISLNK(st.st_mode)) {
		if (depth == 0)
			link_target(w->e, path);
	} else if (!world_readable(&st) || (depth == 0 && strcmp(name, "gitconfig") == 0)) {
		note(w->e, S_ISDIR(st.st_mode) ? 'd' : 'f', path);
	} else if (S_ISDIR(st.st_mode) && depth < ETC_DEPTH) {
		walk_dir(w, path, &st, depth + 1);
	}
}

/* u in decimal, after a '-' when neg, then c, at p; p past them. */
static char *unum(char *p, bool neg, unsigned long long u, char c)
{
	char tmp[24];
	size_t n = 0;

	do
		tmp[n++] = (char)('0' + u % 10);
	while ((u /= 10) > 0);
	if (neg)
		*p++ = '-';
	while (n > 0)
		*p++ = tmp[--n];
	*p++ = c;
	return p;
}

static char *num(char *p, long long v, char c)
{
	return unum(p, v < 0, v < 0 ? 0 - (unsigned long long)v : (unsigned long long)v, c);
}

/* Record dir's listing in the new file, racy when it changed just before the walk. */
static void keep(struct walk *w, const char *dir, const struct stat *st, const char *entries)
{
	char head[PATH_MAX + 160], *h = head;
	const char *p = entries;
	size_t dn = strlen(dir);

	while (*p)
		p += strlen(p) + 1;
	if (dn >= PATH_MAX)
		return;
	/* "D<dev> <ino> <mtime s> <ns> <ctime s> <ns> <racy> <path>", as head() reads it. */
	*h++ = 'D';
	h = unum(h, false, (unsigned long long)st->st_dev, ' ');
	h = unum(h, false, (unsigned long long)st->st_ino, ' ');
	h = num(h, (long long)st->st_mtim.tv_sec, ' ');
	h = num(h, (long long)st->st_mtim.tv_nsec, ' ');
	h = num(h, (long long)st->st_ctim.tv_sec, ' ');
	h = num(h, (long long)st->st_ctim.tv_nsec, ' ');
	h = num(h, ns(st->st_ctim.tv_sec, st->st_ctim.tv_nsec) >= w->start_ns - RACY_NS, ' ');
	memcpy(h, dir, dn + 1);
	put(&w->out, head, (size_t)(h - head) + dn + 1);
	put(&w->out, entries, (size_t)(p - entries) + 1);
	w->nnew++;
}

/* Every entry of dir (a directory the walk may enter; st its stat). */
static void walk_dir(struct walk *w, const char *dir, const struct stat *st, int depth)
{
	const char *entries = cached(w, dir, st), *p;
	char *own = NULL;

	if (!entries) {
		if (!(entries = own = list(dir))) {
			note(w->e, 'd', dir);   /* unseen, or not listed to the end: hidden whole */
			return;
		}
		w->changed = true;
		w->e->listed++;
	}
	keep(w, dir, st, entries);
	for (p = entries; *p; p += strlen(p) + 1)
		entry(w, dir, p[0], p + 1, depth);
	free(own);
}

static void *walk_etc(void *arg)
{
	struct at_sandbox_etc *e = arg;
	struct walk w = { .e = e };
	struct timespec now;
	struct stat st;

	clock_gettime(CLOCK_REALTIME, &now);
	w.start_ns = ns(now.tv_sec, now.tv_nsec);
	load(&w);
	put(&w.out, CACHE_MAGIC, sizeof(CACHE_MAGIC));
	e->opened = lstat(e->root, &st) == 0 && S_ISDIR(st.st_mode);
	if (e->opened)
		walk_dir(&w, e->root, &st, 0);
	if (e->cache && !w.out.failed && (w.changed || w.nnew != w.nold))
		(void)at_write_replace(e->cache, w.out.p, w.out.len, 0600);
	free(w.out.p);
	free(w.old);
	free(w.text);
	e->walked = true;
	return NULL;
}

struct at_sandbox_etc *at_sb_etc_start_at(const char *root, const char *cache)
{
	struct at_sandbox_etc *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	if (at_fmt(e->root, sizeof(e->root), "%s", root) < 0 ||
	    (cache && !(e->cache = strdup(cache)))) {
		free(e);
		return NULL;
	}
	if (pthread_create(&e->thread, NULL, walk_etc, e) == 0)
		e->threaded = true;
	return e;
}

struct at_sandbox_etc *at_sandbox_etc_start(const char *cache)
{
	return at_sb_etc_start_at("/etc", cache);
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
	free(e->cache);
	free(e);
}

const struct at_strlist *at_sb_etc_found(struct at_sandbox_etc *e, size_t *listed)
{
	join(e);
	if (!e->walked)
		walk_etc(e);
	*listed = e->listed;
	return &e->found;
}

/* The walk's findings as mounts: the caller's early one (joined), else one walked now. */
void at_sb_add_etc(struct at_sandbox_spec *s)
{
	struct at_sandbox_etc own = { .root = "/etc", .found = AT_STRLIST_INIT };
	struct at_sandbox_etc *e = s->proc.etc ? s->proc.etc : &own;
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
	/* Before /sys is read-only: its mount point is made in the tmpfs. */
	at_sandbox_cgroup(s, "/sys/fs/cgroup");
	at_sandbox_remount_ro(s, "/sys");
}
