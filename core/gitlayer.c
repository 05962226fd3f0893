/*
 * gitlayer.c - the task's git view read from the host (gitlayer.h): an
 * overlay's lookup done by hand, over descriptors, and the few text formats
 * the import needs (a ref file, packed-refs).
 */
#include "core/gitlayer.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "core/fs.h"
#include "core/util.h"

#define SYMREF_DEPTH 5

bool at_layer_is_whiteout(const struct stat *st)
{
	return S_ISCHR(st->st_mode) && st->st_rdev == makedev(0, 0);
}

bool at_layer_is_opaque(int dirfd)
{
	char v[4];
	ssize_t n = fgetxattr(dirfd, "user.overlay.opaque", v, sizeof(v));

	if (n < 0)
		n = fgetxattr(dirfd, "trusted.overlay.opaque", v, sizeof(v));
	return n == 1 && v[0] == 'y';
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/*
 * The entry name in the layer directory dir: -1 for none, else a descriptor
 * (a directory when want_dir, else a regular file opened for reading).
 * *hidden is set when the entry is a whiteout. A directory where a file is
 * wanted (or the reverse) counts as none: overlayfs shows the upper's.
 */
static int open_entry(int dir, const char *name, bool want_dir, bool *hidden, bool *bad)
{
	struct stat st;
	int fd;

	*hidden = false;
	if (dir < 0)
		return -1;
	if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -1;
	if (at_layer_is_whiteout(&st)) {
		*hidden = true;
		return -1;
	}
	if (want_dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode)) {
		/* In the upper it replaces the lower entry all the same. */
		*hidden = true;
		*bad = !want_dir;
		return -1;
	}
	fd = at_open_beneath(dir, name, want_dir ? O_RDONLY | O_DIRECTORY
						 : O_RDONLY | O_NONBLOCK | O_NOFOLLOW);
	if (fd >= 0 && fstat(fd, &st) == 0 && (want_dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode)))
		return fd;
	if (fd >= 0)
		close(fd);
	*bad = !want_dir;
	return -1;
}

static int read_fd(int fd, size_t max, char **out, size_t *len, const char *rel,
		   struct at_error *err)
{
	if ((*out = at_read_fd(fd, max, len)))
		return 0;
	if (errno == EFBIG)
		return at_error_set(err, AT_ECORRUPT, "'%s' of the task's git is too large (at "
				    "most %zu bytes)", rel, max);
	return at_error_sys(err, AT_ESYS, "cannot read '%s' of the task's git", rel);
}

/* One step down both layers: each descriptor replaced by its child name's (or -1). */
static void descend(int *upper, int *lower, const char *name)
{
	bool hidden = false, bad = false;
	int u = open_entry(*upper, name, true, &hidden, &bad), l;

	l = hidden || (u >= 0 && at_layer_is_opaque(u)) ? -1 : open_entry(*lower, name, true, &hidden, &bad);
	close_fd(upper);
	close_fd(lower);
	*upper = u;
	*lower = l;
}

/*
 * rel as a regular file of one layer: one resolution of its directory
 * beneath the layer (no link followed), and a look at its type before it
 * is opened (a FIFO or a device never is). -1 when it is not one.
 */
static int layer_file(int layer, const char *rel)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(rel, '/'), *name = slash ? slash + 1 : rel;
	struct stat st;
	int dfd, fd = -1;

	if (slash && at_fmt(dir, sizeof(dir), "%.*s", (int)(slash - rel), rel) < 0)
		return -1;
	dfd = slash ? at_open_beneath(layer, dir, O_PATH | O_DIRECTORY) : layer;
	if (dfd >= 0 && fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
		fd = openat(dfd, name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	if (slash && dfd >= 0)
		close(dfd);
	if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)))
		close_fd(&fd);
	return fd;
}

/*
 * The two common cases, decided without the lookup by layers: rel a
 * regular file of the upper, which overlayfs shows whatever the lower
 * holds; or the upper without rel's first component, so that nothing of
 * it (a whiteout, an opaque directory) can hide the lower's rel. -1:
 * neither, and the lookup by layers decides.
 */
