#!/usr/bin/env bash
# install-apparmor.sh BINDIR [DESTDIR]: install agenttask's AppArmor profile.
#
# Where AppArmor is in use (/etc/apparmor.d exists), write
# dist/apparmor.d/agenttask as DESTDIR/etc/apparmor.d/agenttask for the
# binary BINDIR/agenttask, and, when installing onto this machine (no
# DESTDIR) with AppArmor loaded, load it (apparmor_parser -r). Elsewhere it
# does nothing. CMake's install rules run it (`make install`, the package).
set -eu
bindir=${1:?usage: install-apparmor.sh BINDIR [DESTDIR]}
destdir=${2:-}
here=$(cd "$(dirname "$0")/.." && pwd)
etc=${AT_APPARMOR_DIR:-/etc/apparmor.d}
# AT_APPARMOR_FORCE=1 (CMake's AT_APPARMOR=on): write it all the same, for a
# package that may be installed where AppArmor is in use.
[ -d "$etc" ] || [ "${AT_APPARMOR_FORCE:-0}" = 1 ] || exit 0
case "$bindir" in
/*) ;;
*) echo "install-apparmor.sh: BINDIR must be absolute, not '$bindir'" >&2; exit 2 ;;
esac
case "$bindir" in
*[!A-Za-z0-9/._+-]*) echo "install-apparmor.sh: refusing BINDIR '$bindir' (unusual characters)" >&2; exit 2 ;;
esac
target="$destdir$etc/agenttask"
mkdir -p "$(dirname "$target")"
sed "s|@BINDIR@|$bindir|g" "$here/dist/apparmor.d/agenttask" >"$target.tmp"
chmod 644 "$target.tmp"
mv "$target.tmp" "$target"
echo "installed the AppArmor profile $target (for $bindir/agenttask)"
if [ -z "$destdir" ] && [ -d /sys/kernel/security/apparmor ] && command -v apparmor_parser >/dev/null; then
	apparmor_parser -r "$target"
fi
