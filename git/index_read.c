#include "git/index_read.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int at_index_read(const char *path, struct at_index *out, struct at_error *err)
{
	unsigned char *buf = NULL;
	size_t done = 0, len;
	struct stat st;
	int fd, rc;

	memset(out, 0, sizeof(*out));
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return errno == ENOENT ? AT_INDEX_DECLINED
				       : at_error_sys(err, AT_ESYS, "cannot open '%s'", path);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		rc = at_error_sys(err, AT_ESYS, "cannot read '%s'", path);
		goto out;
	}
	/*
	 * Read, not mapped: the worktree's index is the agent's to write, and
	 * a mapping of a file truncated meanwhile would kill this process.
	 */
	len = (size_t)st.st_size;
	if (!(buf = at_index_buf_new(len + 1))) {
		rc = at_error_sys(err, AT_ESYS, "cannot read '%s'", path);
		goto out;
	}
	while (done < len) {
		ssize_t r = read(fd, buf + done, len - done);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			rc = r < 0 ? at_error_sys(err, AT_ESYS, "cannot read '%s'", path)
				   : AT_INDEX_DECLINED;   /* shrank meanwhile */
			goto out;
		}
		done += (size_t)r;
	}
	if ((rc = at_index_parse(buf, done, out)) == 0) {
		out->mtime = st.st_mtim;
		out->map = buf;
		out->map_len = len + 1;
		buf = NULL;
	}
out:
	if (buf)
		munmap(buf, len + 1);
	close(fd);
	return rc;
}