static int quick_file(const struct at_gitlayer *g, const char *rel)
{
	char first[NAME_MAX + 1];
	const char *slash = strchr(rel, '/');
	size_t n = slash ? (size_t)(slash - rel) : strlen(rel);
	struct stat st;
	int fd = layer_file(g->upper, rel);

	if (fd >= 0 || g->lower < 0 || n == 0 || n > NAME_MAX)
		return fd;
	memcpy(first, rel, n);
	first[n] = '\0';
	if (fstatat(g->upper, first, &st, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT)
		return -1;
	return layer_file(g->lower, rel);
}

int at_gitlayer_open(const struct at_gitlayer *g, const char *rel, int *fd_out)
{
	char path[PATH_MAX], *name, *slash;
	int upper, lower, fd = -1;
	bool hidden = false, bad = false;

	if (g->upper >= 0 && (fd = quick_file(g, rel)) >= 0) {
		*fd_out = fd;
		return 0;
	}
	upper = g->upper >= 0 ? fcntl(g->upper, F_DUPFD_CLOEXEC, 0) : -1;
	lower = g->lower >= 0 ? fcntl(g->lower, F_DUPFD_CLOEXEC, 0) : -1;
	if (at_fmt(path, sizeof(path), "%s", rel) < 0 || upper < 0) {
		close_fd(&upper);
		close_fd(&lower);
		errno = ENAMETOOLONG;
		return -1;
	}
	for (name = path; (slash = strchr(name, '/')) && (upper >= 0 || lower >= 0);
	     name = slash + 1) {
		*slash = '\0';
		descend(&upper, &lower, name);
	}
	if (!slash) {
		fd = open_entry(upper, name, false, &hidden, &bad);
		if (fd < 0 && !hidden && !bad)
			fd = open_entry(lower, name, false, &hidden, &bad);
	}
	close_fd(&upper);
	close_fd(&lower);
	if (bad)
		return 2;
	if (fd < 0)
		return 1;
	*fd_out = fd;
	return 0;
}

bool at_gitlayer_is_dir(const struct at_gitlayer *g, const char *rel)
{
	char path[PATH_MAX], *name, *slash;
	int upper, lower;
	bool found;

	if (at_fmt(path, sizeof(path), "%s", rel) < 0)
		return false;
	upper = g->upper >= 0 ? fcntl(g->upper, F_DUPFD_CLOEXEC, 0) : -1;
	lower = g->lower >= 0 ? fcntl(g->lower, F_DUPFD_CLOEXEC, 0) : -1;
	for (name = path; *name && (upper >= 0 || lower >= 0); name = slash + 1) {
		if ((slash = strchr(name, '/')))
			*slash = '\0';
		descend(&upper, &lower, name);
		if (!slash)
			break;
	}
	found = upper >= 0 || lower >= 0;
	close_fd(&upper);
	close_fd(&lower);
	return found;
}

int at_gitlayer_read(const struct at_gitlayer *g, const char *rel, size_t max, char **out,
		     size_t *len, struct at_error *err)
{
	int fd = -1, rc = at_gitlayer_open(g, rel, &fd);

	if (rc < 0)
		return at_error_set(err, AT_ESYS, "cannot open '%s' of the task's git", rel);
	if (rc == 2)
		return at_error_set(err, AT_ECORRUPT, "'%s' of the task's git is not a regular file",
				    rel);
	if (rc == 1)
		return 1;
	rc = read_fd(fd, max, out, len, rel, err);
	close(fd);
	return rc;
}

static bool is_hex(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

int at_gitlayer_parse_ref(char *text, size_t len, struct at_oid *oid, const char **target)
{
	*target = NULL;
	if (len > 0 && text[len - 1] == '\n')
		text[--len] = '\0';
	if (memchr(text, '\0', len) || memchr(text, '\n', len))
		return -1;
	if (len > 5 && strncmp(text, "ref: ", 5) == 0) {
		*target = text + 5;
		return at_gitlayer_refname_ok(*target) ? 0 : -1;
	}
	if (len != AT_OID_HEXSZ || !is_hex(text, len))
		return -1;
	return at_oid_parse(oid, text) == 0 ? 0 : -1;
}

int at_gitlayer_refname_ok(const char *name)
{
	size_t n = strlen(name), i;
	const char *comp;

	if (strncmp(name, "refs/", 5) != 0 || n > 1024 || name[n - 1] == '/' ||
	    name[n - 1] == '.' || strstr(name, "..") || strstr(name, "//") ||
	    strstr(name, "@{") || strstr(name, "/."))
		return 0;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)name[i];

		if (c < 0x20 || c == 0x7f || strchr(" ~^:?*[\\", c))
			return 0;
	}
	for (comp = name; comp; comp = strchr(comp, '/') ? strchr(comp, '/') + 1 : NULL) {
		const char *end = strchr(comp, '/');
		size_t clen = end ? (size_t)(end - comp) : strlen(comp);

		if (clen >= 5 && strncmp(comp + clen - 5, ".lock", 5) == 0)
			return 0;
	}
	return 1;
}

