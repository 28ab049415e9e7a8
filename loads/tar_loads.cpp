// ctar_load and xtar_load: create / extract a tar archive of the workload's
// source tree with the system tar, over and over, in the load's private
// folder. The archive streams through the load process (tar writes to or
// reads from a pipe), which counts the bytes as they pass, so work shows
// continuously, not only when a whole archive is done.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <vector>

#include "contest/sys/errors.h"
#include "contest/sys/process.h"
#include "contest/sys/spawn.h"
#include "loads/load.h"
#include "loads/load_files.h"
#include "loads/registry.h"

namespace contest {
namespace {

constexpr std::size_t kCopyBytes = 256 << 10;
constexpr const char* kArchiveName = "ctar_load.tar";
constexpr const char* kExtractName = "extracted";
// Run alone (`contest load`), without a workload, a tar load archives a tree
// every Debian machine with a compiler has: real source, many small files.
constexpr const char* kFallbackSource = "/usr/include";

constexpr LoadOption kTarSource{
    .name = "tar-source",
    .value_name = "D",
    .help = "the tree to archive (default: the workload's source; alone, /usr/include)",
};
constexpr const LoadOption* kTarLoadsOptions[] = {&kTarSource};

// Bytes of the regular files under root, without following symlinks: what
// an archive of it will hold, near enough to check the room for it.
std::uint64_t tree_bytes(const std::filesystem::path& root) {
    std::uint64_t total = 0;
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator(
             root, std::filesystem::directory_options::skip_permission_denied, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
        std::error_code size_ec;
        if (it->is_regular_file(size_ec) && !it->is_symlink(size_ec)) {
            auto size = it->file_size(size_ec);
            if (!size_ec) total += size;
        }
    }
    return total;
}

// What both tar loads share: the source tree, the room check, the folder.
class TarLoad : public Load {
  public:
    TarLoad(std::string name, const LoadEnv& env) : name_(std::move(name)), env_(env) {}

    void prepare() override {
        std::filesystem::path source = source_given().path.lexically_normal();
        if (!source.has_filename()) source = source.parent_path();
        std::error_code ec;
        if (source.empty() || !std::filesystem::is_directory(source, ec))
            throw EnvironmentError(
                name_ + ": needs the workload's source tree to archive" +
                (source.empty() ? std::string() : ", and " + source.string() + " is not a folder"));
        source_parent_ = source.parent_path();
        source_name_ = source.filename();
        dirfd_ = open_load_dir(env_.dir);
        room_ = disk_room(dirfd_.get());
        source_bytes_ = tree_bytes(source);
        // Archive blocks and headers; xtar holds an archive and a tree.
        std::uint64_t needed = (source_bytes_ + source_bytes_ / 10 + kMiB) * copies_needed();
        if (needed > room_.usable())
            throw EnvironmentError(name_ + ": no room on disk for " +
                                   std::to_string(needed / kMiB) + " MiB in " + env_.dir.string() +
                                   " (" + std::to_string(room_.usable() / kMiB) + " MiB usable)");
    }

    nlohmann::json facts() const override {
        return {{"source", (source_parent_ / source_name_).string()},
                {"source_from", source_given().from},
                {"source_bytes", source_bytes_},
                {"disk", room_.to_json()},
                {"tar", find_on_path("tar").value_or("").string()}};
    }

  protected:
    virtual int copies_needed() const = 0;

    // The tree to archive, and what named it: --tar-source, else the
    // workload's tree, else a tree every Debian has.
    struct Source {
        std::filesystem::path path;
        const char* from;
    };
    Source source_given() const {
        if (auto given = env_.options.text(kTarSource)) return {*given, "--tar-source"};
        if (!env_.options.workload_source.empty())
            return {env_.options.workload_source, "workload"};
        return {kFallbackSource, "fallback (no workload)"};
    }

