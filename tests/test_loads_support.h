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

#include "contest/run/rounds/load_runner.h"
#include "loads/registry.h"
#include "test_helpers.h"

namespace contest::test {

// A load in contest's own LoadSession under a scratch workdir: prepared on
// construction, started by start(). Destroyed in reverse: the group is
// stopped and reaped, the load object goes, then the folders.
class LoadUnderTest {
  public:
    LoadUnderTest(const std::string& name, LoadOptions options = {})
        : LoadUnderTest(*found(name), std::move(options)) {}
    // A load that is not in the registry (a --load-cmd entry of a test's own).
    LoadUnderTest(const LoadInfo& info, LoadOptions options = {})
        : scratch_("loads-" + std::string(info.name)), session_(make(info, std::move(options))) {}
    void start() {
        adopt_orphans();  // what the load leaves behind becomes ours to see
        session_->start();
    }
    // SIGTERM to the group, SIGKILL after 2 s, reaped: as contest stops a load.
    void stop() { session_->stop(); }
    void remove_folder() { session_->remove_folder(); }
    void destroy_load() { session_->destroy_load(); }

    pid_t pid() const { return session_->pgid(); }
    LoadSample sample() const { return session_->sample(); }
    std::optional<std::string> failure() const { return session_->failure(); }
    double units() const { return session_->window(zero_, sample()).units; }
    double secondary() const { return session_->window(zero_, sample()).secondary; }
    // Work and passes from one sample, so that the two agree.
    LoadWindow window() const { return session_->window(zero_, sample()); }
    nlohmann::json facts() const { return session_->facts(); }
    const std::filesystem::path& folder() const { return session_->folder(); }
    const std::filesystem::path& workdir() const { return scratch_.path(); }
    const LoadInfo& info() const { return session_->info(); }

  private:
    static const LoadInfo* found(const std::string& name) {
        const LoadInfo* info = find_load(name);
        REQUIRE(info != nullptr);
        return info;
    }
    std::unique_ptr<LoadSession> make(const LoadInfo& info, LoadOptions options) {
        options.workdir = scratch_.path();
        return std::make_unique<LoadSession>(info, options);
    }

    ScratchDir scratch_;
    std::unique_ptr<LoadSession> session_;
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
