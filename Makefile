# The two commands of the README, on a fresh Debian machine:
#   make demo    install what is missing, build, run a short real demo
#   make check   install what is missing, build, run every test (also under ASan+UBSan),
#                and every fuzz harness briefly (FUZZ_CHECK_SECONDS each)
# and, for longer fuzzing:
#   make fuzz    run each libFuzzer harness for FUZZ_SECONDS (FUZZ="index policy" for some)

DEBIAN_PACKAGES := build-essential cmake pkg-config git python3 \
	libgit2-dev libseccomp-dev libcjson-dev libcmocka-dev libsystemd-dev \
	libssl-dev libhttp-parser-dev ca-certificates bubblewrap hyperfine util-linux procps \
	iproute2 curl openssl valgrind \
	clang libclang-rt-14-dev \
	man-db groff-base zsh fish nodejs python3-jsonschema
# What check-vm needs besides: the image builder, qemu, and debugfs to read the
# results back.
VM_PACKAGES := mmdebstrap qemu-system-x86 e2fsprogs
# What `make deb` and `make check-deb` need besides: Debian's packaging tools,
# and mmdebstrap for the clean Debian 12 root the package is tried in.
DEB_PACKAGES := debhelper dpkg-dev fakeroot mmdebstrap
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
BUILD ?= build
BUILD_ASAN ?= build-asan
BUILD_FUZZ ?= build-fuzz
FUZZ_SECONDS ?= 300
FUZZ_CHECK_SECONDS ?= 12
FUZZ ?=

PREFIX ?= /usr/local
DESTDIR ?=

.PHONY: all deps build build-asan build-fuzz demo check check-layered check-fast check-under-load check-vm fuzz bench install \
	uninstall configure-prefix deb check-deb clean

all: build

deps:
	@bash scripts/install-deps.sh $(DEBIAN_PACKAGES)
	@# npm for the real-install test (tests/integration/net_npm.sh): a machine
	@# whose Node.js comes with its own npm keeps it; elsewhere Debian's.
	@command -v npm >/dev/null || bash scripts/install-deps.sh nodejs npm
	@# Jest (tests/integration/worktree_place.sh), the official MCP SDK
	@# client (tests/mcp) and Claude Code (tests/claude), each as its
	@# lockfile pins it.
	@bash scripts/install-deps.sh npm:tests/jest npm:tests/mcp npm:tests/claude

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DAT_WERROR=ON
	cmake --build $(BUILD) -j $(JOBS)

# ASan and UBSan, optimized (-O1, as ASan's authors advise: a third of -O0's
# time) with assertions kept: the build the integration suites run under.
build-asan: deps
	cmake -S . -B $(BUILD_ASAN) -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-g -O1" \
		-DAT_WERROR=ON -DAT_SANITIZE=ON
	cmake --build $(BUILD_ASAN) -j $(JOBS)

# libFuzzer harnesses only (tests/fuzz), built by clang with ASan and UBSan.
build-fuzz: deps
	cmake -S . -B $(BUILD_FUZZ) -DCMAKE_C_COMPILER=clang -DAT_FUZZ=ON -DAT_WERROR=ON \
		-DAT_FUZZ_SECONDS=$(FUZZ_CHECK_SECONDS)
	cmake --build $(BUILD_FUZZ) -j $(JOBS)

demo: build
	@bash scripts/demo.sh $(BUILD)/cmd/agenttask

# Every test once: the unit tests under both builds; the integration suites
# (label `suite`) under the sanitized one on full tasks, and again under the
# plain one on layered tasks (label `layered`); install and start-up (label
# `plain`) under the plain one only; every fuzz harness briefly.
check: build build-asan build-fuzz
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) -LE 'suite|layered_extra'
	ctest --test-dir $(BUILD_ASAN) --output-on-failure -j $(JOBS) -LE 'plain|layered'
	ctest --test-dir $(BUILD_FUZZ) --output-on-failure -j $(JOBS)

# Every suite again on layered tasks (labels layered and layered_extra:
# tests/integration/layered.cmake), under the plain build.
check-layered: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) -L layered

# `make check` three times in a row while two busy processes (one per core)
# run beside it: no test may depend on how fast or quiet the machine is.
check-under-load: build build-asan build-fuzz
	bash scripts/under-load.sh 3 $(MAKE) --no-print-directory check

# The libFuzzer harnesses for FUZZ_SECONDS each, and the differential test of
# the diff over DIFF_FUZZ_PAIRS generated pairs of trees.
DIFF_FUZZ_PAIRS ?= 2000
fuzz: build-fuzz build
	bash tests/fuzz/run.sh $(BUILD_FUZZ) $(FUZZ_SECONDS) $(FUZZ)
	AGENTTASK=$(BUILD)/cmd/agenttask DIFF_PAIRS=$(DIFF_FUZZ_PAIRS) \
		python3 tests/integration/diff_differential.py

# The plain build's tests, every suite included, for a quick loop while developing.
check-fast: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

# The suites again in a Debian 12 machine under qemu (tests/vm/run.sh): systemd,
# pure cgroup v2, Debian's 6.1 kernel; as uid 1000 and as root.
check-vm: build
	@bash scripts/install-deps.sh $(VM_PACKAGES)
	bash tests/vm/run.sh $(BUILD)

# The binary, the man pages, the bash, zsh and fish completions, the docs, and
# the AppArmor profile where AppArmor is in use (Ubuntu 24.04 and later restrict
# user namespaces to programs it allows), under $(DESTDIR)$(PREFIX) (the
# profile under $(DESTDIR)/etc), as CMake's install rules say.
install: configure-prefix
	DESTDIR="$(DESTDIR)" cmake --install $(BUILD)

# Removes every file `make install` installs (the list: the same install into a
# scratch directory), and nothing else; directories stay.
uninstall: configure-prefix
	@bash scripts/uninstall.sh "$(BUILD)" "$(DESTDIR)" "$(PREFIX)"

configure-prefix: build
	cmake -S . -B $(BUILD) -DCMAKE_INSTALL_PREFIX="$(PREFIX)" >/dev/null
	cmake --build $(BUILD) -j $(JOBS)

# A Debian package from this tree (debian/), in $(BUILD)/deb/.
deb:
	@bash scripts/install-deps.sh $(filter-out mmdebstrap,$(DEB_PACKAGES))
	bash scripts/build-deb.sh $(BUILD)/deb

# The package installed in a clean Debian 12 root, where --version, help, doctor
# and a task's life must work. Heavy (a Debian bootstrap, minutes): not in check.
check-deb: deb
	@bash scripts/install-deps.sh $(DEB_PACKAGES)
	bash tests/package/deb_chroot.sh $(BUILD)/deb

bench: build
	@bash bench/run.sh $(BUILD)/cmd/agenttask

clean:
	rm -rf $(BUILD) $(BUILD_ASAN) $(BUILD_FUZZ)
