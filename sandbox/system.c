/*
 * system.c - the standard system layout every run gets, as spec operations:
 * the read-only system, /etc and a minimal /sys (etc.c), private size-capped
 * /tmp and /dev/shm, HOME (a tmpfs, or the caller's directory), a minimal
 * /dev and the sandbox's own /proc.
 */
#include "sandbox/internal.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The private tmpfs: at most these (core/run.h, or the spec's), and 1/2, 1/4, 1/8 of the
 * memory limit (tmpfs_size). */
static const uint64_t tmpfs_default[AT_TMPFS_COUNT] = {
	[AT_TMPFS_TMP] = AT_TMPFS_TMP_DEFAULT,
	[AT_TMPFS_SHM] = AT_TMPFS_SHM_DEFAULT,
	[AT_TMPFS_HOME] = AT_TMPFS_HOME_DEFAULT,
};
static const unsigned int tmpfs_share[AT_TMPFS_COUNT] = {
	[AT_TMPFS_TMP] = 2, [AT_TMPFS_SHM] = 8, [AT_TMPFS_HOME] = 4,
};
#define DEV_SIZE ((uint64_t)64 << 10)

/* Directories of the host bound read-only; a symlink (merged /usr) stays one. */
static const char *const system_dirs[] = {
	"usr", "bin", "sbin", "lib", "lib64", "lib32", "libx32",
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

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

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

static void add_system_dirs(struct at_sandbox_spec *s)
{
	char host[PATH_MAX], link[PATH_MAX];
	size_t i;
	ssize_t n;

	for (i = 0; i < COUNT(system_dirs); i++) {
		snprintf(host, sizeof(host), "/%s", system_dirs[i]);
		switch (host_kind(host)) {
		case 1:
			at_sandbox_bind(s, host, host, AT_MOUNT_RO);
			break;
		case 3:
			n = readlink(host, link, sizeof(link) - 1);
			if (n > 0) {
				link[n] = '\0';
				at_sandbox_symlink(s, link, host);
			}
			break;
		default:
			break;
		}
	}
}

/*
 * A private tmpfs is memory: its pages are charged to the run's cgroup, and
 * where the run has a memory limit its tmpfs together stay inside it (7/8
 * of it at most), so that filling /tmp meets ENOSPC before the limit. And
 * where the limit is only RLIMIT_AS, these sizes are what keeps them in it.
 */
static uint64_t tmpfs_size(const struct at_sandbox_spec *s, enum at_tmpfs which)
{
	uint64_t memory = s->proc.limits.value[AT_LIMIT_MEMORY];
	uint64_t v = s->proc.tmpfs_size[which] ? s->proc.tmpfs_size[which] : tmpfs_default[which];
	unsigned int share = tmpfs_share[which];

	if (memory && memory / share < v)
		v = memory / share;
	return v < 4096 ? 4096 : v;
}

static void add_dev(struct at_sandbox_spec *s)
{
	char host[64];
	size_t i;

	at_sandbox_tmpfs(s, "/dev", DEV_SIZE, 0755);
	for (i = 0; i < COUNT(dev_nodes); i++) {
		snprintf(host, sizeof(host), "/dev/%s", dev_nodes[i]);
		if (host_kind(host) == 2)
			at_sandbox_bind(s, host, host, AT_MOUNT_DEV);
	}
	at_sandbox_devpts(s, "/dev/pts");
	at_sandbox_symlink(s, "pts/ptmx", "/dev/ptmx");
	at_sandbox_tmpfs(s, "/dev/shm", tmpfs_size(s, AT_TMPFS_SHM), 01777);
	at_sandbox_symlink(s, "/proc/self/fd", "/dev/fd");
	at_sandbox_symlink(s, "/proc/self/fd/0", "/dev/stdin");
	at_sandbox_symlink(s, "/proc/self/fd/1", "/dev/stdout");
	at_sandbox_symlink(s, "/proc/self/fd/2", "/dev/stderr");
	at_sandbox_remount_ro(s, "/dev");
}

static void add_proc(struct at_sandbox_spec *s)
{
	char path[64];
	size_t i;

	at_sandbox_proc(s, "/proc");
	for (i = 0; i < COUNT(proc_read_only); i++) {
		snprintf(path, sizeof(path), "/proc/%s", proc_read_only[i]);
		at_sandbox_bind(s, path, path, AT_MOUNT_RO | AT_MOUNT_IN_SANDBOX | AT_MOUNT_OPTIONAL);
	}
}

/*
 * Who the user is and which machine this is, as the command sees it
 * (identity.c): a passwd and a group of our own, and the /proc files that
 * would tell the host's boot id, command line and keyrings covered. After
 * add_proc: the /proc/sys bind would cover the boot id's.
 */
static void add_identity(struct at_sandbox_spec *s)
{
	struct at_sb_identity id;
	size_t i;

	if (at_sb_identity_make(&id) < 0) {
		s->failed = true;
		return;
	}
	at_sandbox_bind_data(s, "/etc/passwd", id.passwd, id.passwd_len);
	at_sandbox_bind_data(s, "/etc/group", id.group, id.group_len);
	at_sandbox_bind_data(s, "/proc/sys/kernel/random/boot_id", id.boot_id, strlen(id.boot_id));
	for (i = 0; at_sb_masked_proc[i]; i++)
		at_sandbox_bind_data(s, at_sb_masked_proc[i], "", 0);
}

int at_sandbox_add_system(struct at_sandbox_spec *s)
{
	add_system_dirs(s);
	at_sb_add_etc(s);
	at_sb_add_sys(s);
	at_sandbox_tmpfs(s, "/tmp", tmpfs_size(s, AT_TMPFS_TMP), 01777);
	if (s->proc.home)
		at_sandbox_bind(s, s->proc.home, AT_RUN_HOME, 0);
	else
		at_sandbox_tmpfs(s, AT_RUN_HOME, tmpfs_size(s, AT_TMPFS_HOME), 0700);
	add_dev(s);
	add_proc(s);
	add_identity(s);
	return s->failed ? -1 : 0;
}
