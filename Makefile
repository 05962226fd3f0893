# The two commands of the README, on a fresh Debian machine:
#   make demo    install what is missing, build, run a short real demo
#   make check   install what is missing, build, run every test (also under ASan+UBSan)

DEBIAN_PACKAGES := build-essential cmake pkg-config git python3 \
	libgit2-dev libseccomp-dev libcjson-dev libcmocka-dev libsystemd-dev \
	libssl-dev bubblewrap hyperfine util-linux procps iproute2
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
BUILD ?= build
BUILD_ASAN ?= build-asan

.PHONY: all deps build build-asan demo check check-fast bench clean

all: build

deps:
	@bash scripts/install-deps.sh $(DEBIAN_PACKAGES)

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DAT_WERROR=ON
	cmake --build $(BUILD) -j $(JOBS)

build-asan: deps
	cmake -S . -B $(BUILD_ASAN) -DCMAKE_BUILD_TYPE=Debug -DAT_WERROR=ON -DAT_SANITIZE=ON
	cmake --build $(BUILD_ASAN) -j $(JOBS)

demo: build
	@bash scripts/demo.sh $(BUILD)/cmd/agenttask

check: build build-asan
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)
	ctest --test-dir $(BUILD_ASAN) --output-on-failure -j $(JOBS)

# The plain build's tests only, for a quick loop while developing.
check-fast: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

bench: build
	@bash bench/run.sh $(BUILD)/cmd/agenttask

clean:
	rm -rf $(BUILD) $(BUILD_ASAN)
