// contest/kbuild: kernels given as git refs, built once. A real git
// repository in a scratch folder stands in for a kernel tree: its Makefile
// does what `make O=DIR tinyconfig|kvm_guest.config|olddefconfig|bzImage`
// does to DIR (a .config from its inputs, a bzImage that is a real setup
// header), counts its builds and records the environment it was given.
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "contest/kbuild/boot_install.h"
#include "contest/kbuild/build_cache.h"
#include "contest/kbuild/built_kernels.h"
#include "contest/kbuild/kernel_build.h"
#include "contest/kbuild/kernel_config.h"
#include "contest/kbuild/kernel_ref.h"
#include "contest/sys/errors.h"
#include "contest/sys/progress.h"
#include "contest/vm/kernel_image.h"
#include "kbuild_stand_in.h"
#include "test_helpers.h"

using namespace contest;
using namespace contest::kbuild;
using contest::test::kStandInMakefile;
using contest::test::sh;
using contest::test::StandIn;
using contest::test::write_file;
namespace fs = std::filesystem;

namespace {}  // namespace

TEST_CASE("a ref builds from contest's own clone and records its commit", "[kbuild]") {
    StandIn s;
    const std::string before = s.state();
    const auto built = s.build({{"A", s.tree.string() + "@side"}, {"plain", "/boot/vmlinuz"}});
    REQUIRE(built.size() == 2);
    CHECK_FALSE(built[1]);  // no '@': not a ref, left as it is
    REQUIRE(built[0]);
    const KernelBuild& b = built[0]->record;
    CHECK(b.commit == s.base);
    CHECK(b.subject == "base");
    // The stand-in's release carries the checksum of the .config it built.
    CHECK(b.release == "6.1.0-standin-" + sh(built[0]->image, "cksum < .config | cut -d' ' -f1"));
    CHECK(b.cached);
    CHECK_FALSE(b.cache_hit);
    CHECK(fs::is_regular_file(fs::path(built[0]->image) / "arch/x86/boot/bzImage"));
    CHECK(fs::is_regular_file(b.log));
    CHECK(fs::path(b.log).parent_path() == fs::absolute(s.scratch / "results/A"));
    // make ran out of tree, with the commit's own date as the build's.
    const std::string env = sh(s.scratch.path(), "cat work/kbuild/trees/*/build/build-env");
    CHECK(env.find("O=" + (s.scratch / "work").string()) != std::string::npos);
    CHECK(env.find("KBUILD_BUILD_TIMESTAMP=" + sh(s.tree, "git log -1 --format=%cD " + s.base)) !=
          std::string::npos);
    CHECK(env.find("KBUILD_BUILD_HOST=contest") != std::string::npos);
    // The user's tree as it was: status, HEAD, branches, and no worktree of contest's.
    CHECK(s.state() == before);
}

TEST_CASE("a rerun meets the cache and builds nothing", "[kbuild]") {
    StandIn s;
    const std::string spec = s.tree.string() + "@main";
    const auto first = s.build({{"A", spec}});
    CHECK(s.builds_count() == "1");
    const auto again = s.build({{"A", spec}});
    REQUIRE(again[0]);
    CHECK(again[0]->record.cache_hit);
    CHECK(again[0]->image == first[0]->image);
    CHECK(s.builds_count() == "1");
}

TEST_CASE("a patch series is applied, its hashes recorded, and a changed patch misses the cache",
          "[kbuild]") {
    StandIn s;
    const fs::path series = s.scratch / "series";
    // Two commits on a branch of the user's, as format-patch mails.
    sh(s.tree,
       "git checkout -q -b work && echo CONFIG_P1=y >> options && git -c user.name=t -c "
       "user.email=t@t commit -qam p1 && echo CONFIG_P2=y >> options && git -c "
       "user.name=t -c user.email=t@t commit -qam p2 && git format-patch -q --cover-letter "
       "-o " +
           series.string() + " main && git checkout -q main && git branch -D -q work");
    const std::string before = s.state();
    const auto built = s.build({{"base", s.tree.string() + "@main"},
                                {"series", s.tree.string() + "@main+" + series.string()}});
    REQUIRE(built[1]);
    const KernelBuild& b = built[1]->record;
    REQUIRE(b.patches.size() == 2);  // the cover letter skipped
    CHECK(b.patches[0].sha256.size() == 64);
    CHECK(b.head != s.next);
    CHECK(b.commit == s.next);
    // The series' options show as the .config's differences.
    REQUIRE(b.config_changes.size() == 2);
    CHECK(b.config_changes[0].option == "CONFIG_P1");
    CHECK(b.config_changes[0].other == "y");
    CHECK(config_changes_line(b).find("2 options differ") != std::string::npos);
    CHECK(s.state() == before);
    // The second patch changed: another key, built again.
    const fs::path second = series / "0002-p2.patch";
    std::string text = test::slurp(second);
    text.replace(text.find("CONFIG_P2=y"), 11, "CONFIG_P3=y");
    write_file(second, text);
    const auto changed = s.build({{"series", s.tree.string() + "@main+" + series.string()}});
    REQUIRE(changed[0]);
    CHECK_FALSE(changed[0]->record.cache_hit);
    CHECK(changed[0]->record.key != b.key);
    CHECK(changed[0]->record.patches[1].sha256 != b.patches[1].sha256);
}

