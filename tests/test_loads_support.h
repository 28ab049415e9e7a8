#pragma once
// Shared by the tests of io_load, io_other, read_load, list_load, mem_load,
// the tar loads and dbench_load: a load made, prepared and started exactly
// as contest does it, and what the kernel says the load process did.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <thread>

#include "contest/run/load_runner.h"
#include "loads/registry.h"
#include "test_helpers.h"

namespace contest::test {

// A load in its private folder under a scratch workdir, prepared, and
// (after start()) running in its own process group. Destroyed in reverse:
// the group is stopped and reaped, the load object goes, then the folders.
class LoadUnderTest {
  public:
    LoadUnderTest(const std::string& name, LoadOptions options = {})
        : info_(find_load(name)), scratch_("loads-" + name) {
        REQUIRE(info_ != nullptr);
        options.workdir = scratch_.path();
        dir_.emplace(scratch_.path() / "loads", name);
        load_ = info_->make(make_load_env(dir_->path(), options));
        load_->prepare();
    }
    void start() {
        adopt_orphans();  // what the load leaves behind becomes ours to see
        running_.emplace(*info_, *load_);
    }
    // SIGTERM to the group, SIGKILL after 2 s, reaped: as contest stops a load.
    void stop() { running_->stop(); }
    void remove_folder() { dir_.reset(); }
    void destroy_load() {
        running_.reset();
        load_.reset();
    }

    pid_t pid() const { return running_->pgid(); }
    LoadSample sample() const { return running_->sample(); }
    std::optional<std::string> failure() const { return running_->failure(); }
    double units() const { return load_window(*info_, zero_, sample()).units; }
    double secondary() const { return load_window(*info_, zero_, sample()).secondary; }
    nlohmann::json facts() const { return load_->facts(); }
    const std::filesystem::path& folder() const { return dir_->path(); }
    const std::filesystem::path& workdir() const { return scratch_.path(); }
    const LoadInfo& info() const { return *info_; }

  private:
    const LoadInfo* info_;
    ScratchDir scratch_;
    std::optional<PrivateDir> dir_;
    std::unique_ptr<Load> load_;
    std::optional<RunningLoad> running_;
    LoadSample zero_{};
};

// Polls condition every 50 ms until it holds or `limit` passes. The limit
// only keeps a broken load from hanging the suite; it is not a speed test.
inline bool eventually(const std::function<bool()>& condition,
                       std::chrono::seconds limit = std::chrono::seconds(60)) {
    auto until = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < until) {
        if (condition()) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return condition();
}

// Bytes allocated on disk (st_blocks, which on ext4 includes blocks reserved
// for delayed allocation) for everything under dir.
inline std::uint64_t disk_bytes_under(const std::filesystem::path& dir) {
    std::uint64_t total = 0;
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
        struct stat st {};
        if (::lstat(it->path().c_str(), &st) == 0) total += std::uint64_t(st.st_blocks) * 512;
    }
    return total;
}

inline std::size_t entries_under(const std::filesystem::path& dir) {
    std::error_code ec;
    std::size_t n = 0;
    for (auto it = std::filesystem::directory_iterator(dir, ec);
         !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
        ++n;
    return n;
}

// A "Name: value" field of /proc/PID/<file> (io: rchar, read_bytes;
// status: VmRSS in kB), or 0 when the process is gone.
inline std::uint64_t proc_field(pid_t pid, const std::string& file, const std::string& field) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/" + file);
    std::string name;
    std::uint64_t value = 0;
    while (in >> name) {
        if (name == field + ":" && in >> value) return value;
        in.ignore(1 << 20, '\n');
    }
    return 0;
}

}  // namespace contest::test
