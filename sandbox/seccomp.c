/*
 * seccomp.c - the system call policy, as one table.
 *
 * The filter allows by default and refuses what a command in the sandbox
 * has no business doing: changing the mount table or namespaces (escaping or
 * re-shaping the sandbox), talking to kernel subsystems that are large attack
 * surface and rarely needed by build tools (bpf, io_uring, perf, keyrings,
 * userfaultfd), administering the machine (modules, kexec, clocks, swap,
 * reboot), and injecting keystrokes into the user's terminal (TIOCSTI,
 * TIOCLINUX) or changing its line discipline (TIOCSETD: a terminal given as
 * is, with -T, would stay dead after the run; the disciplines are kernel
 * attack surface besides). Most of these also need capabilities the sandbox no longer
 * has; the filter is the second wall, and returns a clean EPERM instead of
 * whatever each subsystem would say.
 *
 * Only the native architecture is allowed: a system call made through
 * another ABI (i386 int 0x80 on x86_64) kills the process, and x32 numbers
 * (nr >= 0x40000000, same audit arch as x86_64) are refused by libseccomp's
 * native-arch check, which compares the number against the x32 bit (the
 * unit test test_seccomp__x32_syscall_is_refused proves it).
 *
 * Deliberately left out (allowed):
 *   ptrace      debuggers and strace are legitimate; it cannot reach past the
 *               sandbox (own pid namespace, same uid, the init is not
 *               dumpable), and kernels >= 4.8 re-check seccomp after a
 *               tracer changes a system call.
 *   personality setarch/ADDR_NO_RANDOMIZE only weaken the caller itself;
 *               nothing setuid is reachable (nosuid, no_new_privs).
 *   name_to_handle_at  refused with open_by_handle_at although harmless
 *               alone: without its partner it only leaks inode numbers.
 *   socket families  networking is governed by the network namespace.
 *
 * The filter is compiled to BPF by the supervisor (libseccomp allocates) and
 * the child installs the program with seccomp(2) as its last step.
 */
#include "sandbox/internal.h"

#include <errno.h>
#include <linux/sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"

/* clone(2)'s flags are its first argument, except on s390 where it is the second. */
#if defined(__s390__) || defined(__s390x__)
#define CLONE_FLAGS_ARG 1
#else
#define CLONE_FLAGS_ARG 0
#endif

/* ioctl requests are an int: compare only the low 32 bits, or a request
 * with junk in the upper half would slip past an exact match. */
#define IOCTL_IS(req) 1, { .arg = 1, .op = SCMP_CMP_MASKED_EQ, .datum_a = 0xffffffffu, .datum_b = (req) }
#define CLONE_HAS(flag) \
	1, { .arg = CLONE_FLAGS_ARG, .op = SCMP_CMP_MASKED_EQ, .datum_a = (flag), .datum_b = (flag) }
#define ALWAYS 0, { 0 }

struct sb_rule {
	const char *syscall;
	int errnum;
	unsigned int argc;        /* 0: always; 1: when cmp holds */
	struct scmp_arg_cmp cmp;
	const char *why;
};

