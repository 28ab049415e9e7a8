// read_load: reads a file as large as RAM from start to end, over and over.
// The file is written before the timed part and never counted. It is made
// unnamed (O_TMPFILE, or unlinked straight after creation), so it
// disappears with the last process holding it, whatever stops the load.
#include <fcntl.h>
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

constexpr const LoadOption* kReadLoadOptions[] = {&kLoadSizeOption};

constexpr std::size_t kReadBytes = 256 << 10;  // a large sequential read, as cat's
constexpr std::size_t kFillBytes = 1 << 20;

class ReadLoad final : public Load {
  public:
    explicit ReadLoad(const LoadEnv& env) : env_(env) {}

    void prepare() override {
        UniqueFd dirfd = open_load_dir(env_.dir);
        room_ = disk_room(dirfd.get());
        size_ =
            cap_to_disk("read_load", load_size_bytes(env_.options).value_or(env_.mem_total), room_);
        fd_ = create_unnamed_file(dirfd.get());
        fill();
    }

    void run(LoadCounters& counters) override {
        std::vector<char> buf(kReadBytes);
        for (;;) {
            std::uint64_t offset = 0;
            for (;;) {
                // pread: the offset is ours, not shared with contest's copy of the fd.
                ssize_t n = ::pread(fd_.get(), buf.data(), buf.size(), static_cast<off_t>(offset));
                if (n < 0 && errno == EINTR) continue;
                if (n < 0) {
                    counters.fail(std::string("read_load: read: ") + std::strerror(errno));
                    return;
                }
                if (n == 0) break;
                offset += static_cast<std::uint64_t>(n);
                counters.units.fetch_add(static_cast<std::uint64_t>(n), std::memory_order_relaxed);
            }
            if (offset == 0) {
                counters.fail("read_load: the file to read is empty");
                return;
            }
            counters.secondary.fetch_add(1, std::memory_order_relaxed);
        }
    }

    nlohmann::json facts() const override {
        nlohmann::json f = size_.to_json();
        f["disk"] = room_.to_json();
        f["target_from"] = load_size_bytes(env_.options) ? "size override" : "MemTotal";
        f["mem_available_bytes"] = env_.mem_available;
        // A file that fits is read from the page cache after the first pass:
        // then read_load is a memory-bandwidth load, not a disk one.
        f["fits_page_cache"] = size_.bytes < env_.mem_available;
        f["read_bytes"] = kReadBytes;
        return f;
    }

  private:
    UniqueFd create_unnamed_file(int dirfd) {
        int fd = ::openat(dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
        if (fd >= 0) return UniqueFd(fd);
        // File systems without O_TMPFILE: create, then unlink at once.
        const char* name = "read_load.data";
        ::unlinkat(dirfd, name, 0);
        fd = ::openat(dirfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0)
            throw EnvironmentError("read_load: cannot create a file in " + env_.dir.string() +
                                   ": " + std::strerror(errno));
        ::unlinkat(dirfd, name, 0);
        return UniqueFd(fd);
    }

    // Real blocks, not a sparse or fallocated file: reading those would
    // never reach the disk.
    void fill() {
        std::vector<char> data(kFillBytes, 'r');
        std::uint64_t done = 0;
        while (done < size_.bytes) {
            const std::size_t chunk =
                static_cast<std::size_t>(std::min<std::uint64_t>(data.size(), size_.bytes - done));
            if (write_all(fd_.get(), data.data(), chunk) != chunk)
                throw EnvironmentError("read_load: writing its " +
                                       std::to_string(size_.bytes / kMiB) + " MiB file in " +
                                       env_.dir.string() + ": " + std::strerror(errno));
            done += chunk;
        }
        // Written back now, so the timed part only reads.
        if (::fdatasync(fd_.get()) != 0)
            throw EnvironmentError(std::string("read_load: fdatasync: ") + std::strerror(errno));
    }

    LoadEnv env_;
    DiskRoom room_;
    CappedSize size_;
    UniqueFd fd_;
};

}  // namespace

extern const LoadInfo kReadLoad{
    .name = "read_load",
    .help = "reads a RAM-sized file, made before the run, over and over",
    .unit = "MiB read",
    .unit_divisor = 1 << 20,
    .secondary_unit = "passes",
    .classes = LoadClass::io,
    .options = kReadLoadOptions,
    .make = [](const LoadEnv& env) -> std::unique_ptr<Load> {
        return std::make_unique<ReadLoad>(env);
    },
};

}  // namespace contest
