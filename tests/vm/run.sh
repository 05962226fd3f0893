#!/usr/bin/env bash
# run.sh BUILD_DIR - `make check-vm`: the suites in a Debian 12 machine under qemu.
#
# Builds the image once (image.sh, cached in BUILD_DIR/vm/image), makes a work
# disk holding the built binary, the integration scripts, the list of suites
# (tests/vm/suites) and the guest's runner (guest.sh), boots the image with
# the work disk as /dev/vdb, and reads the results back from that disk with
# debugfs (no mount needed). Prints one line per suite and identity:
#   check-vm: limits suite as uid 1000 on cgroup v2: N passed, 0 failed
# and exits 1 when any suite failed or did not report.
#
# KVM when it works here (a probe boot), else software emulation (TCG);
# AT_VM_ACCEL=kvm or tcg forces one. AT_VM_TIMEOUT bounds the run (seconds).
# For a quick loop while developing: AT_VM_SUITES="limits" runs only the
# suites named, AT_VM_WHO=tester or root only one identity, and AT_VM_ONLY=REGEX
# only the tests whose names match (lib.sh's AT_ONLY). A run narrowed so is
# no verdict on the whole: its summary says so.
set -euo pipefail
build=$(realpath "${1:-build}")
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
bin="$build/cmd/agenttask"
[ -x "$bin" ] || { echo "check-vm: no binary at '$bin': build first" >&2; exit 1; }
timeout_s=${AT_VM_TIMEOUT:-3000}
t0=$(date +%s)

bash "$here/image.sh" "$build/vm/image"
img="$build/vm/image"
t_image=$(($(date +%s) - t0))

work=$(mktemp -d "$build/vm/run.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/disk/bin" "$work/disk/tests"
cp "$bin" "$work/disk/bin/agenttask"
cp "$top"/tests/integration/*.sh "$work/disk/tests/"
cp "$here/guest.sh" "$work/disk/"
if [ -n "${AT_VM_SUITES:-}" ]; then
	grep -E "^($(echo "$AT_VM_SUITES" | tr ' ,' '||'))[[:space:]]" "$here/suites" >"$work/disk/suites" ||
		{ echo "check-vm: no suite named '$AT_VM_SUITES' in tests/vm/suites" >&2; exit 2; }
else
	cp "$here/suites" "$work/disk/"
fi
printf '%s\n' "${AT_VM_WHO:-}" >"$work/disk/who"
printf '%s\n' "${AT_VM_ONLY:-}" >"$work/disk/only"
chmod -R a+rX "$work/disk"
truncate -s 512M "$work/work.img"
mkfs.ext4 -q -E root_owner=0:0 -d "$work/disk" "$work/work.img"

# The machine; the console is saved in $work/console.log.
qemu=(qemu-system-x86_64 -m 4096 -smp 2 -nographic -no-reboot -nic none
	-display none -monitor none -serial "file:$work/console.log"
	-kernel "$img/vmlinuz" -initrd "$img/initrd.img")

# Does KVM boot a kernel here? A nested guest may hang: give it 30 seconds.
kvm_works() {
	[ -r /dev/kvm ] && [ -w /dev/kvm ] || return 1
	# No virtualization extensions shown (a nested guest without them): no probe.
	grep -qw -e vmx -e svm /proc/cpuinfo || return 1
	timeout 30 "${qemu[@]}" -accel kvm -cpu host -append "console=ttyS0 panic=-1" >/dev/null 2>&1 || true
	grep -q "Kernel panic\|VFS: Unable to mount root" "$work/console.log" 2>/dev/null
}
accel=${AT_VM_ACCEL:-}
if [ -z "$accel" ]; then
	if kvm_works; then accel=kvm; else accel=tcg; fi
fi
# Baseline x86-64 under TCG: glibc's AVX string functions are slow to emulate.
cpu=qemu64 scale=4
[ "$accel" = kvm ] && cpu=host scale=1
echo "check-vm: booting Debian 12 ($(basename "$(ls "$img"/vmlinuz)") from $img) under $accel"

rc=0
timeout "$timeout_s" "${qemu[@]}" -accel "$accel" -cpu "$cpu" \
	-append "root=/dev/vda rw console=ttyS0 quiet panic=-1 systemd.show_status=0 agenttask.time_scale=$scale" \
	-drive "file=$img/root.img,format=raw,if=virtio,snapshot=on" \
	-drive "file=$work/work.img,format=raw,if=virtio" || rc=$?
if [ "$rc" != 0 ]; then
	echo "check-vm: qemu exited $rc (124: timed out after ${timeout_s}s); the console's end:" >&2
	tail -30 "$work/console.log" | tr -cd '\11\12\15\40-\176' >&2
fi

rm -rf "$build/vm/results"
debugfs -R "rdump /results $build/vm" "$work/work.img" >/dev/null 2>&1 || true
mkdir -p "$build/vm/results"
cp "$work/console.log" "$build/vm/results/console.log" 2>/dev/null || true
echo "check-vm: logs in $build/vm/results; image ready after ${t_image}s, all done after $(($(date +%s) - t0))s"

failed=0
expected=$(grep -cvE '^[[:space:]]*(#|$)' "$work/disk/suites")
seen=0
if [ -f "$build/vm/results/summary" ]; then
	while IFS='|' read -r name who status line cg secs; do
		seen=$((seen + 1))
		id=root
		[ "$who" = tester ] && id="uid 1000"
		# The suite's "N passed, M failed, K skipped": the skipped count goes to stderr.
		echo "check-vm: $name suite as $id on $cg: ${line%, * skipped}"
		echo "  ($name as $id: ${secs}s${line##*failed})" >&2
		case "$line" in *" passed, 0 failed"*) ;; *) failed=1 ;; esac
		[ "$status" = 0 ] || failed=1
	done <"$build/vm/results/summary"
fi
per=2
[ -z "${AT_VM_WHO:-}" ] || per=1
if [ "$seen" != $((expected * per)) ]; then
	echo "check-vm: $seen of $((expected * per)) suite runs reported" >&2
	failed=1
fi
if [ -n "${AT_VM_SUITES:-}${AT_VM_WHO:-}${AT_VM_ONLY:-}" ]; then
	echo "check-vm: a narrowed run (suites '${AT_VM_SUITES:-all}', who '${AT_VM_WHO:-both}', tests '${AT_VM_ONLY:-all}'): not the whole check"
fi
for f in "$build/vm/results"/*.log; do
	case "$f" in */console.log | */journal.log) continue ;; esac
	grep -q '^FAIL' "$f" && { echo "--- $(basename "$f")"; grep -A8 '^FAIL' "$f" | head -60; }
done
exit $failed