static const struct sb_rule rules[] = {
	/* terminal */
	{ "ioctl", EPERM, IOCTL_IS(TIOCSTI), "push input into the terminal" },
	{ "ioctl", EPERM, IOCTL_IS(TIOCLINUX), "console selection/paste injects input too" },
	{ "ioctl", EPERM, IOCTL_IS(TIOCSETD), "a line discipline outlives the run" },

	/* the mount table: the sandbox's view must stay as it was built */
	{ "mount", EPERM, ALWAYS, "remount or uncover hidden paths" },
	{ "umount", EPERM, ALWAYS, "uncover what a mount hides (config, state)" },
	{ "umount2", EPERM, ALWAYS, "uncover what a mount hides (config, state)" },
	{ "pivot_root", EPERM, ALWAYS, "re-root" },
	{ "chroot", EPERM, ALWAYS, "re-root" },
	{ "fsopen", EPERM, ALWAYS, "new mount API" },
	{ "fsconfig", EPERM, ALWAYS, "new mount API" },
	{ "fsmount", EPERM, ALWAYS, "new mount API" },
	{ "fspick", EPERM, ALWAYS, "new mount API: reconfigure a mount" },
	{ "move_mount", EPERM, ALWAYS, "new mount API" },
	{ "open_tree", EPERM, ALWAYS, "new mount API: clone a mount" },
	{ "mount_setattr", EPERM, ALWAYS, "clear read-only" },

	/* namespaces: a nested user namespace would give capabilities back */
	{ "unshare", EPERM, ALWAYS, "new namespaces" },
	{ "setns", EPERM, ALWAYS, "enter other namespaces" },
	{ "clone", EPERM, CLONE_HAS(CLONE_NEWUSER), "new user namespace" },
	{ "clone", EPERM, CLONE_HAS(CLONE_NEWNS), "new mount namespace" },
	{ "clone", EPERM, CLONE_HAS(CLONE_NEWPID), "new pid namespace" },
	{ "clone", EPERM, CLONE_HAS(CLONE_NEWNET), "new network namespace" },
	{ "clone", EPERM, CLONE_HAS(CLONE_NEWIPC), "new ipc namespace" },
	{ "clone", EPERM, CLONE_HAS(CLONE_NEWUTS), "new uts namespace" },
	{ "clone", EPERM, CLONE_HAS(CLONE_NEWCGROUP), "new cgroup namespace" },
	/*
	 * clone3 passes its flags in a struct in memory, which seccomp cannot
	 * read. ENOSYS (not EPERM) makes glibc and other runtimes fall back to
	 * clone(2), whose flags the rules above do check.
	 */
	{ "clone3", ENOSYS, ALWAYS, "flags out of seccomp's reach" },

	/* kernel attack surface rarely needed by a build */
	{ "keyctl", EPERM, ALWAYS, "kernel keyrings are not namespaced" },
	{ "add_key", EPERM, ALWAYS, "kernel keyrings are not namespaced" },
	{ "request_key", EPERM, ALWAYS, "kernel keyrings are not namespaced" },
	{ "bpf", EPERM, ALWAYS, "eBPF" },
	{ "perf_event_open", EPERM, ALWAYS, "perf: side channels, kernel bugs" },
	{ "userfaultfd", EPERM, ALWAYS, "widens kernel race windows" },
	{ "io_uring_setup", EPERM, ALWAYS, "io_uring bypasses this filter" },
	{ "io_uring_enter", EPERM, ALWAYS, "io_uring bypasses this filter" },
	{ "io_uring_register", EPERM, ALWAYS, "io_uring bypasses this filter" },
	{ "open_by_handle_at", EPERM, ALWAYS, "opens files outside the mount tree" },
	{ "name_to_handle_at", EPERM, ALWAYS, "partner of open_by_handle_at" },
	{ "lookup_dcookie", EPERM, ALWAYS, "profiling interface" },
	{ "uselib", EPERM, ALWAYS, "obsolete loader interface" },

	/* administering the machine */
	{ "kexec_load", EPERM, ALWAYS, "replace the kernel" },
	{ "kexec_file_load", EPERM, ALWAYS, "replace the kernel" },
	{ "init_module", EPERM, ALWAYS, "load kernel code" },
	{ "finit_module", EPERM, ALWAYS, "load kernel code" },
	{ "delete_module", EPERM, ALWAYS, "unload kernel code" },
	{ "iopl", EPERM, ALWAYS, "raw I/O ports" },
	{ "ioperm", EPERM, ALWAYS, "raw I/O ports" },
	{ "swapon", EPERM, ALWAYS, "swap" },
	{ "swapoff", EPERM, ALWAYS, "swap" },
	{ "reboot", EPERM, ALWAYS, "reboot" },
	{ "acct", EPERM, ALWAYS, "process accounting" },
	{ "quotactl", EPERM, ALWAYS, "disk quotas" },
	{ "quotactl_fd", EPERM, ALWAYS, "disk quotas" },
	{ "settimeofday", EPERM, ALWAYS, "the clock is not namespaced" },
	{ "clock_settime", EPERM, ALWAYS, "the clock is not namespaced" },
	{ "clock_adjtime", EPERM, ALWAYS, "the clock is not namespaced" },
	{ "adjtimex", EPERM, ALWAYS, "the clock is not namespaced" },
	{ "syslog", EPERM, ALWAYS, "the kernel log leaks addresses" },
	{ "vhangup", EPERM, ALWAYS, "hang up the user's terminal" },
};

static int sb_error(struct at_error *err, int rc, const char *what)
{
	errno = -rc;
	return at_error_sys(err, AT_ESANDBOX, "cannot build the seccomp filter: %s", what);
}

#define NRULES (sizeof(rules) / sizeof(rules[0]))

