// io_load, io_other and read_load: real writes and reads, sized and capped to
// the disk, and nothing left on it afterwards.
#include <catch2/catch.hpp>

#include "contest/sys/errors.h"
#include "loads/load_files.h"
#include "test_loads_support.h"

using namespace contest;
using contest::test::LoadUnderTest;

namespace {

LoadOptions sized(std::uint64_t mib) {
    LoadOptions options;
    options.set("load-size-mib", std::to_string(mib));
    return options;
}

}  // namespace

TEST_CASE("load files are capped to the free space less a margin", "[loads]") {
    DiskRoom room;
    room.free_bytes = 30 * kGiB;
    room.size_bytes = 100 * kGiB;
    room.margin_bytes = 5 * kGiB;
    CappedSize fits = cap_to_disk("io_load", 8 * kGiB, room);
    CHECK(fits.bytes == 8 * kGiB);
    CHECK_FALSE(fits.to_json()["capped"].get<bool>());
    CappedSize capped = cap_to_disk("io_load", 64 * kGiB, room);
    CHECK(capped.bytes == 25 * kGiB);
    CHECK(capped.cap == 25 * kGiB);
    CHECK(capped.to_json()["capped"].get<bool>());
    room.free_bytes = 5 * kGiB + kMiB;
    CHECK_THROWS_AS(cap_to_disk("io_load", 8 * kGiB, room), EnvironmentError);
}

TEST_CASE("the disk margin is 1 GiB or 5% of the file system", "[loads]") {
    UniqueFd dir = open_load_dir("/tmp");
    DiskRoom room = disk_room(dir.get());
    CHECK(room.size_bytes > 0);
    CHECK(room.margin_bytes == std::max(kGiB, room.size_bytes / 20));
    CHECK(room.usable() + room.margin_bytes >= room.free_bytes);
}

TEST_CASE("io_load writes new files in its folder and leaves none when stopped", "[loads][slow]") {
    LoadUnderTest io("io_load", sized(256));
    nlohmann::json facts = io.facts();
    CHECK(facts["bytes"] == 256 * kMiB);
    CHECK(facts["cap_bytes"].get<std::uint64_t>() > 0);
    CHECK(facts.contains("disk"));
    io.start();
    std::uint64_t most_on_disk = 0;
    CHECK(test::eventually([&] {
        most_on_disk = std::max(most_on_disk, test::disk_bytes_under(io.folder()));
        return most_on_disk >= 16 * kMiB;
    }));
    // A whole file written, unlinked and made again, more than once.
    CHECK(test::eventually([&] { return io.secondary() >= 2; }));
    CHECK(io.units() >= 512.0);  // MiB, as write() returned them
    CHECK_FALSE(io.failure());
    io.stop();
    // Its own doing, before contest removes the folder: SIGTERM unlinks the file.
    CHECK(test::entries_under(io.folder()) == 0);
    std::filesystem::path folder = io.folder();
    io.remove_folder();
    CHECK_FALSE(std::filesystem::exists(folder));
}

TEST_CASE("io_other is refused without --io-other-dir", "[loads]") {
    const LoadInfo* info = find_load("io_other");
    REQUIRE(info);
    auto why = info->unavailable(LoadOptions{});
    REQUIRE(why);
    CHECK_THAT(*why, Catch::Contains("--io-other-dir (-o)"));
    LoadOptions options;
    options.set("io-other-dir", "/nonexistent/contest-io-other");
    CHECK(info->unavailable(options));
    options.set("io-other-dir", "/tmp");
    CHECK_FALSE(info->unavailable(options));
    CHECK_THROWS_AS(resolve_loads({"io_other"}, LoadOptions{}), EnvironmentError);
}

TEST_CASE("io_other writes in its own folder inside --io-other-dir and removes it",
          "[loads][slow]") {
    test::ScratchDir other("io-other-disk");
    LoadOptions options = sized(128);
    options.set("io-other-dir", other.path().string());
    {
        LoadUnderTest io("io_other", options);
        std::string folder = io.facts()["folder"];
        CHECK(std::filesystem::path(folder).parent_path() == other.path());
        CHECK((std::filesystem::status(folder).permissions() & std::filesystem::perms::all) ==
              std::filesystem::perms::owner_all);
        io.start();
        CHECK(test::eventually([&] { return test::disk_bytes_under(other.path()) >= 8 * kMiB; }));
        CHECK(test::eventually([&] { return io.units() >= 128.0; }));
        // Nothing in contest's own workdir: io_other writes only on the other disk.
        CHECK(test::disk_bytes_under(io.folder()) == 0);
        io.stop();
        io.destroy_load();
    }
    CHECK(test::entries_under(other.path()) == 0);
}

TEST_CASE("read_load reads its file over and over, as /proc/PID/io confirms", "[loads][slow]") {
    LoadUnderTest reader("read_load", sized(64));
    nlohmann::json facts = reader.facts();
    CHECK(facts["bytes"] == 64 * kMiB);
    CHECK(facts["fits_page_cache"].get<bool>());  // 64 MiB on a machine with GiBs free
    // The file is unnamed: nothing to leave behind, whatever stops the load.
    CHECK(test::entries_under(reader.folder()) == 0);
    reader.start();
    std::uint64_t read_by_kernel = 0;
    CHECK(test::eventually([&] {
        read_by_kernel = test::proc_field(reader.pid(), "io", "rchar");
        return read_by_kernel >= 3 * 64 * kMiB;
    }));
    double counted_mib = reader.units();
    CHECK(counted_mib >= 64.0);
    CHECK(reader.secondary() >= 1);  // whole passes
    CHECK_FALSE(reader.failure());
    reader.stop();
    CHECK(test::entries_under(reader.folder()) == 0);
}

TEST_CASE("read_load says when its file does not fit in the page cache", "[loads]") {
    test::ScratchDir scratch("read-fit");
    const LoadInfo* info = find_load("read_load");
    REQUIRE(info);
    LoadOptions options = sized(32);
    LoadEnv env = make_load_env(scratch.path(), options);
    env.mem_available = 16 * kMiB;  // as if memory were short
    auto load = info->make(env);
    load->prepare();
    CHECK_FALSE(load->facts()["fits_page_cache"].get<bool>());
}
