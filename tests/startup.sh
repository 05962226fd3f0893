#!/usr/bin/env bash
# startup.sh AGENTTASK - a small command's start-up stays cheap.
#
# What could break it: the libgit2 set-up steps agenttask replaces by link
# -time wraps (TLS: the CA bundle parsed at every start; SSH: OpenSSL's
# set-up; HTTP Negotiate: six Kerberos libraries loaded) are private
# symbols of libgit2, and a wrap of a symbol that a new libgit2 renamed
# silently does nothing. CMakeLists.txt checks the symbols and falls back;
# this test says when start-up has lost them. Must, for `agenttask path`
# under callgrind (instructions, not seconds: the same on a loaded machine):
# none of the replaced set-up functions runs (by name, in callgrind's
# record of every function called), and the whole stays within
# INSTRUCTIONS_MAX (0.76 M here with every wrap, 1.9 M without the SSH one,
# 57 M without any); and no Kerberos library is among what the binary loads.
set -u
AT=${1:?usage: startup.sh AGENTTASK}
INSTRUCTIONS_MAX=${INSTRUCTIONS_MAX:-4000000}

if ! command -v valgrind >/dev/null; then
	echo "FAIL: valgrind is missing (Makefile's DEBIAN_PACKAGES installs it)"
	exit 1
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/agenttask-startup.XXXXXX")
trap 'rm -rf "$dir"' EXIT
export GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@e GIT_COMMITTER_NAME=t \
	GIT_COMMITTER_EMAIL=t@e
git init -q -b main "$dir/r" && git -C "$dir/r" commit -q --allow-empty -m first &&
	"$AT" -C "$dir/r" new t >/dev/null || { echo "FAIL: cannot make a task"; exit 1; }

if readelf -d "$AT" | grep -qi 'NEEDED.*\(gssapi\|krb5\)'; then
	echo "FAIL: the binary loads Kerberos: libgit2's Negotiate set-up is not replaced"
	readelf -d "$AT" | grep NEEDED
	exit 1
fi
n=$(valgrind --tool=callgrind --callgrind-out-file="$dir/cg" "$AT" -C "$dir/r" path t 2>&1 |
	sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
if [ -z "$n" ] || ! grep -q '^fn=' "$dir/cg"; then
	echo "FAIL: callgrind counted nothing"
	exit 1
fi
ran=$(grep -oE '^c?fn=\([0-9]+\) (git_mbedtls_stream_global_init|git_transport_ssh_global_init|libssh2_init|git_http_auth_negotiate)$' \
	"$dir/cg" | sed 's/.* //' | sort -u | tr '\n' ' ')
if [ -n "$ran" ]; then
	echo "FAIL: libgit2 set-up that agenttask replaces ran at start-up: $ran"
	exit 1
fi
echo "agenttask path: $n instructions (at most $INSTRUCTIONS_MAX)"
if [ "$n" -gt "$INSTRUCTIONS_MAX" ]; then
	echo "FAIL: start-up is no longer cheap: a libgit2 set-up step (TLS, SSH) runs again"
	exit 1
fi
