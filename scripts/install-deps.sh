#!/usr/bin/env bash
# Install the Debian packages named on the command line that are missing.
# As root (or with working sudo) through apt-get; otherwise print the exact
# command to run and stop.
#
# An argument npm:DIR instead installs DIR's npm packages exactly as its
# package-lock.json pins them (npm ci), unless they are there already: the
# test peers under tests/ (tests/jest: Jest for tests/integration/jest.sh).
# DIR/.npmrc applies to its install (tests/claude's: no install scripts, no
# optional packages).
set -eu
missing=()
npm_dirs=()
for pkg in "$@"; do
	case $pkg in npm:*) npm_dirs+=("${pkg#npm:}"); continue ;; esac
	if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
		missing+=("$pkg")
	fi
done
npm_install() {
	local dir
	for dir in ${npm_dirs[@]+"${npm_dirs[@]}"}; do
		# A copy of the lock it was installed from: equal means installed.
		cmp -s "$dir/package-lock.json" "$dir/node_modules/.installed-lock.json" 2>/dev/null &&
			continue
		echo "installing the npm packages of $dir (npm ci)"
		(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error &&
			cp package-lock.json node_modules/.installed-lock.json)
	done
}
if [ ${#missing[@]} -eq 0 ]; then
	npm_install
	exit 0
fi

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
npm_install
