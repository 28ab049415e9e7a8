// list_load walks the real file system with lstat and stays out of the
// pseudo file systems.
#include <catch2/catch.hpp>

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

}  // namespace

TEST_CASE("list_load lists thousands of entries, pass after pass", "[loads][slow]") {
    LoadUnderTest lister("list_load");
    CHECK_FALSE(lister.facts()["follows_symlinks"].get<bool>());
    lister.start();
    CHECK(test::eventually([&] { return lister.units() > 1000; }));
    // A whole walk of / ends and the next begins.
    CHECK(test::eventually([&] { return lister.secondary() >= 1; }, std::chrono::seconds(280)));
    CHECK_FALSE(lister.failure());
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
