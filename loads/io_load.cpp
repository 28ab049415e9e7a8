// io_load and io_other: write new files of zeros, each as large as RAM, over
// and over, unlinking and recreating them. New files rather than overwrites:
// allocating blocks and filling the page cache with fresh dirty pages is what
// stresses the VM and the I/O scheduler (Andrew Morton's advice to contest's
// author). Work is counted from what write() returned.
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "contest/sys/errors.h"
#include "loads/load_files.h"
#include "loads/load_size.h"
#include "loads/registry.h"

namespace contest {
namespace {

constexpr std::size_t kWriteBytes = 1 << 20;  // dd bs=1M, as contest's io_load
constexpr const char* kFileName = "io_load.zeros";

constexpr LoadOption kIoOtherDir{
    .name = "io-other-dir",
    .short_name = 'o',
    .value_name = "D",
    .help = "where it writes (another disk)",
};
constexpr const LoadOption* kIoLoadOptions[] = {&kLoadSizeOption};
constexpr const LoadOption* kIoOtherOptions[] = {&kIoOtherDir, &kLoadSizeOption};

class IoLoad final : public Load {
  public:
    // folder: where the files go. own_folder: this load made it (io_other's
    // folder inside --io-other-dir) and removes it when it is destroyed.
    IoLoad(std::string name, const LoadEnv& env, std::filesystem::path folder, bool own_folder)
        : name_(std::move(name)), env_(env), folder_(std::move(folder)), own_folder_(own_folder) {}

    ~IoLoad() override {
        if (own_folder_ && !folder_.empty()) {
            std::error_code ec;
            std::filesystem::remove_all(folder_, ec);  // does not follow symlinks
        }
    }

    void prepare() override {
        if (own_folder_) make_own_folder();
        dirfd_ = open_load_dir(folder_);
        room_ = disk_room(dirfd_.get());
        size_ = cap_to_disk(name_, load_size_bytes(env_.options).value_or(env_.mem_total), room_);
    }

    void run(LoadCounters& counters) override {
        unlink_on_sigterm(dirfd_.get(), kFileName);
        std::vector<char> zeros(kWriteBytes, 0);
        for (;;) {
            // The room may have shrunk since prepare (the workload writes
            // too): each new file is capped again, never below the margin.
            std::uint64_t room_now = disk_room(dirfd_.get()).usable();
            std::uint64_t file_bytes = std::min(size_.bytes, room_now);
            if (file_bytes < kWriteBytes) {
                counters.fail(name_ + ": no room left on " + folder_.string());
                return;
            }
            ::unlinkat(dirfd_.get(), kFileName, 0);
            UniqueFd fd(create_load_file(dirfd_.get(), kFileName));
            if (fd.get() < 0) {
                counters.fail(name_ + ": cannot create " + (folder_ / kFileName).string() + ": " +
                              std::strerror(errno));
                return;
            }
            std::uint64_t written = 0;
            while (written < file_bytes) {
                std::size_t chunk = static_cast<std::size_t>(
                    std::min<std::uint64_t>(kWriteBytes, file_bytes - written));
                const std::uint64_t n = write_all(fd.get(), zeros.data(), chunk);
                written += n;
                counters.units.fetch_add(n, std::memory_order_relaxed);
                if (n == chunk) continue;
                if (errno == ENOSPC) break;  // someone else filled the disk: start over
                counters.fail(name_ + ": write: " + std::strerror(errno));
                fd.reset();
                ::unlinkat(dirfd_.get(), kFileName, 0);
                return;
            }
            fd.reset();
            counters.secondary.fetch_add(1, std::memory_order_relaxed);
        }
    }

    nlohmann::json facts() const override {
        nlohmann::json f = size_.to_json();
        f["folder"] = folder_.string();
        f["disk"] = room_.to_json();
        f["write_bytes"] = kWriteBytes;
        f["target_from"] = load_size_bytes(env_.options) ? "size override" : "MemTotal";
        return f;
    }

  private:
    void make_own_folder() {
        const std::filesystem::path other = env_.options.text(kIoOtherDir).value_or("");
        std::string templ = (other / "contest-io_other.XXXXXX").string();
        if (!::mkdtemp(templ.data()))  // mode 0700
            throw EnvironmentError(name_ + ": cannot create a folder in " + other.string() + ": " +
                                   std::strerror(errno));
        folder_ = templ;
    }

    std::string name_;
    LoadEnv env_;
    std::filesystem::path folder_;
    bool own_folder_;
    UniqueFd dirfd_;
    DiskRoom room_;
    CappedSize size_;
};

std::optional<std::string> io_other_unavailable(const LoadOptions& options) {
    auto other = options.text(kIoOtherDir);
    if (!other) return "needs --io-other-dir (-o): the folder on another disk to write to";
    std::error_code ec;
    if (!std::filesystem::is_directory(*other, ec))
        return "--io-other-dir " + *other + " is not a folder";
    return std::nullopt;
}

}  // namespace

extern const LoadInfo kIoLoad{
    .name = "io_load",
    .help = "writes new files of zeros up to the size of RAM, over and over (unlink, recreate)",
    .unit = "MiB written",
    .unit_divisor = 1 << 20,
    .secondary_unit = "files",
    .classes = LoadClass::io,
    .options = kIoLoadOptions,
    .make = [](const LoadEnv& env) -> std::unique_ptr<Load> {
        return std::make_unique<IoLoad>("io_load", env, env.dir, false);
    },
};

extern const LoadInfo kIoOther{
    .name = "io_other",
    .help = "io_load in --io-other-dir (another disk)",
    .unit = "MiB written",
    .unit_divisor = 1 << 20,
    .secondary_unit = "files",
    .classes = LoadClass::io,
    .sets = LoadSets::all_only,
    .options = kIoOtherOptions,
    .unavailable = io_other_unavailable,
    .make = [](const LoadEnv& env) -> std::unique_ptr<Load> {
        return std::make_unique<IoLoad>("io_other", env, std::filesystem::path(), true);
    },
};

}  // namespace contest
