#pragma once
// A kernel tree that builds in a blink, for the tests of contest/kbuild and
// of what builds kernels (contest bisect): a real git repository in a
// scratch folder whose Makefile does what `make O=DIR
// tinyconfig|kvm_guest.config|olddefconfig|bzImage` does to DIR (a .config
// from its inputs, which drops the options the tree has not, a bzImage
// that is a real setup header whose release carries the .config's
// checksum), counts its builds and records the environment it was given. use_real_image() makes
// its bzImage and modules Debian's kernel package's, for real guests.
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "contest/kbuild/built_kernels.h"
#include "contest/sys/progress.h"
#include "contest/vm/kernel_image.h"
#include "test_helpers.h"

namespace contest::test {

inline const char* const kStandInMakefile = R"MAKE(O ?= .
tinyconfig:
	mkdir -p $(O) && echo CONFIG_TINY=y > $(O)/.config
kvm_guest.config:
	echo CONFIG_KVM_GUEST=y >> $(O)/.config
olddefconfig:
	mkdir -p $(O) && touch $(O)/.config
	awk -f olddefconfig.awk $(O)/.config options > $(O)/.config.new && mv $(O)/.config.new $(O)/.config
bzImage:
	@if [ -f fail ]; then echo "error: the stand-in fails here"; exit 1; fi
	mkdir -p $(O)/arch/x86/boot && cp image.bin $(O)/arch/x86/boot/bzImage
	[ -f keep-release ] || printf '6.1.0-standin-%s (contest@contest) #1\000' "$$(cksum < $(O)/.config | cut -d' ' -f1)" | dd of=$(O)/arch/x86/boot/bzImage bs=1 seek=768 conv=notrunc status=none
	env | grep KBUILD_ > $(O)/build-env; echo "O=$(O)" >> $(O)/build-env
	echo built >> $(O)/builds
)MAKE";

// A tree for --boot's builds: its bzImage a setup header (image.bin) whose
// version is written at 0x300 from the commit's `flavour` and the
// LOCALVERSION contest gives, as a real kernel's release carries both; a
// commit with a file `fail` does not build.
inline const char* const kBootTreeMakefile = R"MAKE(O ?= .
olddefconfig:
	mkdir -p $(O) && cp options $(O)/.config
bzImage:
	@if [ -f fail ]; then echo "error: the stand-in fails here"; exit 1; fi
	mkdir -p $(O)/arch/x86/boot && cp image.bin $(O)/arch/x86/boot/bzImage
	printf '6.1.0-%s%s (contest@contest) #1\000' "$$(cat flavour)" "$(LOCALVERSION)" | dd of=$(O)/arch/x86/boot/bzImage bs=1 seek=768 conv=notrunc status=none
)MAKE";

// A git repository at tree of kBootTreeMakefile's, its first commit's
// flavour `flavour`; returns that commit.
inline std::string make_boot_tree(const std::filesystem::path& tree, const std::string& flavour) {
    put_file(tree / "Makefile", kBootTreeMakefile);
    put_file(tree / "options", "CONFIG_BASE=y\n");
    put_file(tree / "image.bin", fake_bzimage("6.1.0-placeholder", 64));
    put_file(tree / "flavour", flavour);
    return shell_output("cd '" + tree.string() +
                        "' && git init -q -b main && git add . && git -c user.name=t -c "
                        "user.email=t@t commit -qm base && git rev-parse HEAD");
}
// kconfig's olddefconfig in small: each option's last line in the .config
// wins, the tree's defaults (its file `options`) fill in those it lacks,
// and an option the tree does not have (its file `unknown`) is dropped.
inline const char* const kStandInOlddefconfig =
    R"AWK(BEGIN { while ((getline name < "unknown") > 0) unknown[name] = 1 }
{ name = "" }
/^CONFIG_[A-Za-z0-9_]*=/ { name = substr($0, 1, index($0, "=") - 1) }
/^# CONFIG_[A-Za-z0-9_]* is not set$/ { name = $2 }
name == "" || (name in unknown) { next }
FILENAME == "options" && (name in value) { next }
!(name in value) { order[++n] = name }
{ value[name] = $0 }
END { for (i = 1; i <= n; i++) print value[order[i]] }
)AWK";

