# contest: the two set-up commands are `make run` and `make test`.
# Everything a fresh Debian 12 machine needs is installed by `make deps`.
BUILD    ?= build
PREFIX   ?= /usr/local
JOBS     ?= $(shell nproc)
CONFIG   ?= configs/quick.conf
SUDO     := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# Build and test dependencies (Debian package names). libssl-dev is
# libcrypto's headers, for contest's SHA-256. libsoci-dev: the results
# database's one interface to SQLite and PostgreSQL (contest/history), both
# backends with it. libpq-dev: libpq's own parser of a PostgreSQL URI.
DEPS := cmake make ninja-build g++ libboost-dev libboost-program-options-dev libboost-filesystem-dev \
        nlohmann-json3-dev catch2 time tar zlib1g-dev libssl-dev libsoci-dev libpq-dev
# What a kernel build needs besides the source (contest checks for each);
# libssl-dev again, as a kernel build's own need (certificates, signing),
# so deps-kernel alone is enough for a machine that only builds kernels.
KERNEL_TOOLS := bc bison flex libelf-dev libssl-dev gcc make xz-utils
# The tests run these for real: dbench_load's test runs dbench, and the
# kernel workload's tests build a fake tree through the real tool check.
# The kernel source (linux-source-6.1, 150 MB): the label options' test
# builds the kernel's own kconfig tool (scripts/kconfig/conf) out of its
# tarball, once, and runs olddefconfig with it on a small Kconfig tree.
# tests/fleet runs deploy/ansible with ansible-core (24 MB; Debian's `ansible`
# adds 250 MB of collections the role does not use), git archive and apt.
# `contest run --kernel` boots kernels in QEMU guests: QEMU, a static
# busybox for the guests' initramfs, mkfs.ext4 for their scratch disk; the
# kernel packages themselves are fetched by contest (apt-get download).
VM_DEPS := qemu-system-x86 busybox-static e2fsprogs zstd
# `contest run --boot` installs a systemd unit; the tests check it with
# systemd-analyze (package systemd, not always on a minimal image).
BOOT_DEPS := systemd
# tests/fleet deploys contest as the package `make deb` makes.
# `make deb` reads the binary's library dependencies with dpkg-shlibdeps.
PKG_DEPS := dpkg-dev
# tests/fleet's stand-in hosts: pgrep (procps) watches their steps; its
# lint-ansible.sh runs ansible-lint over deploy/ansible (offline).
# tests/test_history_postgresql starts its own PostgreSQL server (postgresql).
# contest track --fetch reaches an ssh remote with the machine's own ssh,
# which its test runs (openssh-client).
TEST_DEPS := postgresql dbench linux-source-6.1 $(KERNEL_TOOLS) ansible-core ansible-lint git openssh-client python3-apt python3-jsonschema chromium procps $(VM_DEPS) $(PKG_DEPS) $(BOOT_DEPS)
# bench/ (not the tests): cyclictest and jq for latency_vs_cyclictest.sh,
# stress-ng for loads_vs_reference.sh, hyperfine for exec_vs_hyperfine.sh,
# python3 for the statistics, postgresql and time (max RSS) for history_scale.sh.
BENCH_DEPS := rt-tests jq stress-ng python3 hyperfine postgresql time
# For --workload kernel: the source tarball and the tools.
KERNEL_DEPS := linux-source-6.1 $(KERNEL_TOOLS)

# `make fuzz`: libFuzzer (clang's) on the readers of untrusted text, each
# target for FUZZ_SECONDS, from a seed corpus and, first, every variant of
# its JSON seeds with one value of another type or deleted
# (scripts/fuzz-variants: where byte flips seldom go, and readers of JSON
# break); a crash fails the target and leaves its input in $(FUZZ_BUILD)/crashes/.
FUZZ_DEPS    := clang libfuzzer-14-dev python3
FUZZ_BUILD   ?= build-fuzz
FUZZ_SECONDS ?= 60
# target:seed-folder
FUZZ_TARGETS := fuzz_result_file:tests/data/results fuzz_config:configs fuzz_words:tests/fuzz/seeds/words fuzz_text:tests/fuzz/seeds/text fuzz_trace_events:tests/fuzz/seeds/trace fuzz_report:tests/fuzz/seeds/report fuzz_label_options:tests/fuzz/seeds/label_options fuzz_packed_text:tests/fuzz/seeds/packed fuzz_journal:tests/fuzz/seeds/journal fuzz_track_state:tests/fuzz/seeds/track fuzz_owed_saves:tests/fuzz/seeds/owed

.PHONY: all deps deps-test deps-kernel deps-bench deps-vm configure run test test-build test-long test-sanitized fuzz install deb clean format

# `make` builds the tool only; `make test` builds the test binaries too, on
# the same core, which takes a minute or two more.
all: configure
	cmake --build $(BUILD) -j $(JOBS) --target contest contest_manual

# Installs only what is missing; `apt-get update` first, since a fresh
# machine's package lists are stale.
deps:
	@./scripts/install-deps $(DEPS)

deps-test:
	@./scripts/install-deps $(TEST_DEPS)

deps-kernel:
	@./scripts/install-deps $(KERNEL_DEPS)

deps-bench:
	@./scripts/install-deps $(BENCH_DEPS)

deps-vm:
	@./scripts/install-deps $(VM_DEPS)

# Ninja: the tests' objects compile beside the core's last batches, where
# Make's targets wait for the library (a fresh build 200 s against 207 s).
configure: deps
	@[ -f $(BUILD)/CMakeCache.txt ] || cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release

