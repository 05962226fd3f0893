#!/usr/bin/env bash
# One real dependency install through the allowlist proxy: `npm install` of a
# small package in the sandbox, with --allow-host naming the registry host this
# machine's npm is configured with (read from `npm config get registry` now:
# no registry host is written into the project). The same install with an
# allowance that does not name the registry is refused by the proxy.
# As the invoking user, and (run by root) as uid 65534 too.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/net_lib.sh"   # as_user only: no namespace is made

command -v npm >/dev/null || skip_suite "npm is not installed"
REGISTRY=$(npm config get registry)
read -r HOSTPORT < <(python3 -c 'import sys, urllib.parse as u
p = u.urlsplit(sys.argv[1])
port = p.port or (443 if p.scheme == "https" else 80)
host = "[%s]" % p.hostname if ":" in p.hostname else p.hostname
print(host if port in (80, 443) else "%s:%d" % (host, port))' "$REGISTRY")
[ -n "$HOSTPORT" ] || skip_suite "cannot read the registry's host from '$REGISTRY'"
timeout 60 npm view is-number@7.0.0 version >/dev/null 2>&1 ||
	skip_suite "the registry '$REGISTRY' does not answer from this machine"

BIN=$(mktemp -d "$_at_root/bin.XXXXXX")
chmod 755 "$BIN"
cp "$AT" "$BIN/agenttask"
chmod 755 "$BIN/agenttask"

setup_task() {
	[ "${NET_USER:-me}" != nobody ] || chown 65534:65534 .
	as_user git init -q -b main repo
	as_user git -C repo -c user.name=u -c user.email=u@u commit -q --allow-empty -m init
	as_user "$BIN/agenttask" -C repo new t >/dev/null
	WT=$(as_user "$BIN/agenttask" -C repo path t)
}

npm_in_sandbox() {
	set +e
	as_user "$BIN/agenttask" -C repo run t -v "$@" --env "npm_config_registry=$REGISTRY" -- \
		npm install --no-audit --no-fund --fetch-retries=0 --fetch-timeout=30000 \
		is-number@7.0.0 >out.txt 2>err.txt
	rc=$?
	set -e
}

case_npm_install_through_the_allowed_registry() {
	setup_task
	npm_in_sandbox --allow-host "$HOSTPORT"
	[ "$rc" = 0 ] || fail "npm install through --allow-host '$HOSTPORT': $(cat out.txt err.txt)"
	grep -q '"version": "7.0.0"' "$WT/node_modules/is-number/package.json" ||
		fail "is-number was not installed in the worktree"
	grep -q "agenttask: net allowed connect $HOSTPORT" err.txt ||
		fail "the connection is recorded: $(cat err.txt)"
}

case_npm_install_without_the_allowance_is_refused() {
	setup_task
	npm_in_sandbox --allow-host registry.invalid
	[ "$rc" != 0 ] || fail "npm install succeeded without an allowance"
	[ ! -e "$WT/node_modules/is-number" ] || fail "is-number was installed"
	grep -q "agenttask: net denied connect ${HOSTPORT%%:*}" err.txt ||
		fail "the refusal is recorded: $(cat err.txt)"
}

for c in $(declare -F | awk '{print $3}' | grep '^case_'); do
	eval "test_${c#case_}() { NET_USER=me $c; }"
	[ "$(id -u)" = 0 ] && eval "test_${c#case_}__as_nobody() { NET_USER=nobody $c; }"
done
run_tests
