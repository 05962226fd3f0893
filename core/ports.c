/*
 * ports.c - a task's published ports in agenttask's state (ports.h).
 */
#include "core/ports.h"
#include "core/array.h"
#include "core/proc.h"
#include "core/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FILE_MAX 4096

static int ports_file(const struct at_paths *p, const char *task, const char *suffix,
		      char *buf, size_t size)
{
	char dir[PATH_MAX];

	if (at_paths_ports_dir(p, dir, sizeof(dir), NULL) < 0)
		return -1;
	return at_fmt(buf, size, "%s/%s%s", dir, task, suffix);
}

static int ensure_dir(const struct at_paths *p)
{
	char dir[PATH_MAX];

	if (at_paths_ports_dir(p, dir, sizeof(dir), NULL) < 0)
		return -1;
	return mkdir(dir, 0700) == 0 || errno == EEXIST ? 0 : -1;
}

/* "PORT HOSTPORT" lines of text into m (at most AT_PORTS_MAX); how many. */
static size_t parse_maps(const char *text, struct at_port_map *m)
{
	size_t n = 0;
	unsigned a, b;
	int used;

	while (n < AT_PORTS_MAX && sscanf(text, "%u %u\n%n", &a, &b, &used) == 2 && used > 0) {
		if (a > 0 && a < 65536 && b > 0 && b < 65536)
			m[n++] = (struct at_port_map){ (uint16_t)a, (uint16_t)b };
		text += used;
	}
	return n;
}

static size_t read_assigned(const struct at_paths *p, const char *task, struct at_port_map *m)
{
	char path[PATH_MAX];
	AT_AUTOFREE char *text = NULL;

	if (ports_file(p, task, ".assigned", path, sizeof(path)) < 0 ||
	    !(text = at_read_file(path, FILE_MAX, NULL)))
		return 0;
	return parse_maps(text, m);
}

uint16_t at_ports_assigned(const struct at_paths *p, const char *task, uint16_t port)
{
	struct at_port_map m[AT_PORTS_MAX];
	size_t n = read_assigned(p, task, m);

	for (size_t i = 0; i < n; i++)
		if (m[i].port == port)
			return m[i].host_port;
	return 0;
}

static size_t format_maps(char *buf, size_t size, const struct at_port_map *m, size_t n)
{
	size_t len = strlen(buf);

	for (size_t i = 0; i < n && len < size; i++) {
		int k = snprintf(buf + len, size - len, "%u %u\n", m[i].port, m[i].host_port);
		if (k < 0 || (size_t)k >= size - len)
			break;
		len += (size_t)k;
	}
	return len;
}

int at_ports_assign(const struct at_paths *p, const char *task, uint16_t port,
		    uint16_t host_port)
{
	struct at_port_map m[AT_PORTS_MAX];
	size_t n = read_assigned(p, task, m), i;
	char path[PATH_MAX], text[FILE_MAX] = "";

	for (i = 0; i < n && m[i].port != port; i++)
		;
	if (i == n && n == AT_PORTS_MAX)
		i = --n;  /* full: the last one makes room */
	m[i] = (struct at_port_map){ port, host_port };
	n += i == n;
	if (ensure_dir(p) < 0 || ports_file(p, task, ".assigned", path, sizeof(path)) < 0)
		return -1;
	return at_write_atomic(path, text, format_maps(text, sizeof(text), m, n), 0600);
}

int at_ports_live_write(const struct at_paths *p, const char *task, const struct at_port_map *m,
			size_t n, char *live_path, size_t size, struct at_error *err)
{
	char suffix[64], text[FILE_MAX];
	size_t len;
	int fd;

	snprintf(suffix, sizeof(suffix), ".%d.live", (int)getpid());
	snprintf(text, sizeof(text), "%d %lld\n", (int)getpid(), at_proc_self_start());
	len = format_maps(text, sizeof(text), m, n);
	if (ensure_dir(p) < 0 || ports_file(p, task, suffix, live_path, size) < 0)
		return at_error_sys(err, AT_ESYS, "cannot record the published ports");
	fd = open(live_path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || at_write_all(fd, text, len) < 0) {
		at_error_sys(err, AT_ESYS, "cannot record the published ports");
		if (fd >= 0)
			close(fd);
		unlink(live_path);
		live_path[0] = '\0';
		return err->code;
	}
	close(fd);
	return 0;
}