    // Reaps one tar and says whether its archive counts; when not, the
    // reason (with tar's last words from errors_) is in counters.
    bool tar_ended_well(LoadCounters& counters, pid_t pid, std::uint64_t bytes) {
        int status = wait_for_exit(pid);
        // 1 means "some files changed while being archived": still an archive.
        if (WIFEXITED(status) && (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 1))
            return true;
        if (bytes > 0 && WIFEXITED(status)) return true;  // partial trouble, real work done
        counters.fail(name_ + ": tar " + describe_wait_status(status) + ": " +
                      error_log_tail(errors_.get()));
        return false;
    }

    std::string name_;
    LoadEnv env_;
    std::filesystem::path source_parent_, source_name_;
    UniqueFd dirfd_;
    UniqueFd errors_;
    DiskRoom room_;
    std::uint64_t source_bytes_ = 0;
};

// Copies what read_some(buf, bytes so far) gives (read(2)'s way: a count, 0
// at the end, -1 on error) to out, each byte a unit of work, until the end,
// an error, or out takes no more (the disk is full, or tar stopped reading).
// Returns the bytes copied.
template <typename ReadSome>
std::uint64_t copy_counted(ReadSome read_some, int out, std::vector<char>& buf,
                           LoadCounters& counters) {
    std::uint64_t bytes = 0;
    for (;;) {
        const ssize_t n = read_some(buf, bytes);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return bytes;
        const std::uint64_t written = write_all(out, buf.data(), static_cast<std::size_t>(n));
        bytes += written;
        counters.units.fetch_add(written, std::memory_order_relaxed);
        if (written < static_cast<std::uint64_t>(n)) return bytes;
    }
}

class CtarLoad final : public TarLoad {
  public:
    explicit CtarLoad(const LoadEnv& env) : TarLoad("ctar_load", env) {}

    void run(LoadCounters& counters) override {
        unlink_on_sigterm(dirfd_.get(), kArchiveName);
        errors_ = make_error_log(dirfd_.get());
        std::vector<char> buf(kCopyBytes);
        for (;;) {
            ::unlinkat(dirfd_.get(), kArchiveName, 0);
            UniqueFd archive(create_load_file(dirfd_.get(), kArchiveName));
            int pipe_fds[2];
            if (archive.get() < 0 || ::pipe2(pipe_fds, O_CLOEXEC) != 0) {
                counters.fail(name_ + ": cannot create the archive: " + std::strerror(errno));
                return;
            }
            UniqueFd from_tar(pipe_fds[0]), tar_out(pipe_fds[1]);
            if (errors_.get() >= 0) ::ftruncate(errors_.get(), 0);
            pid_t pid =
                spawn({"tar", "-cf", "-", "-C", source_parent_.string(), source_name_.string()},
                      in_callers_group(-1, tar_out.get(), errors_.get()));
            tar_out.reset();  // tar's copy is the only writer: EOF when it ends
            // Where the disk fills, tar gets EPIPE.
            const std::uint64_t bytes = copy_counted(
                [&](std::vector<char>& b, std::uint64_t) {
                    return ::read(from_tar.get(), b.data(), b.size());
                },
                archive.get(), buf, counters);
            from_tar.reset();
            if (!tar_ended_well(counters, pid, bytes)) return;
            archive.reset();
            ::unlinkat(dirfd_.get(), kArchiveName, 0);
            counters.secondary.fetch_add(1, std::memory_order_relaxed);
        }
    }

  private:
    int copies_needed() const override { return 1; }
};

class XtarLoad final : public TarLoad {
  public:
    explicit XtarLoad(const LoadEnv& env) : TarLoad("xtar_load", env) {}

