#!/usr/bin/env bash
# bench/mcp.sh [AGENTTASK] [CALLS]: a `run` tool call of /bin/true through
# `agenttask mcp` against `agenttask run -- /bin/true` on the command line,
# in the same session: interleaved call by call (timed by the driver), then
# whole processes of CALLS calls each in hyperfine. Target: at most 1.2x.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$(realpath "${1:-build/cmd/agenttask}")
calls=${2:-20}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
git init -q -b main "$dir/repo"
git -C "$dir/repo" -c user.name=b -c user.email=b@b commit -q --allow-empty -m init
"$bin" -C "$dir/repo" new t >/dev/null
python3 "$here/mcp_driver.py" "$bin" "$dir/repo" both 100
if command -v hyperfine >/dev/null; then
	hyperfine -N -w 2 -r 10 \
		"python3 $here/mcp_driver.py $bin $dir/repo mcp $calls" \
		"python3 $here/mcp_driver.py $bin $dir/repo cli $calls"
fi