/* The table as plain rows, for the test that checks each one (tests/unit/sandbox). */
static struct at_sb_seccomp_row rows[NRULES];

size_t at_sb_seccomp_rows(const struct at_sb_seccomp_row **out)
{
	size_t i;

	for (i = 0; i < NRULES; i++) {
		rows[i].syscall = rules[i].syscall;
		rows[i].errnum = rules[i].errnum;
		rows[i].has_arg = rules[i].argc > 0;
		rows[i].arg = rules[i].cmp.arg;
		rows[i].mask = rules[i].cmp.datum_a;
		rows[i].value = rules[i].cmp.datum_b;
	}
	*out = rows;
	return NRULES;
}

/* errnum 0: each rule's own errno; else that one for every rule. */
static int add_rules(scmp_filter_ctx ctx, int errnum, struct at_error *err)
{
	size_t i;

	for (i = 0; i < NRULES; i++) {
		const struct sb_rule *r = &rules[i];
		int nr = seccomp_syscall_resolve_name(r->syscall), rc;
		unsigned int e = (unsigned int)(errnum ? errnum : r->errnum);

		/* Not a system call of this architecture (iopl on arm64): nothing to refuse. */
		if (nr == __NR_SCMP_ERROR || nr < 0)
			continue;
		rc = seccomp_rule_add_exact_array(ctx, SCMP_ACT_ERRNO(e), nr, r->argc,
						  r->argc ? &r->cmp : NULL);
		if (rc < 0)
			return sb_error(err, rc, r->syscall);
	}
	return 0;
}

/* Read back what libseccomp wrote to fd. */
static int read_program(int fd, struct sock_fprog *out, struct at_error *err)
{
	struct stat st;
	struct sock_filter *buf;
	size_t len = 0;

	if (fstat(fd, &st) < 0 || lseek(fd, 0, SEEK_SET) < 0)
		return at_error_sys(err, AT_ESANDBOX, "cannot read the seccomp filter");
	if (st.st_size <= 0 || st.st_size % (off_t)sizeof(struct sock_filter) != 0 ||
	    st.st_size / (off_t)sizeof(struct sock_filter) > BPF_MAXINSNS)
		return at_error_set(err, AT_ESANDBOX, "the seccomp filter has a bad size");
	buf = malloc((size_t)st.st_size);
	if (!buf)
		return at_error_set(err, AT_ESYS, "out of memory");
	while (len < (size_t)st.st_size) {
		ssize_t n = read(fd, (char *)buf + len, (size_t)st.st_size - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			free(buf);
			return at_error_sys(err, AT_ESANDBOX, "cannot read the seccomp filter");
		}
		len += (size_t)n;
	}
	out->filter = buf;
	out->len = (unsigned short)(len / sizeof(struct sock_filter));
	return 0;
}

static int compile(struct sock_fprog *out, int errnum, struct at_error *err)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	AT_AUTOCLOSE int fd = -1;
	int rc;

	if (!ctx)
		return at_error_set(err, AT_ESANDBOX, "cannot build the seccomp filter");
	/* Only the native ABI: anything else is killed. */
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	if (rc < 0) {
		rc = sb_error(err, rc, "bad-arch action");
		goto out;
	}
	rc = add_rules(ctx, errnum, err);
	if (rc < 0)
		goto out;
	fd = memfd_create("agenttask-seccomp", MFD_CLOEXEC);
	if (fd < 0) {
		rc = at_error_sys(err, AT_ESANDBOX, "cannot build the seccomp filter");
		goto out;
	}
	rc = seccomp_export_bpf(ctx, fd);
	if (rc < 0) {
		rc = sb_error(err, rc, "export");
		goto out;
	}
	rc = read_program(fd, out, err);
out:
	seccomp_release(ctx);
	return rc;
}

int at_sb_seccomp_compile(struct sock_fprog *out, struct at_error *err)
{
	return compile(out, 0, err);
}

int at_sb_seccomp_compile_errno(struct sock_fprog *out, int errnum, struct at_error *err)
{
	return compile(out, errnum, err);
}

void at_sb_seccomp_release(struct sock_fprog *prog)
{
	if (!prog)
		return;
	free(prog->filter);
	prog->filter = NULL;
	prog->len = 0;
}

void at_sandbox_seccomp_version(char *buf, size_t size)
{
	const struct scmp_version *v = seccomp_version();

	if (v)
		snprintf(buf, size, "%u.%u.%u", v->major, v->minor, v->micro);
	else
		snprintf(buf, size, "unknown");
}