    void prepare() override {
        TarLoad::prepare();
        // The archive is made here, untimed, then unlinked and kept open: it
        // goes away with the last process holding it.
        std::filesystem::path archive = env_.dir / "xtar_load.tar";
        std::filesystem::path log = env_.dir / "xtar_load.log";
        SpawnOptions options;
        options.log_to(log);
        try {
            run_checked({"tar", "-cf", archive.string(), "-C", source_parent_.string(),
                         source_name_.string()},
                        options,
                        "xtar_load: archiving " + (source_parent_ / source_name_).string());
        } catch (const Interrupted&) {
            throw;
        } catch (const std::exception& e) {
            std::filesystem::remove(archive);
            std::filesystem::remove(log);
            throw EnvironmentError(e.what());
        }
        std::filesystem::remove(log);
        archive_ =
            UniqueFd(::openat(dirfd_.get(), "xtar_load.tar", O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
        ::unlinkat(dirfd_.get(), "xtar_load.tar", 0);
        if (archive_.get() < 0)
            throw EnvironmentError("xtar_load: cannot open the archive it made: " +
                                   std::string(std::strerror(errno)));
        struct stat st {};
        ::fstat(archive_.get(), &st);
        archive_bytes_ = static_cast<std::uint64_t>(st.st_size);
    }

    void run(LoadCounters& counters) override {
        // A tar that dies mid-archive must show as its exit status, not kill
        // the load with SIGPIPE.
        ::signal(SIGPIPE, SIG_IGN);
        errors_ = make_error_log(dirfd_.get());
        const std::filesystem::path target = env_.dir / kExtractName;
        std::vector<char> buf(kCopyBytes);
        for (;;) {
            std::error_code ec;
            std::filesystem::remove_all(target, ec);  // does not follow symlinks
            int pipe_fds[2];
            if (::mkdirat(dirfd_.get(), kExtractName, 0700) != 0 ||
                ::pipe2(pipe_fds, O_CLOEXEC) != 0) {
                counters.fail(name_ + ": cannot make " + target.string() + ": " +
                              std::strerror(errno));
                return;
            }
            UniqueFd tar_in(pipe_fds[0]), to_tar(pipe_fds[1]);
            if (errors_.get() >= 0) ::ftruncate(errors_.get(), 0);
            pid_t pid = spawn({"tar", "-xf", "-", "--warning=no-timestamp", "-C", target.string()},
                              in_callers_group(tar_in.get(), -1, errors_.get()));
            tar_in.reset();
            // pread: the offset is this process's own, not shared with
            // contest's copy of the descriptor.
            const std::uint64_t bytes = copy_counted(
                [&](std::vector<char>& b, std::uint64_t done) {
                    return ::pread(archive_.get(), b.data(), b.size(), static_cast<off_t>(done));
                },
                to_tar.get(), buf, counters);
            to_tar.reset();
            if (!tar_ended_well(counters, pid, bytes)) return;
            counters.secondary.fetch_add(1, std::memory_order_relaxed);
        }
    }

    nlohmann::json facts() const override {
        nlohmann::json f = TarLoad::facts();
        f["archive_bytes"] = archive_bytes_;
        return f;
    }

  private:
    int copies_needed() const override { return 2; }

    UniqueFd archive_;
    std::uint64_t archive_bytes_ = 0;
};

std::optional<std::string> tar_unavailable(const LoadOptions&) {
    if (!find_on_path("tar")) return "tar not found on PATH (Debian package tar)";
    return std::nullopt;
}

// The two tar loads differ only in what they do with the archive.
LoadInfo tar_entry(std::string_view name, std::string_view help, std::string_view unit,
                   std::unique_ptr<Load> (*make)(const LoadEnv&)) {
    return {
        .name = name,
        .help = help,
        .unit = unit,
        .unit_divisor = 1 << 20,
        .secondary_unit = "archives",
        .classes = LoadClass::io | LoadClass::filesystem,
        .sets = LoadSets::all_only,
        .options = kTarLoadsOptions,
        .unavailable = tar_unavailable,
        .make = make,
    };
}

}  // namespace

extern const LoadInfo kCtarLoad = tar_entry(
    "ctar_load", "creates a tar of the workload's source tree, over and over", "MiB archived",
    [](const LoadEnv& env) -> std::unique_ptr<Load> { return std::make_unique<CtarLoad>(env); });

extern const LoadInfo kXtarLoad = tar_entry(
    "xtar_load", "extracts a tar of the workload's source tree, over and over", "MiB extracted",
    [](const LoadEnv& env) -> std::unique_ptr<Load> { return std::make_unique<XtarLoad>(env); });

}  // namespace contest
