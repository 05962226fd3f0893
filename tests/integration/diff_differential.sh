#!/usr/bin/env bash
# diff_differential.sh - agenttask's diff against git's over generated trees:
# diff_differential.py, whose docstring says what it compares (DIFF_PAIRS
# pairs per mode from the seed DIFF_SEED, drawn anew each run by default).
exec python3 "$(dirname "$0")/diff_differential.py" "$@"
