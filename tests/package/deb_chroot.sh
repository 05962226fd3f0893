#!/usr/bin/env bash
# tests/package/deb_chroot.sh DIR: the package in DIR (make deb) installed on
# a clean Debian 12: a fresh bookworm root (mmdebstrap, variant apt, plus git
# and man-db), where apt resolves its dependencies from the archive alone.
# There --version, help, the man page, doctor (when the binary has it) and a
# task's life (new, run, diff, accept) must work.
#
# The checks do not run in a chroot: the kernel refuses a new user namespace
# to a chrooted process (EPERM), so `run` could not work there. They run in a
# mount namespace whose root is the new tree (pivot_root), as in a container.
# As root. Heavy (a Debian bootstrap): `make check-deb`, not `make check`.
set -euo pipefail
dir=$(realpath "$1")
deb=$(ls "$dir"/agenttask_*.deb)
[ "$(id -u)" = 0 ] || { echo "deb_chroot: needs root (mmdebstrap's root mode)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/agenttask-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT

cat >"$work/inside.sh" <<'INSIDE'
set -eux
agenttask --version
agenttask --version | grep -Eq '^libgit2 [0-9]'
agenttask --version | grep -Eq '^libseccomp [0-9]'
agenttask help run | grep -q -- '--allow-host'
MANWIDTH=80 man agenttask-accept | grep -q -- '--ff-only'
test -f /usr/share/bash-completion/completions/agenttask
if agenttask help doctor >/dev/null 2>&1; then
	agenttask doctor
else
	echo "deb_chroot: this agenttask has no doctor command"
fi
export HOME=/root GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com
export GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
git init -q -b main /tmp/repo && cd /tmp/repo
echo hello >README && git add README && git commit -qm initial
agenttask new try
agenttask run try -- sh -c 'echo changed >README'
agenttask diff try | grep -q '^+changed'
agenttask accept try
test "$(cat README)" = changed
echo "deb_chroot: all checks passed"
INSIDE

mmdebstrap --variant=apt --include=man-db,git \
	--customize-hook="copy-in $deb /tmp" \
	--customize-hook="copy-in $work/inside.sh /tmp" \
	--customize-hook='chroot "$1" env DEBIAN_FRONTEND=noninteractive apt-get install -y /tmp/'"$(basename "$deb")" \
	bookworm "$work/root" >"$dir/chroot.log" 2>&1 || {
	tail -30 "$dir/chroot.log" >&2
	echo "deb_chroot: mmdebstrap failed; the log is $dir/chroot.log" >&2
	exit 1
}
# The new tree as the root of a private mount namespace, with /proc, /dev
# and a /tmp of its own; then the checks, with a clean environment.
unshare --mount --pid --fork --propagation private sh -euc '
	root=$1
	mount --bind "$root" "$root"
	mount -t proc proc "$root/proc"
	mount --rbind /dev "$root/dev"
	mount -t tmpfs tmpfs "$root/tmp"
	cp "$2" "$root/tmp/inside.sh"
	cd "$root" && mkdir -p .old && pivot_root . .old && umount -l /.old && rmdir /.old
	exec env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin TERM=dumb LANG=C.UTF-8 bash /tmp/inside.sh
' _ "$work/root" "$work/inside.sh" 2>&1 | tee -a "$dir/chroot.log" |
	grep -E '^\+ agenttask|deb_chroot|^agenttask|^libgit2|^libseccomp' || true
grep -q '^deb_chroot: all checks passed' "$dir/chroot.log" || {
	echo "deb_chroot: FAILED; the log is $dir/chroot.log" >&2
	exit 1
}
echo "deb_chroot: the package installs and works on a clean Debian 12"
