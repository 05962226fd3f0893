#!/usr/bin/env bash
# Every benchmark, in turn: task creation and diff against git, then sandbox
# start-up against bubblewrap. Results go to docs/performance.md by hand.
set -euo pipefail
here=$(dirname "$0")
bin=${1:-build/cmd/agenttask}
bash "$here/git.sh" "$bin"
bash "$here/sandbox.sh" "$bin"
bash "$here/startup.sh" "$bin"
bash "$here/mcp.sh" "$bin"