/* NAME.PID.live: NAME into task (its last ".PID.live" cut off). */
static bool live_name(const char *file, char *task, size_t size)
{
	size_t len = strlen(file);
	const char *dot;

	if (len < 7 || strcmp(file + len - 5, ".live") != 0)
		return false;
	len -= 5;
	for (dot = file + len; dot > file && dot[-1] != '.'; dot--)
		if (dot[-1] < '0' || dot[-1] > '9')
			return false;
	if (dot <= file + 1 || dot == file + len)
		return false;
	len = (size_t)(dot - 1 - file);
	if (len >= size)
		return false;
	memcpy(task, file, len);
	task[len] = '\0';
	return true;
}

static bool read_live(const char *path, struct at_ports_live *l)
{
	AT_AUTOFREE char *text = at_read_file(path, FILE_MAX, NULL);
	long long start;
	char *nl;

	if (!text || sscanf(text, "%d %lld", &l->pid, &start) != 2 || !(nl = strchr(text, '\n')))
		return false;
	if (!at_proc_alive(l->pid, start))
		return false;
	l->n = parse_maps(nl + 1, l->map);
	return true;
}

static int by_task(const void *a, const void *b)
{
	const struct at_ports_live *x = a, *y = b;
	int c = strcmp(x->task, y->task);

	return c ? c : (x->pid > y->pid) - (x->pid < y->pid);
}

int at_ports_live_list(const struct at_paths *p, const char *task, struct at_ports_live **out,
		       size_t *nout, struct at_error *err)
{
	char dir[PATH_MAX];
	struct at_ports_live *v = NULL, one;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d;

	*out = NULL;
	*nout = 0;
	if (at_paths_ports_dir(p, dir, sizeof(dir), err) < 0)
		return err->code;
	if (!(d = opendir(dir)))
		return errno == ENOENT ? 0 : at_error_sys(err, AT_ESYS, "cannot read '%s'", dir);
	while ((de = readdir(d))) {
		char path[PATH_MAX];

		memset(&one, 0, sizeof(one));
		if (!live_name(de->d_name, one.task, sizeof(one.task)) ||
		    (task && strcmp(task, one.task) != 0) ||
		    at_fmt(path, sizeof(path), "%s/%s", dir, de->d_name) < 0 || !read_live(path, &one))
			continue;
		if (AT_ARRAY_GROW(v, cap, n + 1) < 0) {
			free(v);
			closedir(d);
			return at_error_set(err, AT_ESYS, "out of memory");
		}
		v[n++] = one;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), by_task);
	*out = v;
	*nout = n;
	return 0;
}

int at_ports_stale(const struct at_paths *p, bool (*has_task)(const char *task, void *arg),
		   int (*fn)(const char *path, void *arg), void *arg)
{
	static const char assigned[] = ".assigned";
	char dir[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int rc = 0;

	if (at_paths_ports_dir(p, dir, sizeof(dir), NULL) < 0 || !(d = opendir(dir)))
		return 0;
	while (rc == 0 && (de = readdir(d))) {
		struct at_ports_live one;
		char path[PATH_MAX], task[AT_NAME_MAX + 1];
		size_t len = strlen(de->d_name);
		bool stale;

		if (at_fmt(path, sizeof(path), "%s/%s", dir, de->d_name) < 0)
			continue;
		if (live_name(de->d_name, task, sizeof(task))) {
			stale = !read_live(path, &one);
		} else if (len > sizeof(assigned) - 1 && len - (sizeof(assigned) - 1) < sizeof(task) &&
			   strcmp(de->d_name + len - (sizeof(assigned) - 1), assigned) == 0) {
			memcpy(task, de->d_name, len - (sizeof(assigned) - 1));
			task[len - (sizeof(assigned) - 1)] = '\0';
			stale = !has_task(task, arg);
		} else {
			continue;
		}
		if (stale)
			rc = fn(path, arg);
	}
	closedir(d);
	return rc;
}
