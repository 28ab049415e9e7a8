// Every load stops when told (SIGTERM, as contest and Ctrl-C do it), and
// leaves no process and no file behind.
#include <signal.h>
#include <sys/wait.h>

#include <catch2/catch.hpp>

#include "contest/sys/machine.h"
#include "contest/sys/spawn.h"
#include "loads/load_files.h"
#include "test_loads_support.h"

using namespace contest;
using contest::test::LoadUnderTest;

TEST_CASE("each load dies of SIGTERM and leaves nothing behind", "[loads][slow]") {
    test::ScratchDir source("stop-source");
    std::filesystem::create_directories(source.path() / "src" / "sub");
    std::ofstream(source.path() / "src" / "sub" / "big.c") << std::string(8 << 20, 'y');
    test::ScratchDir other("stop-other");

    auto load = GENERATE(as<std::string>{}, "io_load", "io_other", "read_load", "list_load",
                         "mem_load", "ctar_load", "xtar_load", "dbench_load");
    if (load == "dbench_load") test::require_program("dbench");
    INFO(load);
    LoadOptions options;
    options.set("load-size-mib", "128");
    options.set("io-other-dir", other.path().string());
    options.workload_source = source.path() / "src";
    std::filesystem::path folder;
    {
        LoadUnderTest under(load, options);
        folder = under.folder();
        under.start();
        REQUIRE(test::eventually([&] { return under.units() > 0; }));
        pid_t pid = under.pid();
        // SIGTERM to the whole group, then wait for the load's own death:
        // it must be SIGTERM that ends it (no handler that lingers or exits
        // some other way; stop_group's SIGKILL never needed).
        REQUIRE(::kill(-pid, SIGTERM) == 0);
        int status = 0;
        REQUIRE(::waitpid(pid, &status, 0) == pid);
        CHECK(WIFSIGNALED(status));
        CHECK(WTERMSIG(status) == SIGTERM);
        // The other members (tar, dbench's clients) go too.
        CHECK(test::eventually([&] { return group_members(pid).empty(); }));
        CHECK(test::leftover_processes().empty());
        // Files that are the load's to delete are gone already; the rest
        // (an extracted tree, dbench's clients folder) go with the folder.
        if (load == "io_load" || load == "read_load" || load == "ctar_load" || load == "mem_load")
            CHECK(test::entries_under(folder) == 0);
    }
    CHECK_FALSE(std::filesystem::exists(folder));
    CHECK(test::entries_under(other.path()) == 0);
}
