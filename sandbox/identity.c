/*
 * identity.c - what the sandbox shows of who the user is and which machine
 * this is (issue 8, hole 10).
 *
 * /etc/passwd and /etc/group are written for the run, never bound from the
 * host: they list root, nobody and the invoking user (whose home is the
 * sandbox's HOME), so the command learns neither the other accounts of the
 * machine nor the user's real name, home or groups.
 *
 * A few files of the sandbox's own /proc still describe the host whatever
 * the namespaces: the boot id (the same for every process of this boot, a
 * key to link runs and hosts), the kernel command line (root device, crash
 * kernel, sometimes secrets passed at boot), and the keyrings (/proc/keys
 * lists the user's and session keyrings the caller may view, with their
 * descriptions; /proc/key-users counts keys of every uid). The boot id is
 * replaced by a random one per run, the others by an empty file. The
 * keyrings need no more: keyctl, add_key and request_key are denied by the
 * seccomp filter, so /proc/keys was the only way left to look at them (a new
 * session keyring would have hidden the session keyring only, not the
 * user's own keyring of the same uid).
 */
#include "sandbox/internal.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "core/util.h"

const char *const at_sb_masked_proc[] = {"proc/cmdline", "proc/keys", "proc/key-users", NULL};

/* A name fit for a passwd line: [A-Za-z0-9._-], not empty, not too long. */
static bool name_ok(const char *s)
{
	size_t n = 0;

	if (!s || !*s || *s == '-')
		return false;
	for (; s[n]; n++) {
		char c = s[n];

		if (n >= 32 || !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
				 (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
			return false;
	}
	return true;
}

/* A login shell fit for the line: an absolute path of printable bytes, no ':'. */
static bool shell_ok(const char *s)
{
	size_t n;

	if (!s || s[0] != '/')
		return false;
	for (n = 0; s[n]; n++) {
		if (n >= 128 || s[n] <= ' ' || s[n] == ':' || (unsigned char)s[n] >= 0x7f)
			return false;
	}
	return true;
}

static void user_name(uid_t uid, char *name, size_t size, char *shell, size_t shsize)
{
	struct passwd pw, *res = NULL;
	char buf[4096];

	snprintf(name, size, "user");
	snprintf(shell, shsize, "/bin/sh");
	if (getpwuid_r(uid, &pw, buf, sizeof(buf), &res) != 0 || !res)
		return;
	if (name_ok(pw.pw_name))
		snprintf(name, size, "%s", pw.pw_name);
	if (shell_ok(pw.pw_shell))
		snprintf(shell, shsize, "%s", pw.pw_shell);
}

static void group_name(gid_t gid, const char *fallback, char *name, size_t size)
{
	struct group gr, *res = NULL;
	char buf[4096];

	snprintf(name, size, "%s", fallback);
	if (getgrgid_r(gid, &gr, buf, sizeof(buf), &res) == 0 && res && name_ok(gr.gr_name))
		snprintf(name, size, "%s", gr.gr_name);
}

/*
 * root and nobody as Debian names them; the user's own line, unless it is
 * one of those two, in which case that line gets the sandbox's HOME.
 */
int at_sb_identity_make(struct at_sb_identity *id, struct at_error *err)
{
	uid_t uid = getuid();
	gid_t gid = getgid();
	char name[40], shell[136], gname[40];
	unsigned char r[16];
	int n;

	user_name(uid, name, sizeof(name), shell, sizeof(shell));
	group_name(gid, name, gname, sizeof(gname));
	n = snprintf(id->passwd, sizeof(id->passwd),
		     "root:x:0:0:root:%s:/bin/sh\n"
		     "nobody:x:65534:65534:nobody:%s:/usr/sbin/nologin\n",
		     uid == 0 ? AT_SANDBOX_HOME : "/root",
		     uid == 65534 ? AT_SANDBOX_HOME : "/nonexistent");
	if (uid != 0 && uid != 65534)
		n += snprintf(id->passwd + n, sizeof(id->passwd) - (size_t)n, "%s:x:%u:%u::%s:%s\n",
			      name, (unsigned)uid, (unsigned)gid, AT_SANDBOX_HOME, shell);
	id->passwd_len = (size_t)n;
	n = snprintf(id->group, sizeof(id->group), "root:x:0:\nnogroup:x:65534:\n");
	if (gid != 0 && gid != 65534)
		n += snprintf(id->group + n, sizeof(id->group) - (size_t)n, "%s:x:%u:\n", gname,
			      (unsigned)gid);
	id->group_len = (size_t)n;

	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
		return at_error_sys(err, AT_ESYS, "cannot make the sandbox's boot id");
	r[6] = (unsigned char)((r[6] & 0x0f) | 0x40); /* a version 4 UUID, as the kernel's */
	r[8] = (unsigned char)((r[8] & 0x3f) | 0x80);
	snprintf(id->boot_id, sizeof(id->boot_id),
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x\n", r[0],
		 r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11], r[12], r[13],
		 r[14], r[15]);
	return 0;
}