int at_gitlayer_packed_lookup(const char *text, size_t len, const char *refname,
			      struct at_oid *out)
{
	size_t rlen = strlen(refname), pos = 0;

	while (pos < len) {
		const char *line = text + pos, *nl = memchr(line, '\n', len - pos);
		size_t llen = nl ? (size_t)(nl - line) : len - pos;
		char hex[AT_OID_HEXSZ + 1];

		pos += llen + 1;
		if (llen == 0 || line[0] == '#' || line[0] == '^')
			continue;
		if (llen < AT_OID_HEXSZ + 2 || line[AT_OID_HEXSZ] != ' ' ||
		    !is_hex(line, AT_OID_HEXSZ))
			return -1;
		if (llen - AT_OID_HEXSZ - 1 != rlen ||
		    memcmp(line + AT_OID_HEXSZ + 1, refname, rlen) != 0)
			continue;
		memcpy(hex, line, AT_OID_HEXSZ);
		hex[AT_OID_HEXSZ] = '\0';
		return at_oid_parse(out, hex) == 0 ? 0 : -1;
	}
	return 1;
}

size_t at_gitlayer_packed_drop(char *text, size_t len, const char *prefix)
{
	size_t plen = strlen(prefix), in = 0, out = 0;
	bool dropping = false;

	while (in < len) {
		const char *line = text + in, *nl = memchr(line, '\n', len - in);
		size_t llen = nl ? (size_t)(nl - line) + 1 : len - in;

		in += llen;
		if (line[0] != '^')
			dropping = llen > AT_OID_HEXSZ + 1 + plen && line[AT_OID_HEXSZ] == ' ' &&
				   memcmp(line + AT_OID_HEXSZ + 1, prefix, plen) == 0;
		if (dropping)
			continue;
		memmove(text + out, line, llen);
		out += llen;
	}
	return out;
}

/* Per-worktree refs live in the admin dir, the others in the common dir. */
static bool per_worktree(const char *ref)
{
	return strncmp(ref, "refs/worktree/", 14) == 0 || strncmp(ref, "refs/bisect/", 12) == 0 ||
	       strncmp(ref, "refs/rewritten/", 15) == 0;
}

static int resolve_packed(const struct at_gitlayer *g, const char *ref, struct at_oid *out,
			  struct at_error *err)
{
	AT_AUTOFREE char *text = NULL;
	size_t len = 0;
	int rc = at_gitlayer_read(g, "packed-refs", AT_GITLAYER_PACKED_MAX, &text, &len, err);

	if (rc != 0)
		return rc;
	rc = at_gitlayer_packed_lookup(text, len, ref, out);
	if (rc < 0)
		return at_error_set(err, AT_ECORRUPT, "the task's packed-refs is malformed");
	return rc;
}

int at_gitlayer_head(const struct at_gitlayer *g, const char *admin_rel, struct at_oid *out,
		     char *ref_out, size_t ref_size, struct at_error *err)
{
	char rel[PATH_MAX], name[1100] = "HEAD";
	int depth, rc;

	ref_out[0] = '\0';
	for (depth = 0; depth <= SYMREF_DEPTH; depth++) {
		AT_AUTOFREE char *text = NULL;
		const char *target = NULL;
		size_t len = 0;
		bool admin = depth == 0 || per_worktree(name);

		if (at_fmt(rel, sizeof(rel), "%s%s%s", admin ? admin_rel : "", admin ? "/" : "",
			   name) < 0)
			return at_error_set(err, AT_ECORRUPT, "the task's ref '%s' is too long", name);
		rc = at_gitlayer_read(g, rel, AT_GITLAYER_FILE_MAX, &text, &len, err);
		if (rc == 1 && depth > 0 && !admin)
			rc = resolve_packed(g, name, out, err);
		if (rc == 1)
			return depth == 0 ? at_error_set(err, AT_ECORRUPT, "the task's HEAD is "
							 "missing") : 1;
		if (rc != 0 || !text)
			return rc;
		if (at_gitlayer_parse_ref(text, len, out, &target) < 0)
			return at_error_set(err, AT_ECORRUPT, "the task's %s is malformed",
					    depth == 0 ? "HEAD" : "ref");
		if (!target)
			return 0;
		if (at_fmt(name, sizeof(name), "%s", target) < 0 ||
		    at_fmt(ref_out, ref_size, "%s", target) < 0)
			return at_error_set(err, AT_ECORRUPT, "the task's ref name is too long");
	}
	return at_error_set(err, AT_ECORRUPT, "the task's HEAD: symbolic refs nested too deep");
}
