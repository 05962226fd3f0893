#!/usr/bin/env bash
# install.sh - what `make install` lands, and that each piece works: the
# binary, the man pages (rendered by man -l without a warning, the same text
# as --help), the bash completion (through compgen), the zsh and fish ones;
# and that uninstall removes exactly what install put there.
#
# $AT_BUILD_DIR is the CMake build directory of $AGENTTASK (ctest sets it).
. "$(dirname "$0")/lib.sh"
BUILD=${AT_BUILD_DIR:?AT_BUILD_DIR must name the build directory}
SRC=$(cd "$(dirname "$0")/../.." && pwd)

# The commands, as `agenttask --help` lists them.
commands() {
	"$AT" --help | sed -n '/^commands:$/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p'
}

# install_to DEST PREFIX: CMake's install rules, as `make install` runs them.
install_to() {
	DESTDIR=$1 cmake --install "$BUILD" --prefix "$2" >/dev/null
}

test_install_lands_every_file_and_nothing_else() {
	local want c
	install_to "$PWD/dest" /usr
	want=$({
		echo usr/bin/agenttask
		echo usr/share/man/man1/agenttask.1
		for c in $(commands); do echo "usr/share/man/man1/agenttask-$c.1"; done
		echo usr/share/bash-completion/completions/agenttask
		echo usr/share/zsh/vendor-completions/_agenttask
		echo usr/share/fish/vendor_completions.d/agenttask.fish
		echo usr/share/doc/agenttask/README.md
		echo usr/share/doc/agenttask/cli.md
		echo usr/share/doc/agenttask/security.md
		# Where this machine uses AppArmor, its profile (AT_APPARMOR=auto).
		[ ! -d /etc/apparmor.d ] || echo etc/apparmor.d/agenttask
	} | sort)
	assert_eq "$(cd dest && find . -type f -o -type l | sed 's|^\./||' | sort)" "$want" "files installed"
	[ -x dest/usr/bin/agenttask ] || fail "binary not executable"
	cmp -s dest/usr/bin/agenttask "$AT" || fail "installed binary differs from the build's"
	cmp -s dest/usr/share/bash-completion/completions/agenttask \
		"$SRC/dist/completion/agenttask.bash" || fail "bash completion differs"
	if [ -d /etc/apparmor.d ]; then
		grep -q '^profile agenttask /usr/bin/agenttask ' dest/etc/apparmor.d/agenttask ||
			fail "the profile names another binary: $(grep '^profile' dest/etc/apparmor.d/agenttask)"
	fi
}

test_prefix_decides_where_files_go() {
	install_to "$PWD/dest" /opt/at
	assert_file dest/opt/at/bin/agenttask
	assert_file dest/opt/at/share/man/man1/agenttask-run.1
	# zsh has no completion directory of its own outside /usr: site-functions.
	assert_file dest/opt/at/share/zsh/site-functions/_agenttask
	# Outside the prefix only the AppArmor profile, under /etc where AppArmor looks.
	[ -z "$(find dest -path dest/opt -prune -o -path dest/etc/apparmor.d/agenttask -prune -o \
		-type f -print)" ] || fail "files outside the prefix"
	[ ! -d /etc/apparmor.d ] || grep -q '^profile agenttask /opt/at/bin/agenttask ' \
		dest/etc/apparmor.d/agenttask || fail "the profile names another binary"
}

test_version_names_the_libraries() {
	install_to "$PWD/dest" /usr
	out=$(dest/usr/bin/agenttask --version)
	assert_eq "$(printf '%s\n' "$out" | sed -n 1p)" "agenttask $(sed -n 's/^project(agenttask VERSION \([0-9.]*\).*/\1/p' "$SRC/CMakeLists.txt")" "first line"
	printf '%s\n' "$out" | grep -Eqx 'libgit2 [0-9]+\.[0-9]+\.[0-9]+' || fail "no libgit2 version: $out"
	printf '%s\n' "$out" | grep -Eqx 'libseccomp [0-9]+\.[0-9]+\.[0-9]+' || fail "no libseccomp version: $out"
	# The Debian package says the same version.
	assert_eq "$(dpkg-parsechangelog -l "$SRC/debian/changelog" -S Version)" \
		"$(printf '%s\n' "$out" | sed -n 's/^agenttask //p')" "debian/changelog's version"
}

# Every page renders without a warning of groff's or man's; the text under
# OPTIONS is the command's own help (the pages are made from it).
test_man_pages_render_without_warnings() {
	local page c warn opt
	install_to "$PWD/dest" /usr
	for page in dest/usr/share/man/man1/*.1; do
		warn=$(MANWIDTH=80 man --warnings -E UTF-8 -l "$page" 2>&1 >/dev/null)
		[ -z "$warn" ] || fail "man -l $page warns: $warn"
	done
	for c in $(commands); do
		out=$(MANWIDTH=200 man -E UTF-8 -l "dest/usr/share/man/man1/agenttask-$c.1" 2>/dev/null |
			sed 's/\xe2\x80\x90//g')
		assert_contains "$out" "agenttask-$c - $("$AT" --help | sed -n "s/^  $c  *//p")" "$c: NAME line"
		for opt in $("$AT" help "$c" | sed -n 's/^  \(--[a-z][a-z-]*\).*/\1/p'); do
			assert_contains "$out" "$opt" "$c: option $opt in the page"
		done
	done
	out=$(MANWIDTH=200 man -E UTF-8 -l dest/usr/share/man/man1/agenttask.1)
	for c in $(commands); do
		assert_contains "$out" "agenttask-$c(1)" "agenttask(1) lists $c"
	done
	[ "$(commands | wc -l)" -ge 13 ] || fail "too few commands found: $(commands)"
}

