// list_load walks the real file system with lstat and stays out of the
// pseudo file systems.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>

#include "test_loads_support.h"

using namespace contest;
using contest::test::LoadUnderTest;

namespace {

// Whether any folder the walker holds open is under /proc, /sys or /dev.
bool holds_pseudo_folder(pid_t pid) {
    std::error_code ec;
    auto fds = std::filesystem::path("/proc") / std::to_string(pid) / "fd";
    for (auto it = std::filesystem::directory_iterator(fds, ec);
         !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
        std::error_code link_ec;
        // Only folders: the walker's own fds; the test's inherited /dev/null is not one.
        if (!std::filesystem::is_directory(it->path(), link_ec)) continue;
        std::string target = std::filesystem::read_symlink(it->path(), link_ec).string();
        for (const char* pseudo : {"/proc", "/sys", "/dev"})
            if (target == pseudo || target.starts_with(std::string(pseudo) + "/")) return true;
    }
    return false;
}

// list_load as contest makes it, but its process chroot()ed into `root`
// first: a whole pass over a tree of known size takes milliseconds, where
// one over this machine's / took 48 s (and depends on what the machine holds).
class ListLoadInTree final : public Load {
  public:
    ListLoadInTree(std::unique_ptr<Load> inner, std::filesystem::path root)
        : inner_(std::move(inner)), root_(std::move(root)) {}
    void run(LoadCounters& counters) override {
        // In the load's own forked process: the test process keeps its root.
        if (::chroot(root_.c_str()) != 0 || ::chdir("/") != 0) {
            counters.fail("chroot " + root_.string() + ": " + std::strerror(errno));
            return;
        }
        inner_->run(counters);
    }
    nlohmann::json facts() const override { return inner_->facts(); }

  private:
    std::unique_ptr<Load> inner_;
    std::filesystem::path root_;
};

}  // namespace

TEST_CASE("list_load lists every entry of the tree, pass after pass, and skips its /proc /sys /dev",
          "[loads]") {
    test::ScratchDir tree("list-tree");
    // 3 folders of 400 files, a link to / that must not be followed (it
    // would list the tree again), and /proc, /sys, /dev whose 1500 entries
    // each must not be listed: 3 + 1200 + 1 + 3 entries per pass.
    for (const char* folder : {"a", "b", "c"}) {
        std::filesystem::create_directories(tree.path() / folder);
        for (int i = 0; i < 400; ++i)
            std::ofstream(tree.path() / folder / ("f" + std::to_string(i))) << i;
    }
    std::filesystem::create_directory_symlink("/", tree.path() / "up");
    for (const char* pseudo : {"proc", "sys", "dev"}) {
        // Enough inside that entering one would show past a pass's margin.
        std::filesystem::create_directories(tree.path() / pseudo / "inside");
        for (int i = 0; i < 1500; ++i)
            std::ofstream(tree.path() / pseudo / "inside" / ("x" + std::to_string(i))) << i;
    }
    constexpr double kPerPass = 3 + 1200 + 1 + 3;

    LoadInfo info = *find_load("list_load");
    const auto make = info.make;
    info.make = [make, root = tree.path()](const LoadEnv& env) -> std::unique_ptr<Load> {
        return std::make_unique<ListLoadInTree>(make(env), root);
    };
    LoadUnderTest lister(info);
    CHECK_FALSE(lister.facts()["follows_symlinks"].get<bool>());
    lister.start();
    REQUIRE(test::eventually([&] { return lister.secondary() >= 3; }));
    CHECK_FALSE(lister.failure());
    // Every pass lists the whole tree and nothing more: the count of entries
    // lies between the finished passes' and one more pass's, that one
    // included (a pass whose last entry is counted but whose end is not yet:
    // CI's sanitized build read 53108 = 44 passes' entries with 43 counted).
    const LoadWindow counted = lister.window();
    const double passes = counted.secondary, entries = counted.units;
    INFO("passes " << passes << ", entries " << entries);
    CHECK(entries >= passes * kPerPass);
    CHECK(entries <= (passes + 1) * kPerPass);
}

TEST_CASE("list_load keeps out of /proc, /sys and /dev", "[loads][slow]") {
    LoadUnderTest lister("list_load");
    lister.start();
    bool strayed = false;
    for (int i = 0; i < 400 && !strayed; ++i) {
        strayed = holds_pseudo_folder(lister.pid());
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    CHECK_FALSE(strayed);
    CHECK(lister.units() > 0);
}
