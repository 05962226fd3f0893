#!/usr/bin/env bash
# Run libFuzzer harnesses of a fuzz build for a while each.
#
#   run.sh BUILD_DIR SECONDS [NAME...]     (every harness built when no NAME)
#
# Each harness starts from its seed corpus (tests/fuzz/corpus/NAME, which
# holds the regression inputs of past crashes too) and from what earlier runs
# found (BUILD_DIR/fuzz/NAME/corpus: new inputs go there, never into the
# source tree). A crash, a leak, undefined behaviour, a failed check, an input
# slower than 10 s or a run over 2 GB fails the run; the input that did it is
# kept under BUILD_DIR/fuzz/NAME/ and the line to reproduce it is printed.
# Used by `make fuzz` (FUZZ_SECONDS each, default 300) and by ctest in the
# fuzz build, which `make check` runs (20 s each).
set -euo pipefail

[ $# -ge 2 ] || { echo "usage: run.sh BUILD_DIR SECONDS [NAME...]" >&2; exit 2; }
build=$(cd "$1" && pwd)
seconds=$2
shift 2
src=$(cd "$(dirname "$0")" && pwd)
bindir=$build/tests/fuzz

names=("$@")
if [ ${#names[@]} -eq 0 ]; then
	for bin in "$bindir"/fuzz_*; do
		[ -x "$bin" ] && names+=("${bin##*/fuzz_}")
	done
fi
[ ${#names[@]} -gt 0 ] || { echo "run.sh: no harness built in '$bindir'" >&2; exit 2; }

# Harnesses that go through files write them in a private directory under
# TMPDIR: on tmpfs, not a disk, a file harness runs some 70 times faster.
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
	export TMPDIR=/dev/shm
fi
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:allocator_may_return_null=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# Print one summary line from libFuzzer's final statistics.
summary() {
	local name=$1 log=$2 status=$3 execs corpus
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	corpus=$(find "$build/fuzz/$name/corpus" -type f | wc -l)
	printf 'fuzz %-12s %-6s %12s executions in %4s s, %5s inputs in its corpus\n' \
		"$name" "$status" "${execs:-?}" "$seconds" "$corpus"
}

failed=0
for name in "${names[@]}"; do
	bin=$bindir/fuzz_$name
	work=$build/fuzz/$name
	seeds=$src/corpus/$name
	[ -x "$bin" ] || { echo "run.sh: no harness '$name' in '$bindir'" >&2; exit 2; }
	[ -d "$seeds" ] || { echo "run.sh: no seed corpus '$seeds'" >&2; exit 2; }
	mkdir -p "$work/corpus" "$work/crashes"
	rm -f "$work"/crashes/*
	dict=()
	[ -f "$src/$name.dict" ] && dict=(-dict="$src/$name.dict")
	log=$work/log
	if "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$work/crashes/" "${dict[@]}" \
		"$work/corpus" "$seeds" >"$log" 2>&1; then
		summary "$name" "$log" ok
	else
		summary "$name" "$log" FAILED
		tail -n 60 "$log"
		for input in "$work"/crashes/*; do
			[ -f "$input" ] || continue
			echo "input kept: $input"
			echo "  reproduce: $bin $input"
			echo "  once fixed, keep it: cp $input $seeds/regress-${input##*/}"
		done
		failed=1
	fi
done
exit $failed