TEST_CASE("a patch that does not apply is one line", "[kbuild]") {
    StandIn s;
    const fs::path bad = s.scratch / "bad.diff";
    write_file(bad,
               "--- a/options\n+++ b/options\n@@ -1 +1 @@\n-CONFIG_NOT_THERE=y\n+CONFIG_X=y\n");
    try {
        s.build({{"A", s.tree.string() + "@main+" + bad.string()}});
        FAIL("no error");
    } catch (const StepFailed& e) {
        const std::string what = e.what();
        CHECK(what.find("does not apply") != std::string::npos);
        CHECK(what.find('\n') == std::string::npos);
    }
}

TEST_CASE("a failing build is one line with its log's last lines", "[kbuild]") {
    StandIn s;
    sh(s.tree,
       "touch fail && git add fail && git -c user.name=t -c user.email=t@t commit -qm fail");
    try {
        s.build({{"A", s.tree.string() + "@HEAD"}});
        FAIL("no error");
    } catch (const StepFailed& e) {  // exit 1 (errors.h)
        const std::string what = e.what();
        CHECK(what.find("make bzImage") != std::string::npos);
        CHECK(what.find("error: the stand-in fails here") != std::string::npos);
        CHECK(what.find('\n') == std::string::npos);
    }
}

TEST_CASE("bad ref specs are refused naming what is wrong", "[kbuild]") {
    StandIn s;
    auto refused = [&](const std::string& spec) {
        try {
            s.build({{"A", spec}});
        } catch (const UsageError& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    CHECK(refused(s.tree.string() + "@no-such-branch").find("is no commit") != std::string::npos);
    CHECK(refused((s.scratch / "nothing").string() + "@main").find("no folder before") !=
          std::string::npos);
    CHECK(refused(s.scratch.path().string() + "@main").find("not a git work tree") !=
          std::string::npos);
    CHECK(refused(s.tree.string() + "@").find("no REF") != std::string::npos);
    // A path with '@' that exists keeps its old meaning.
    fs::create_directories(s.scratch / "a@b");
    CHECK_FALSE(looks_like_kernel_ref((s.scratch / "a@b").string()));
}

TEST_CASE("config differences name each option that differs", "[kbuild]") {
    const auto changes = config_differences("CONFIG_A=y\nCONFIG_B=m\n# CONFIG_C is not set\n",
                                            "CONFIG_A=y\nCONFIG_C=y\n");
    REQUIRE(changes.size() == 2);
    CHECK(change_text(changes[0]) == "CONFIG_B: m -> unset");
    CHECK(change_text(changes[1]) == "CONFIG_C: unset -> y");
}

TEST_CASE("boot releases (--boot): installed only where contest made them, and removed",
          "[kbuild]") {
    test::ScratchDir root("kbuild-root");
    const fs::path staged = root / "staged";
    fs::create_directories(staged / "kernel");
    write_file(staged / "kernel/a.ko", "module");
    install_release(staged, "6.1.0-contest-12345678", "key1", root.path());
    CHECK(fs::is_regular_file(root / "lib/modules/6.1.0-contest-12345678/kernel/a.ko"));
    CHECK(contest_made("6.1.0-contest-12345678", root.path()));
    // One contest did not make is neither overwritten nor removed.
    fs::create_directories(root / "lib/modules/6.1.0-theirs");
    CHECK_THROWS_AS(install_release(staged, "6.1.0-theirs", "key1", root.path()), EnvironmentError);
    CHECK_FALSE(remove_release("6.1.0-theirs", root.path()));
    CHECK(fs::is_directory(root / "lib/modules/6.1.0-theirs"));
    CHECK(remove_release("6.1.0-contest-12345678", root.path()));
    CHECK_FALSE(fs::exists(root / "lib/modules/6.1.0-contest-12345678"));
    CHECK(boot_localversion("abcdef0123") == "-contest-abcdef01");
}

// Through `contest run` and real guests (TCG): a stand-in tree whose image
// and modules are Debian's kernel package's, two refs of it as two labels.
TEST_CASE("contest run --kernel A=TREE@REF1 --kernel B=TREE@REF2 boots what it built",
          "[vm][vm-kbuild]") {
    StandIn s;
    s.use_real_image();
    sh(s.tree,
       "git branch one && echo CONFIG_TWO=y >> options && git -c user.name=t -c user.email=t@t "
       "commit -qam two");
    const auto o = test::run_contest_binary(
        {"run", "--kernel", "A=" + s.tree.string() + "@one", "--kernel",
         "B=" + s.tree.string() + "@main", "--vm-accel", "tcg",
         // A second vCPU under TCG is a second host thread taken from the tests beside.
         "--vm-cpus", "1", "-w", "command", "--workload-cmd", "true", "-n", "1", "--workdir",
         (s.scratch / "work").string(), "--results", (s.scratch / "results").string(), "no_load"},
        s.scratch.path());
    INFO(o.err);
    CHECK(o.exit_code == 0);
    CHECK(o.err.find("B's .config against A's: 1 option differs: CONFIG_TWO: unset -> y") !=
          std::string::npos);
    const auto files = test::result_files(s.scratch / "results/B");
    // One result file: the build's record and log beside it are not .json,
    // so `contest report results/B` reads only the runs.
    REQUIRE(files.size() == 1);
    const std::string text = test::slurp(files.front());
    CHECK(text.find("\"build\"") != std::string::npos);
    CHECK(text.find(sh(s.tree, "git rev-parse main")) != std::string::npos);
}

TEST_CASE(
    "git as contest runs it on a user's tree runs no program the tree's config names: a signed "
    "commit under log.showSignature, gpg.program, the pager, hooks",
    "[kbuild]") {
    StandIn s;
    const fs::path mark = s.scratch / "ran";
    const fs::path program = s.scratch / "program";
    write_file(program, "#!/bin/sh\necho \"$0 $*\" >> '" + mark.string() + "'\nexit 1\n");
    fs::permissions(program, fs::perms::owner_all);
    // A commit that carries a signature (its header only: whoever verifies
    // it runs gpg.program), on a branch of its own.
    const std::string signed_commit =
        sh(s.tree,
           "printf 'tree %s\\nparent %s\\nauthor t <t@t> 1700000000 +0000\\ncommitter t <t@t> "
           "1700000000 +0000\\ngpgsig -----BEGIN PGP SIGNATURE-----\\n \\n "
           "iQEzBAABCAAdFiEEAAAA\\n -----END PGP SIGNATURE-----\\n\\nsigned\\n' "
           "$(git rev-parse HEAD^{tree}) $(git rev-parse HEAD) | git hash-object -t commit -w "
           "--stdin");
    sh(s.tree, "git branch signed " + signed_commit);
    for (const std::string& setting : std::vector<std::string>{
             "log.showSignature true", "gpg.program " + program.string(),
             "gpg.ssh.program " + program.string(), "gpg.x509.program " + program.string(),
             "core.pager " + program.string(), "core.fsmonitor " + program.string(),
             "core.hooksPath " + (s.scratch / "hooks").string()})
        sh(s.tree, "git config " + setting);
    fs::create_directories(s.scratch / "hooks");
    for (const char* hook : {"post-checkout", "pre-commit", "post-commit", "post-applypatch"}) {
        write_file(s.scratch / "hooks" / hook, "#!/bin/sh\necho hook >> '" + mark.string() + "'\n");
        fs::permissions(s.scratch / "hooks" / hook, fs::perms::owner_all);
    }
    // The oracle: git itself, as a user runs it in the tree, runs it.
    sh(s.tree, "git log -1 --format=%s signed >/dev/null 2>&1; true");
    REQUIRE(fs::exists(mark));
    fs::remove(mark);
    // contest reads the ref (rev-parse, log), clones the tree and builds it.
    const auto built = s.build({{"A", s.tree.string() + "@signed"}});
    REQUIRE(built[0]);
    CHECK(built[0]->record.commit == signed_commit);
    CHECK(built[0]->record.subject == "signed");
    CHECK_FALSE(fs::exists(mark));
}

TEST_CASE("the build cache's key: KCFLAGS, KCPPFLAGS and the toolchain's versions", "[kbuild]") {
    const std::string before = toolchain_text();
    CHECK(before.find("binutils: GNU ld") != std::string::npos);
    CHECK(before.find("pahole: ") != std::string::npos);
    StandIn s;
    const std::string spec = s.tree.string() + "@main";
    const auto first = s.build({{"A", spec}});
    REQUIRE(first[0]);
    CHECK(first[0]->record.toolchain == before);
    ::setenv("KCFLAGS", "-O1", 1);
    const auto kcflags = s.build({{"A", spec}});
    ::unsetenv("KCFLAGS");
    REQUIRE(kcflags[0]);
    CHECK_FALSE(kcflags[0]->record.cache_hit);
    CHECK(kcflags[0]->record.key != first[0]->record.key);
    CHECK(kcflags[0]->record.toolchain.find("KCFLAGS: -O1") != std::string::npos);
    ::setenv("KCPPFLAGS", "-DX", 1);
    const auto kcppflags = s.build({{"A", spec}});
    ::unsetenv("KCPPFLAGS");
    REQUIRE(kcppflags[0]);
    CHECK_FALSE(kcppflags[0]->record.cache_hit);
    CHECK(s.builds_count() == "3");
    // As it was: the first build met again.
    const auto again = s.build({{"A", spec}});
    CHECK(again[0]->record.cache_hit);
    CHECK(again[0]->record.key == first[0]->record.key);
}

TEST_CASE(
    "the build cache is bounded: the entries least recently used go first, never the run's own",
    "[kbuild]") {
    test::ScratchDir dir("kbuild-cache-bound");
    BuildCache cache(dir / "cache");
    // Four entries of 1 MiB each, used in the order d, a, c, b (b last).
    const auto entry = [&](const std::string& key, int minutes_ago) {
        const fs::path e = dir / "cache" / key;
        fs::create_directories(e / "tree/arch/x86/boot");
        write_file(e / "tree/arch/x86/boot/bzImage", std::string(1 << 20, 'x'));
        write_file(e / "used", "");
        fs::last_write_time(e / "used",
                            fs::file_time_type::clock::now() - std::chrono::minutes(minutes_ago));
    };
    entry("a", 30);
    entry("b", 10);
    entry("c", 20);
    entry("d", 40);
    CHECK(BuildCache::entry_bytes(dir / "cache/a") == (1u << 20));
    // A partial entry (a build under way) is no entry to evict.
    fs::create_directories(dir / "cache/.partial-1/tree");
    write_file(dir / "cache/.partial-1/tree/big", std::string(3 << 20, 'x'));
    // Room for two: d (the oldest) is kept as the run's own; a and c go.
    const auto removed = cache.evict(2u << 20, {"d"});
    CHECK(removed == std::vector<std::string>{"a", "c"});
    CHECK(fs::exists(dir / "cache/b"));
    CHECK(fs::exists(dir / "cache/d"));
    CHECK(fs::exists(dir / "cache/.partial-1"));
    // Within the bound: nothing goes.
    CHECK(cache.evict(2u << 20, {}).empty());
    // A use makes an entry the most recent: d is met again, b goes.
    cache.mark_used("d");
    CHECK(cache.evict(1u << 20, {}) == std::vector<std::string>{"b"});
}

TEST_CASE("a run's builds keep the cache to --build-cache-max, its own kept", "[kbuild]") {
    StandIn s;
    auto settings = s.settings();
    settings.cache_max_gib = 0;  // only the run's own
    Progress quiet(Progress::Mode::kQuiet);
    const auto base = build_kernel_refs({{"A", s.tree.string() + "@side"}}, settings, quiet);
    const auto next = build_kernel_refs({{"B", s.tree.string() + "@main"}}, settings, quiet);
    REQUIRE(base[0]);
    REQUIRE(next[0]);
    CHECK_FALSE(fs::exists(base[0]->image));  // the earlier run's, least recently used
    CHECK(fs::exists(next[0]->image));
}

TEST_CASE("a --boot build's initramfs is made again once the machine's initramfs set-up changed",
          "[kbuild]") {
    test::ScratchDir root("kbuild-initramfs-setup");
    const std::string empty = initramfs_setup_sha256(root.path());
    write_file(root / "x", "");
    fs::create_directories(root / "etc/initramfs-tools/hooks");
    write_file(root / "etc/initramfs-tools/modules", "virtio_blk\n");
    const std::string with_modules = initramfs_setup_sha256(root.path());
    CHECK(with_modules != empty);
    write_file(root / "etc/initramfs-tools/hooks/extra", "#!/bin/sh\n");
    const std::string with_hook = initramfs_setup_sha256(root.path());
    CHECK(with_hook != with_modules);
    write_file(root / "etc/initramfs-tools/modules", "virtio_blk\nnvme\n");
    CHECK(initramfs_setup_sha256(root.path()) != with_hook);
    CHECK(initramfs_setup_sha256(root.path()) == initramfs_setup_sha256(root.path()));
    CHECK(initramfs_name("6.1.0-x", with_hook) == "initrd.img-6.1.0-x-" + with_hook.substr(0, 12));
    CHECK(initramfs_name("6.1.0-x", with_hook) != initramfs_name("6.1.0-x", with_modules));
}
