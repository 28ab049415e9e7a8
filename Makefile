# contest: the two set-up commands are `make run` and `make test`.
# Everything a fresh Debian 12 machine needs is installed by `make deps`.
BUILD    ?= build
PREFIX   ?= /usr/local
JOBS     ?= $(shell nproc)
CONFIG   ?= configs/quick.conf
SUDO     := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# Build and test dependencies (Debian package names).
DEPS := cmake make g++ libboost-dev libboost-program-options-dev libboost-filesystem-dev \
        nlohmann-json3-dev catch2 time tar
# Only the tests need these: dbench_load's test runs the real dbench.
TEST_DEPS := dbench
# For --workload kernel: the source tarball and what a kernel build needs.
KERNEL_DEPS := linux-source-6.1 bc bison flex libelf-dev libssl-dev gcc make xz-utils

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

test: all deps-test
	cmake --build $(BUILD) -j $(JOBS)
	cd $(BUILD) && ctest --output-on-failure -j 2 --timeout 600

install: all
	cmake --install $(BUILD) --prefix $(PREFIX)

format:
	clang-format -i contest/*.cpp contest/*.h loads/*.cpp loads/*.h workloads/*.cpp workloads/*.h tests/*.cpp

clean:
	rm -rf $(BUILD)
