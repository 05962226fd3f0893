/*
 * gitlayer.h - reading a task's git view from the host: the overlay's upper
 * directory (everything git wrote inside the sandbox, attacker's bytes) over
 * the repository's common dir, as the overlay inside showed them.
 *
 * Only what the import needs is read: the worktree's HEAD, one ref (loose,
 * or in packed-refs), each a small text file. Every file is opened with
 * openat2 (no link followed anywhere, no escape from the layer), must be a
 * regular file (a fifo or a device is never opened for reading: O_NONBLOCK,
 * then fstat), and is read up to a bound. overlayfs's own markers in the
 * upper are honoured: a whiteout (a 0:0 character device) hides the lower
 * file, an opaque directory (the user.overlay.opaque xattr) the lower
 * directory. Nothing here is trusted beyond its syntax: the commit it names
 * is validated by the import before anything on the host follows it.
 */
#ifndef AT_CORE_GITLAYER_H
#define AT_CORE_GITLAYER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "core/error.h"
#include "core/oid.h"

#define AT_GITLAYER_FILE_MAX ((size_t)1 << 16)      /* HEAD, a loose ref */
#define AT_GITLAYER_PACKED_MAX ((size_t)64 << 20)   /* packed-refs */

struct at_gitlayer {
	int upper;   /* O_RDONLY | O_DIRECTORY descriptors */
	int lower;
};

/*
 * The file at rel (relative, normalised) as the overlay shows it: its whole
 * content, NUL-terminated, in *out (malloc'd), at most max bytes. 0; 1 when
 * there is no such file (absent, whited out, hidden by an opaque
 * directory); AT_ECORRUPT when it is not a regular file or is too large;
 * AT_ESYS on another failure.
 */
int at_gitlayer_read(const struct at_gitlayer *g, const char *rel, size_t max, char **out,
		     size_t *len, struct at_error *err);

/*
 * The same lookup, the file opened (O_RDONLY | O_NONBLOCK, checked to be a
 * regular file) into *fd_out: 0; 1 when there is no such file; 2 when it is
 * not a regular file (a link, a directory, a FIFO, a device); -1 with errno
 * on another failure. Also for a layered task's files (app/files.c).
 */
int at_gitlayer_open(const struct at_gitlayer *g, const char *rel, int *fd_out);
/*
 * rel (relative, normalised; "" the top) a directory as the overlay shows
 * it, reached with no link followed in either layer? (A layered task's
 * `run --cwd`: app/run.c.)
 */
bool at_gitlayer_is_dir(const struct at_gitlayer *g, const char *rel);

/*
 * The commit the worktree's HEAD names: admin_rel is the admin dir relative
 * to the common dir ("worktrees/NAME"). HEAD is either an object id or
 * "ref: REFNAME" (followed, at most five deep, through loose refs then
 * packed-refs). *ref_out gets the branch HEAD is on ("" when detached).
 * 0; 1 when HEAD names a branch that does not exist (unborn); AT_ECORRUPT
 * for anything malformed, named in one line.
 */
int at_gitlayer_head(const struct at_gitlayer *g, const char *admin_rel, struct at_oid *out,
		     char *ref_out, size_t ref_size, struct at_error *err);

/*
 * Parse one ref file's text: "<40 hex>\n" or "ref: NAME\n". 0 with *oid
 * set, or with *target set (pointing into text) for a symbolic ref; -1 when
 * malformed. Exposed for the fuzz harness.
 */
int at_gitlayer_parse_ref(char *text, size_t len, struct at_oid *oid, const char **target);

/* The value of refname in a packed-refs text: 0, 1 when absent, -1 when malformed. */
int at_gitlayer_packed_lookup(const char *text, size_t len, const char *refname,
			      struct at_oid *out);

/*
 * packed-refs text without the refs whose names start with prefix (each with
 * its peeled "^" line), in place: the new length. Other lines, malformed
 * ones included, are kept as they are.
 */
size_t at_gitlayer_packed_drop(char *text, size_t len, const char *prefix);

/* A ref name git would accept under refs/ (no "..", no control bytes, ...)? */
int at_gitlayer_refname_ok(const char *name);

/*
 * overlayfs's markers in an upper directory (userxattr, the sandbox's
 * mounts): a whiteout, a 0:0 character device, hides the lower entry of its
 * name; an opaque directory (user.overlay.opaque, or trusted.overlay.opaque
 * of a mount made by root outside a user namespace, "y") the whole lower
 * directory of its name.
 */
bool at_layer_is_whiteout(const struct stat *st);
bool at_layer_is_opaque(int dirfd);

#endif
