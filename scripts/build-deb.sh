#!/usr/bin/env bash
# scripts/build-deb.sh OUT: build the Debian package of this tree into OUT.
#
# dpkg-buildpackage writes its results next to the source directory, so the
# tree (as it is, without build directories or .git) is copied under OUT and
# built there; OUT ends with agenttask_VERSION_ARCH.deb and the build's log.
set -euo pipefail
out=$(realpath -m "$1")
src=$(cd "$(dirname "$0")/.." && pwd)
version=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)
rm -rf "$out"
mkdir -p "$out/src/agenttask-$version"
tar -C "$src" --exclude=./.git --exclude='./build*' --exclude=./obj-\* -cf - . |
	tar -C "$out/src/agenttask-$version" -xf -
(cd "$out/src/agenttask-$version" && dpkg-buildpackage -us -uc -b) >"$out/build.log" 2>&1 || {
	tail -40 "$out/build.log" >&2
	echo "build-deb: dpkg-buildpackage failed; the log is $out/build.log" >&2
	exit 1
}
mv "$out"/src/*.deb "$out"/
rm -rf "$out/src"
ls "$out"/*.deb