test_help_command_shows_the_same_text_as_help_option() {
	local c a b
	for c in $(commands); do
		a=$("$AT" help "$c")
		b=$("$AT" "$c" --help)
		assert_eq "$a" "$b" "help $c and $c --help"
	done
	assert_eq "$("$AT" help)" "$("$AT" --help)" "help alone is the overview"
	expect_rc 2 "unknown command" help frobnicate
	assert_contains "$errout" "unknown command 'frobnicate'" "names it"
	expect_rc 2 "two commands" help new list
}

# docs/cli.md quotes every command's help: it must be the help of this binary.
test_cli_reference_is_the_help() {
	python3 "$SRC/scripts/cli-md.py" "$AT" --check || fail "docs/cli.md is stale"
}

# complete_bash WORD...: the replies of the installed bash completion for the
# command line WORD... (the last word is the one being completed).
complete_bash() {
	bash --norc -c '
		. "$1"; shift
		complete -p agenttask >/dev/null || { echo "not registered" >&2; exit 1; }
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=()
		_agenttask
		printf "%s\n" "${COMPREPLY[@]}" | sort -u' \
		_ "$bash_completion" "$@"
}

test_bash_completion_completes_commands_options_and_tasks() {
	install_to "$PWD/dest" /usr
	bash_completion=$PWD/dest/usr/share/bash-completion/completions/agenttask
	make_repo repo
	(cd repo && "$AT" new fix-bug >/dev/null && "$AT" new fix-docs >/dev/null && "$AT" new other >/dev/null)
	PATH=$(dirname "$AT"):$PATH
	assert_eq "$(complete_bash agenttask di)" "$(printf 'diff\ndiscard')" "commands"
	assert_eq "$(complete_bash agenttask "")" "$(commands | sort)" "every command"
	assert_eq "$(complete_bash agenttask --v)" "--version" "global option"
	assert_eq "$(complete_bash agenttask accept --s)" "--squash" "option of accept"
	# Every option its help lists (read here by another means), and --help.
	assert_eq "$(complete_bash agenttask accept -)" \
		"$({ "$AT" help accept | grep -oE '^  -[a-z]|^  --[a-z-]+|^  -[a-z], --[a-z-]+' |
			tr ',' '\n' | tr -d ' '; echo --help; } | sort -u)" "every option of accept"
	assert_contains "$(complete_bash agenttask accept -)" "--ff-only" "--ff-only among them"
	assert_contains "$(complete_bash agenttask accept -)" "-m" "-m among them"
	assert_eq "$(complete_bash agenttask help res)" "restore" "help takes a command"
	assert_eq "$(cd repo && complete_bash agenttask discard fix)" "$(printf 'fix-bug\nfix-docs')" "task names"
	assert_eq "$(complete_bash agenttask -C repo status o)" "other" "task names of -C DIR"
	assert_empty "list takes no task" complete_bash agenttask list ""
	(cd repo && "$AT" discard other >/dev/null)
	assert_eq "$(cd repo && complete_bash agenttask restore "")" "other" "restore: names in the trash"
	assert_eq "$(cd repo && complete_bash agenttask discard "")" "$(printf 'fix-bug\nfix-docs')" \
		"a discarded task is no longer a task"
	(cd repo && assert_empty "no task name as -m's value" complete_bash agenttask accept -m "")
	touch repo/policy.json
	assert_eq "$(cd repo && complete_bash agenttask gate --policy pol)" "policy.json" "--policy FILE takes a file"
	assert_eq "$(cd repo && complete_bash agenttask run fix-bug -- agenttas)" "agenttask" "run's command after --"
}

test_zsh_and_fish_completions_load() {
	install_to "$PWD/dest" /usr
	make_repo repo
	(cd repo && "$AT" new fix-bug >/dev/null)
	PATH=$(dirname "$AT"):$PATH
	zsh -n dest/usr/share/zsh/vendor-completions/_agenttask || fail "zsh syntax"
	out=$(HOME=$PWD zsh -f -c 'fpath=("$1" $fpath); autoload -Uz compinit; compinit -u -d "$PWD/zcomp"
		print -r -- $_comps[agenttask]' _ "$PWD/dest/usr/share/zsh/vendor-completions")
	assert_eq "$out" "_agenttask" "zsh's compinit registers the completion"
	fish_completion=$PWD/dest/usr/share/fish/vendor_completions.d/agenttask.fish
	fish -n "$fish_completion" || fail "fish syntax"
	out=$(cd repo && HOME=$PWD/.. fish --no-config -c 'source $argv[1]; complete -C "agenttask di"' \
		"$fish_completion" | cut -f1)
	assert_eq "$out" "$(printf 'diff\ndiscard')" "fish: commands"
	out=$(cd repo && HOME=$PWD/.. fish --no-config -c 'source $argv[1]; complete -C "agenttask status "' \
		"$fish_completion")
	assert_eq "$out" "fix-bug" "fish: task names"
}

test_uninstall_removes_what_install_put_and_nothing_else() {
	install_to "$PWD/dest" /usr/local
	mkdir -p dest/usr/local/share/man/man1
	echo mine >dest/usr/local/bin/other-tool
	echo mine >dest/usr/local/share/man/man1/other-tool.1
	bash "$SRC/scripts/uninstall.sh" "$BUILD" "$PWD/dest" /usr/local >/dev/null
	assert_eq "$(cd dest && find . -type f | sort)" \
		"$(printf '%s\n' ./usr/local/bin/other-tool ./usr/local/share/man/man1/other-tool.1)" \
		"only the files of others are left"
}

run_tests
