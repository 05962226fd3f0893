#!/usr/bin/env bash
# image.sh OUTDIR - build the Debian 12 test machine of `make check-vm`, once.
#
# The machine is what most users run: Debian 12 from Debian's own packages
# (mmdebstrap), systemd as init with pure cgroup v2, Debian's 6.1 kernel, and
# an ordinary user `tester` (uid 1000) whose user manager runs from boot
# (lingering), as a logged-in user's would. It knows nothing of agenttask:
# the binary, the suites and the guest's runner come on a second disk at
# every boot (run.sh), so the image is rebuilt only when this file changes.
#
# Writes OUTDIR/root.img (ext4, never booted read-write: run.sh boots it
# with qemu's snapshot=on), OUTDIR/vmlinuz, OUTDIR/initrd.img, and
# OUTDIR/stamp last, holding the hash of this file: an interrupted build
# leaves no stamp and is redone.
set -euo pipefail
out=${1:?usage: image.sh OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
stamp=$(sha256sum "$here/image.sh" | cut -c1-16)
if [ -f "$out/stamp" ] && [ "$(cat "$out/stamp")" = "$stamp" ]; then
	exit 0
fi
[ "$(id -u)" = 0 ] || { echo "image.sh: building the image needs root (mmdebstrap's root mode)" >&2; exit 1; }
mkdir -p "$out"
rm -f "$out/stamp"
tree="$out/tree"
rm -rf "$tree"

# The runtime libraries of agenttask, what the suites call, and a user
# session: logind and a user manager with its D-Bus socket.
packages=(
	systemd-sysv udev dbus dbus-user-session libpam-systemd
	linux-image-amd64 initramfs-tools e2fsprogs kmod
	libseccomp2 libcjson1 libsystemd0 libgit2-1.5
	python3 git procps util-linux iproute2 bsdutils gcc libc6-dev
)
# The machine's own apt sources when it has them (its mirror, its snapshot).
mirror=()
[ -f /etc/apt/sources.list.d/debian.sources ] && mirror=(/etc/apt/sources.list.d/debian.sources)

mmdebstrap --mode=root --variant=apt --include="$(IFS=,; echo "${packages[*]}")" \
	--customize-hook='chroot "$1" useradd -m -u 1000 -s /bin/bash tester' \
	--customize-hook='mkdir -p "$1/var/lib/systemd/linger" && touch "$1/var/lib/systemd/linger/tester"' \
	--customize-hook='echo "/dev/vda / ext4 defaults 0 1" > "$1/etc/fstab"' \
	--customize-hook='echo agenttask-vm > "$1/etc/hostname"' \
	--customize-hook='chroot "$1" passwd -d root' \
	--customize-hook='upload '"$here"'/agenttask-vm.service /etc/systemd/system/agenttask-vm.service' \
	--customize-hook='chroot "$1" systemctl enable agenttask-vm.service' \
	--customize-hook='chroot "$1" systemctl mask apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer e2scrub_reap.service fstrim.timer' \
	bookworm "$tree" "${mirror[@]}"

cp "$(ls "$tree"/boot/vmlinuz-* | sort -V | tail -1)" "$out/vmlinuz"
cp "$(ls "$tree"/boot/initrd.img-* | sort -V | tail -1)" "$out/initrd.img"
rm -f "$out/root.img"
# Populated from the directory: no loop device, no mount.
mkfs.ext4 -q -L agenttask-vm -d "$tree" "$out/root.img" 3G
rm -rf "$tree"
echo "$stamp" >"$out/stamp"