run: all
	./$(BUILD)/contest run --config $(CONFIG)

# $(call run_ctest,SELECTION,JOBS): ctest over SELECTION (-L/-LE labels),
# JOBS tests at a time, with the dependency PATH, then why each skipped test
# was skipped. make test runs one test more than CPUs at a time: its
# end-to-end tests wait on their children and clocks (2 at a time on 2
# CPUs left 45% of the CPU idle; 3 at a time, a fresh clone's ctest 274 s
# -> 215 s). make test-long's guests are emulated CPUs: one a CPU.
TEST_JOBS ?= $(shell echo $$(($(JOBS) + 1)))
define run_ctest
./scripts/dependency-path $(BUILD)/dependency-path $(DEPS) $(TEST_DEPS)
cd $(BUILD) && PATH="$(abspath $(BUILD))/dependency-path" ctest --output-on-failure -j $(2) --timeout 600 $(1); \
    status=$$?; sed -n 's/^contest-test-skip: /skipped: /p' Testing/Temporary/LastTest.log; exit $$status
endef

# The tests run with a PATH of only what the lists above (and the base
# system) install, so that a program nothing installs fails the tests here
# and not first on a fresh machine (scripts/dependency-path). A test that
# cannot run on this machine is skipped, not passed: ctest lists it under
# "did not run", and the lines after that say why (tests/test_skip.h).
#
# The test packages install (the network, dpkg) while the tests compile (the
# CPUs): on a fresh machine each took about three minutes, one after the
# other. A password sudo asks for is asked before the build starts.
test: test-build
	$(call run_ctest,-LE 'sanitized|long',$(TEST_JOBS))

# `make test-long` (CI runs it after `make test`): the tests that boot
# kernels in QEMU guests under TCG, emulated, and the Ansible play against
# this machine. On 2 CPUs they are about 9 minutes of CPU by themselves
# (vm_guests 170 s, fleet_ansible 161 s, vm_guests_pair 97 s, vm_boot 57 s,
# vm_boot_failures 54 s), more than make test's whole bound.
test-long: test-build
	$(call run_ctest,-L long,$(JOBS))

# The tests' build, the test packages installed beside it.
test-build: configure
	@[ "$$(id -u)" = 0 ] || ! ./scripts/install-deps --missing $(TEST_DEPS) >/dev/null || sudo -v
	@./scripts/install-deps $(TEST_DEPS) & deps=$$!; \
	    cmake --build $(BUILD) -j $(JOBS); built=$$?; \
	    wait $$deps || { echo "make test: installing the test packages failed" >&2; exit 1; }; \
	    exit $$built

# `make test-sanitized` (CI runs it after `make test`): the unit tests again,
# linked to a copy of the core built under ASan and UBSan, in one process;
# a memory error or undefined behaviour fails them. The copy is the longer
# part of it: a fresh one is about four minutes on 2 cores.
test-sanitized: all deps-test
	cmake --build $(BUILD) -j $(JOBS) --target contest_tests_asan
	./scripts/dependency-path $(BUILD)/dependency-path $(DEPS) $(TEST_DEPS)
	cd $(BUILD) && PATH="$(abspath $(BUILD))/dependency-path" ctest --output-on-failure -L sanitized

fuzz: deps
	@./scripts/install-deps $(FUZZ_DEPS)
	@[ -f $(FUZZ_BUILD)/CMakeCache.txt ] || CC=clang CXX=clang++ cmake -S . -B $(FUZZ_BUILD) \
	    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCONTEST_FUZZ=ON -DBUILD_TESTING=OFF
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target $(foreach t,$(FUZZ_TARGETS),$(word 1,$(subst :, ,$(t))))
	@mkdir -p $(FUZZ_BUILD)/crashes
	@set -e; for t in $(FUZZ_TARGETS); do \
	    name=$${t%%:*}; seeds=$${t#*:}; corpus=$(FUZZ_BUILD)/corpus/$$name; mkdir -p $$corpus; \
	    variants=$(FUZZ_BUILD)/variants/$$name; rm -rf $$variants; \
	    ./scripts/fuzz-variants $$variants $$seeds; \
	    echo "make fuzz: $$name for $(FUZZ_SECONDS) s"; \
	    $(FUZZ_BUILD)/tests/fuzz/$$name -max_total_time=$(FUZZ_SECONDS) -timeout=10 -print_final_stats=1 \
	        -artifact_prefix=$(FUZZ_BUILD)/crashes/$$name- $$corpus $$seeds $$variants 2>$(FUZZ_BUILD)/$$name.log \
	        || { tail -n 40 $(FUZZ_BUILD)/$$name.log; exit 1; }; \
	    grep -E '^stat::number_of_executed_units|^stat::peak_rss' $(FUZZ_BUILD)/$$name.log; \
	done

install: all
	cmake --install $(BUILD) --prefix $(PREFIX)

# `make deb`: $(BUILD)/contest_<version>_<arch>.deb, what `make install`
# installs, with its Depends read off the binary (dpkg-shlibdeps, hence
# dpkg-dev). deploy/ansible's contest_package takes it to every host.
deb: all
	@./scripts/install-deps $(PKG_DEPS)
	cd $(BUILD) && cpack -G DEB

format:
	find contest loads workloads tests -name "*.cpp" -o -name "*.h" | xargs clang-format -i

clean:
	rm -rf $(BUILD) $(FUZZ_BUILD)
