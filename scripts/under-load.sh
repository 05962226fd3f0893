#!/usr/bin/env bash
# under-load.sh N COMMAND...: run COMMAND N times in a row while one busy
# process per core spins beside it (at the same priority), and stop at the
# first failure. `make check-under-load`: the suite must not depend on how
# fast or how quiet the machine is.
set -u
n=$1
shift
busy=()
cleanup() {
	[ ${#busy[@]} -eq 0 ] || kill "${busy[@]}" 2>/dev/null
	wait 2>/dev/null
}
trap cleanup EXIT
for _ in $(seq "$(nproc)"); do
	sh -c 'while :; do :; done' &
	busy+=($!)
done
echo "under-load: ${#busy[@]} busy processes beside $n runs of: $*"
for i in $(seq "$n"); do
	t0=$(date +%s)
	if ! "$@"; then
		echo "under-load: run $i of $n FAILED after $(($(date +%s) - t0)) s"
		exit 1
	fi
	echo "under-load: run $i of $n passed in $(($(date +%s) - t0)) s"
done
echo "under-load: $n of $n runs passed"
