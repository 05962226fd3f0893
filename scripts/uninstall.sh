#!/usr/bin/env bash
# scripts/uninstall.sh BUILD [DESTDIR [PREFIX]]: remove what `make install`
# installed (PREFIX: the build's, unless given).
#
# The list of files is what CMake's install rules install from BUILD, found by
# installing into a scratch directory: the rules are the one source, whether or
# not an install_manifest.txt survives. Only regular files and symbolic links
# named by that list are removed; directories stay (they may be shared).
set -euo pipefail
build=$1 destdir=${2:-} prefix=(${3:+--prefix "$3"})
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
DESTDIR=$stage cmake --install "$build" "${prefix[@]}" >/dev/null
(cd "$stage" && find . \( -type f -o -type l \) -print0) |
	while IFS= read -r -d '' f; do
		target=$destdir${f#.}
		if [ -f "$target" ] || [ -L "$target" ]; then
			rm -f -- "$target"
			printf 'removed %s\n' "$target"
		fi
	done
