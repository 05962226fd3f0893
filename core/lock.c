#include "core/lock.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

static int lock_open(const struct at_paths *p, struct at_error *err)
{
	int fd;

	if (at_paths_ensure(p, err) < 0)
		return -1;
	fd = open(p->lock_file, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		at_error_sys(err, AT_ESYS, "cannot open lock '%s'", p->lock_file);
	return fd;
}

static int lock_take(const struct at_paths *p, int *fd_out, int how, struct at_error *err)
{
	int fd = lock_open(p, err);

	if (fd < 0)
		return err->code;
	while (flock(fd, how) < 0) {
		if (errno == EINTR)
			continue;
		if (errno == EWOULDBLOCK) {
			close(fd);
			return at_error_set(err, AT_EBUSY, "repository lock '%s' is held",
					    p->lock_file);
		}
		at_error_sys(err, AT_ESYS, "cannot lock '%s'", p->lock_file);
		close(fd);
		return err->code;
	}
	*fd_out = fd;
	return 0;
}

int at_lock_acquire(const struct at_paths *p, int *fd_out, struct at_error *err)
{
	return lock_take(p, fd_out, LOCK_EX, err);
}

int at_lock_try(const struct at_paths *p, int *fd_out, struct at_error *err)
{
	return lock_take(p, fd_out, LOCK_EX | LOCK_NB, err);
}

int at_lock_try_file(const char *path, int *fd_out, struct at_error *err)
{
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);

	*fd_out = -1;
	if (fd < 0)
		return at_error_sys(err, AT_ESYS, "cannot open '%s'", path);
	while (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno == EINTR)
			continue;
		close(fd);
		return errno == EWOULDBLOCK ? 1 : at_error_sys(err, AT_ESYS, "cannot lock '%s'", path);
	}
	*fd_out = fd;
	return 0;
}

void at_lock_release(int fd)
{
	if (fd >= 0)
		close(fd);
}
