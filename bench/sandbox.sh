#!/usr/bin/env bash
# bench/sandbox.sh - start-up cost of `agenttask run` against bubblewrap at
# the same isolation, in one hyperfine run.
#
#   bench/sandbox.sh [AGENTTASK] [RUNS]
#
# bwrap gets the same namespaces (--unshare-all), --die-with-parent,
# --new-session, the same binds (system dirs, the same /etc entries, private
# /tmp and home, /dev, /proc, the git common dir read-only with a sanitized
# config over it, the state dir hidden, the worktree read-write, its .git
# pointer read-only), a cleared environment and all capabilities dropped.
# It gets no seccomp filter (bwrap only loads a precompiled one), which
# favours bwrap slightly. Also measured: agenttask with --net (no network
# namespace), to isolate that step, and the per-step timings of --verbose.
set -eu
AT=${1:-$(dirname "$0")/../build-sb/cmd/agenttask}
AT=$(realpath "$AT")
RUNS=${2:-200}
command -v hyperfine >/dev/null || { echo "hyperfine is needed" >&2; exit 1; }
command -v bwrap >/dev/null || { echo "bwrap is needed" >&2; exit 1; }

dir=$(mktemp -d /tmp/agenttask-bench.XXXXXX)
trap 'rm -rf "$dir"' EXIT
export GIT_CONFIG_NOSYSTEM=1
git init -q -b main "$dir/repo"
git -C "$dir/repo" -c user.name=b -c user.email=b@b commit -q --allow-empty -m init
WT=$(realpath "$("$AT" -C "$dir/repo" new bench)")
COMMON=$(realpath "$(git -C "$dir/repo" rev-parse --absolute-git-dir)")
printf '[core]\n\tbare = false\n\trepositoryformatversion = 0\n' >"$dir/config"

b=(bwrap --unshare-all --die-with-parent --new-session --cap-drop ALL --clearenv
	--setenv PATH /usr/local/bin:/usr/bin:/bin --setenv HOME /home/sandbox)
for d in usr bin sbin lib lib64 lib32 libx32; do
	if [ -L "/$d" ]; then b+=(--symlink "$(readlink "/$d")" "/$d")
	elif [ -d "/$d" ]; then b+=(--ro-bind "/$d" "/$d"); fi
done
for e in passwd group hosts resolv.conf nsswitch.conf host.conf gai.conf ld.so.cache ld.so.conf \
	ld.so.conf.d localtime timezone ssl ca-certificates ca-certificates.conf alternatives \
	mime.types protocols services bash.bashrc profile profile.d inputrc os-release \
	debian_version locale.alias manpath.config; do
	[ -e "/etc/$e" ] && b+=(--ro-bind "/etc/$e" "/etc/$e")
done
b+=(--tmpfs /tmp --tmpfs /home/sandbox --dev /dev --proc /proc
	--ro-bind "$COMMON" "$COMMON" --ro-bind "$dir/config" "$COMMON/config"
	--tmpfs "$COMMON/agenttask" --bind "$WT" "$WT" --ro-bind "$WT/.git" "$WT/.git"
	--remount-ro / --chdir "$WT")

"${b[@]}" /bin/true || { echo "bwrap cannot run here" >&2; exit 1; }
cd "$dir/repo"
hyperfine -N --warmup 20 --runs "$RUNS" --export-markdown "$dir/result.md" \
	-n "agenttask run" "$AT run bench -- /bin/true" \
	-n "agenttask run --net" "$AT run bench --net -- /bin/true" \
	-n "bwrap (same isolation)" "${b[*]} /bin/true"
cat "$dir/result.md"

echo
echo "per-step (median of 50 runs, ms after clone, from --verbose):"
for i in $(seq 50); do "$AT" run bench -v -- /bin/true 2>&1 >/dev/null | grep 'step'; done |
	awk '{s[$3] = s[$3] " " $4} END {for (k in s) print k, s[k]}' |
	while read -r name vals; do
		printf '  %-14s %s\n' "$name" "$(echo "$vals" | tr ' ' '\n' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')"
	done | sort -k2 -n
