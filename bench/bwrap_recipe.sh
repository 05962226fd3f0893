# bench/bwrap_recipe.sh - the seed's recipe: bubblewrap at the isolation of
# `agenttask run`, sourced by bench/sandbox.sh and bench/startup.sh.
#
# Needs BWRAP (the bwrap binary), work (a scratch directory holding the
# file "config", the sanitized git config), WT (the task's worktree) and
# COMMON (the git common dir). Defines the arrays b (the default line), bnet
# (--share-net) and bov (git under an overlay, empty when BWRAP has none).
# The bwrap command line, mirroring sandbox/mounts.c's plan.
b=("$BWRAP" --unshare-all --unshare-user --hostname agenttask --die-with-parent --new-session
	--cap-drop ALL --clearenv --setenv PATH /usr/local/bin:/usr/bin:/bin
	--setenv HOME /home/sandbox)
for d in usr bin sbin lib lib64 lib32 libx32; do
	if [ -L "/$d" ]; then
		b+=(--symlink "$(readlink "/$d")" "/$d")
	elif [ -d "/$d" ]; then
		b+=(--ro-bind "/$d" "/$d")
	fi
done
# /etc whole, read-only, with what is not world-readable covered (sandbox/etc.c):
# a directory by a read-only tmpfs, anything else by an empty file; a top-level
# link out of /etc and /usr gets its target bound; gitconfig covered; passwd
# and group synthesized. The walk is done here, untimed: bwrap is handed it.
: >"$work/empty"
getent passwd root >"$work/passwd"
getent group root >"$work/group"
b+=(--ro-bind /etc /etc)
while IFS= read -r -d '' p; do
	if [ -d "$p" ] && [ ! -L "$p" ]; then
		b+=(--tmpfs "$p" --remount-ro "$p")
	else
		b+=(--ro-bind "$work/empty" "$p")
	fi
done < <(find /etc -mindepth 1 \( -type d ! -perm -o+rx -prune -print0 \) -o \
	\( ! -type d ! -type l ! \( -type f -perm -o+r \) -print0 \))
[ -e /etc/gitconfig ] && b+=(--ro-bind "$work/empty" /etc/gitconfig)
for p in /etc/*; do
	[ -L "$p" ] || continue
	real=$(realpath "$p" 2>/dev/null) || continue
	case $real in /etc/* | /usr/* | /proc/*) continue ;; esac
	[ -f "$real" ] && [ -r "$real" ] && b+=(--ro-bind "$real" "$real")
done
b+=(--ro-bind "$work/passwd" /etc/passwd --ro-bind "$work/group" /etc/group)
# /sys with the CPU and memory topology only.
b+=(--tmpfs /sys)
for d in cpu memory node; do
	[ -d "/sys/devices/system/$d" ] && b+=(--ro-bind "/sys/devices/system/$d" "/sys/devices/system/$d")
done
b+=(--remount-ro /sys)
# The lasting home, then the task's git: agenttask mounts the common dir
# under an overlay with the task's upper (app/gitview.c), in which its
# sanitized config is. Debian 12's bwrap (0.8) has no overlay (--overlay
# came in 0.9): its line gets the common dir read-only with the sanitized
# config bound over it, as before git worked inside, which spares it the
# overlay's cost (about 0.4 ms). A bwrap with --overlay (BWRAP) also gets the
# line "bwrap, git under an overlay": the common dir under an overlay whose
# upper holds that config, the writable git view's isolation. Then the
# worktree.
mkdir -p "$work/home"
b+=(--tmpfs /tmp --bind "$work/home" /home/sandbox --dev /dev --tmpfs /dev/shm --remount-ro /dev
	--proc /proc)
tail=(--tmpfs "$COMMON/agenttask" --bind "$WT" "$WT" --ro-bind "$WT/.git" "$WT/.git"
	--remount-ro "$COMMON/agenttask" --remount-ro / --chdir "$WT")
bov=()
if "$BWRAP" --help 2>&1 | grep -q -- '--overlay '; then
	mkdir -p "$work/upper" "$work/owork"
	cp "$work/config" "$work/upper/config"
	bov=("${b[@]}" --overlay-src "$COMMON" --overlay "$work/upper" "$work/owork" "$COMMON"
		"${tail[@]}")
fi
b+=(--ro-bind "$COMMON" "$COMMON" --ro-bind "$work/config" "$COMMON/config" "${tail[@]}")
bnet=("${b[0]}" --share-net "${b[@]:1}")