inline void write_file(const std::filesystem::path& p, const std::string& text) {
    std::ofstream(p, std::ios::binary) << text;
}

inline std::string sh(const std::filesystem::path& dir, const std::string& cmd) {
    return shell_output("cd '" + dir.string() + "' && " + cmd);
}

struct StandIn {
    ScratchDir scratch{"kbuild"};
    std::filesystem::path tree = scratch / "linux";
    std::string base, next;  // two commits

    StandIn() {
        std::filesystem::create_directories(tree);
        write_file(tree / "Makefile", kStandInMakefile);
        write_file(tree / "options", "CONFIG_BASE=y\n");
        write_file(tree / "olddefconfig.awk", kStandInOlddefconfig);
        write_file(tree / "unknown", "CONFIG_PREEMPT_RT\n");
        write_file(tree / "image.bin", fake_bzimage("6.1.0-standin (contest@contest) #1", 64));
        sh(tree,
           "git init -q -b main && git add . && git -c user.name=t -c user.email=t@t "
           "commit -qm base");
        base = sh(tree, "git rev-parse HEAD");
        write_file(tree / "options", "CONFIG_BASE=y\nCONFIG_NEW=y\n");
        sh(tree, "git -c user.name=t -c user.email=t@t commit -qam 'add CONFIG_NEW'");
        next = sh(tree, "git rev-parse HEAD");
        sh(tree, "git branch side " + base);
    }
    // The user's tree as a user sees it: status, HEAD, branches, worktrees.
    std::string state() const {
        return sh(tree,
                  "git status --porcelain; git rev-parse HEAD; git branch -a; "
                  "git worktree list --porcelain | grep -c worktree");
    }
    // Its image and modules Debian's kernel package's (the [vm] tests'),
    // committed: what it builds then boots in a real guest.
    void use_real_image() {
        Progress quiet(Progress::Mode::kQuiet);
        const KernelImage debian =
            resolve_kernel_image(debian_kernel_package(), vm_test_workdir() / "vm/cache", quiet);
        write_file(tree / "Makefile", std::string(kStandInMakefile) +
                                          "modules:\n\t@true\nmodules_install:\n\tmkdir -p "
                                          "$(INSTALL_MOD_PATH)/lib/modules && cp -r " +
                                          debian.modules_folder.string() +
                                          " $(INSTALL_MOD_PATH)/lib/modules/\n");
        std::filesystem::copy_file(debian.image, tree / "image.bin",
                                   std::filesystem::copy_options::overwrite_existing);
        write_file(tree / "options", "CONFIG_MODULES=y\nCONFIG_BASE=y\n");
        write_file(tree / "keep-release", "");  // the image's own release, not the .config's
        sh(tree, "git add -A && git -c user.name=t -c user.email=t@t commit -qm 'the real image'");
    }
    kbuild::BuildSettings settings() const {
        kbuild::BuildSettings s;
        s.workdir = scratch / "work";
        s.results_dir = scratch / "results";
        s.jobs = 1;
        return s;
    }
    std::vector<std::optional<kbuild::BuiltKernel>> build(
        const std::vector<KernelSpec>& specs, const std::filesystem::path& config_file = {}) const {
        Progress quiet(Progress::Mode::kQuiet);
        kbuild::BuildSettings s = settings();
        s.config_file = config_file;
        return kbuild::build_kernel_refs(specs, s, quiet);
    }
    std::string builds_count() const {
        return sh(scratch.path(), "cat work/kbuild/trees/*/build/builds | wc -l");
    }
};

}  // namespace contest::test
