# contest: the two set-up commands are `make run` and `make test`.
# Everything a fresh Debian 12 machine needs is installed by `make deps`.
BUILD    ?= build
PREFIX   ?= /usr/local
JOBS     ?= $(shell nproc)
CONFIG   ?= configs/quick.conf
SUDO     := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# Build and test dependencies (Debian package names).
DEPS := cmake make g++ libboost-dev libboost-program-options-dev libboost-filesystem-dev \
        nlohmann-json3-dev catch2 time tar zlib1g-dev
# What a kernel build needs besides the source (contest checks for each).
KERNEL_TOOLS := bc bison flex libelf-dev libssl-dev gcc make xz-utils
# The tests run these for real: dbench_load's test runs dbench, and the
# kernel workload's tests build a fake tree through the real tool check. The
# kernel source itself (linux-source-6.1, 150 MB) is not needed by any test.
# tests/fleet runs deploy/ansible with ansible-core (24 MB; Debian's `ansible`
# adds 250 MB of collections the role does not use), git archive and apt.
TEST_DEPS := dbench $(KERNEL_TOOLS) ansible-core git python3-apt
# For --workload kernel: the source tarball and the tools.
KERNEL_DEPS := linux-source-6.1 $(KERNEL_TOOLS)

.PHONY: all deps deps-test deps-kernel configure run test install clean format

# `make` builds the tool only; `make test` builds the test binaries too
# (one of them under ASan/UBSan), which takes a few minutes more.
all: configure
	cmake --build $(BUILD) -j $(JOBS) --target contest

# Installs only what is missing; `apt-get update` first, since a fresh
# machine's package lists are stale.
deps:
	@./scripts/install-deps $(DEPS)

deps-test:
	@./scripts/install-deps $(TEST_DEPS)

deps-kernel:
	@./scripts/install-deps $(KERNEL_DEPS)

configure: deps
	@[ -f $(BUILD)/CMakeCache.txt ] || cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release

run: all
	./$(BUILD)/contest run --config $(CONFIG)

# The tests run with a PATH of only what the lists above (and the base
# system) install, so that a program nothing installs fails the tests here
# and not first on a fresh machine (scripts/dependency-path).
test: all deps-test
	cmake --build $(BUILD) -j $(JOBS)
	./scripts/dependency-path $(BUILD)/dependency-path $(DEPS) $(TEST_DEPS)
	cd $(BUILD) && PATH="$(abspath $(BUILD))/dependency-path" ctest --output-on-failure -j 2 --timeout 600

install: all
	cmake --install $(BUILD) --prefix $(PREFIX)

format:
	clang-format -i contest/*/*.cpp contest/*/*.h loads/*.cpp loads/*.h workloads/*.cpp workloads/*.h tests/*.cpp

clean:
	rm -rf $(BUILD)
