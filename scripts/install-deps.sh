#!/usr/bin/env bash
# Install the Debian packages named on the command line that are missing.
# As root (or with working sudo) through apt-get; otherwise print the exact
# command to run and stop.
set -eu
missing=()
for pkg in "$@"; do
	if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
		missing+=("$pkg")
	fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "installing missing packages: ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
	sudo=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
	sudo=(sudo)
else
	echo "agenttask needs these Debian packages; run:" >&2
	echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
