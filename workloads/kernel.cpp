// The reference workload: a minimal-config kernel compile, as in contest.
// Prepared once per (source, config) and cached in <workdir>/kernel/; each
// run cleans untimed, then times `make -jN` in a fixed environment.
#include "workloads/kernel.h"

#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <fstream>
#include <functional>
#include <iterator>
#include <sstream>

#include "contest/sys/errors.h"
#include "contest/sys/process.h"
#include "contest/sys/progress.h"
#include "contest/sys/signals.h"
#include "contest/sys/spawn.h"
#include "contest/sys/text.h"
#include "contest/sys/workdir.h"
#include "workloads/build_environment.h"
#include "workloads/workload_kinds.h"

namespace contest {

namespace fs = std::filesystem;

namespace {

// Bumped when the prepared tree changes meaning (layout, steps), so trees
// prepared by an older contest are prepared afresh.
constexpr int kPrepareFormat = 1;

const std::vector<std::string> kConfigTargets = {"tinyconfig", "allnoconfig", "defconfig"};

bool is_named_config(const std::string& config) {
    return std::find(kConfigTargets.begin(), kConfigTargets.end(), config) != kConfigTargets.end();
}

// tar's decompression flag and the program (and package) it runs, from the
// tarball's name; nullopt when it is not a tarball contest knows.
struct Compression {
    const char* tar_flag;  // "" for a plain .tar
    const char* program;
    const char* package;
};
std::optional<Compression> compression_of(const fs::path& tarball) {
    const std::string name = tarball.filename().string();
    if (name.ends_with(".tar.xz") || name.ends_with(".txz"))
        return Compression{"-J", "xz", "xz-utils"};
    if (name.ends_with(".tar.gz") || name.ends_with(".tgz"))
        return Compression{"-z", "gzip", "gzip"};
    if (name.ends_with(".tar.bz2") || name.ends_with(".tbz2"))
        return Compression{"-j", "bzip2", "bzip2"};
    if (name.ends_with(".tar")) return Compression{"", "tar", "tar"};
    return std::nullopt;
}

long long mtime_ns(const fs::path& p) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0) return 0;
    return static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
}

std::uint64_t fnv1a_of_file(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::uint64_t h = 0xcbf29ce484222325ull;
    char buf[65536];
    while (in.read(buf, sizeof buf) || in.gcount() > 0) {
        for (std::streamsize i = 0; i < in.gcount(); ++i) {
            h ^= static_cast<unsigned char>(buf[i]);
            h *= 0x100000001b3ull;
        }
    }
    return h;
}

std::string hex(std::uint64_t v) {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016" PRIx64, v);
    return buf;
}

std::string mib(std::uintmax_t bytes) {
    return std::to_string(bytes >> 20) + " MiB";
}

// Bytes a process has read so far (/proc/PID/io rchar); the tar or cp that
// copies the source reads it all once, which makes this its progress.
std::optional<std::uintmax_t> bytes_read_by(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/io");
    std::string key;
    std::uintmax_t value = 0;
    while (in >> key >> value)
        if (key == "rchar:") return value;
    return std::nullopt;
}

// Runs a long untimed step (unpacking, copying), reporting its progress
// until it ends; throws like run_checked when it fails.
void run_with_progress(const std::vector<std::string>& argv, const SpawnOptions& options,
                       const std::string& what, const std::function<void(pid_t)>& report) {
    auto started = std::chrono::steady_clock::now();
    pid_t pid = spawn(argv, options);
    GroupGuard guard(pid);
    // Short polls first, so a small source costs no waiting; then twice a
    // second, which is plenty for a live line.
    for (double pause = 0.01;; pause = std::min(0.5, pause * 2)) {
        if (exit_status_unreaped(pid)) break;
        report(pid);
        interruptible_sleep(pause);
    }
    ExitInfo exit = wait_child(pid, started);
    guard.stop();
    if (!exit.exited_ok()) throw_step_failed(what, exit, options);
}

std::uintmax_t free_bytes(const fs::path& dir) {
    struct statvfs st {};
    if (::statvfs(dir.c_str(), &st) != 0) return UINTMAX_MAX;
    return static_cast<std::uintmax_t>(st.f_bavail) * st.f_frsize;
}

class KernelWorkload : public Workload {
  public:
    explicit KernelWorkload(const WorkloadOptions& options)
        : options_(options), jobs_(effective_jobs(options.jobs)), dir_(options.workdir / "kernel") {
        check_kernel_config(options.kernel_config);
        if (!is_named_config(options.kernel_config)) {
            config_file_ = fs::absolute(options.kernel_config);
        }
    }

    std::string name() const override { return "kernel"; }

    void prepare(Progress& progress) override {
        // The source first: it is what the user named; the tools follow from it.
        resolve_source();
        check_tools();
        Workdir::opened_or_open(options_.opened_workdir, options_.workdir)
            .make_dir("kernel");  // a real folder, no link
        nlohmann::json key = cache_key();
        if (cached_key() == key && fs::exists(tree() / "Makefile") &&
            fs::exists(tree() / ".config")) {
            reused_ = true;
            progress.note("kernel: reusing the tree prepared in " + tree().string());
        } else {
            reused_ = false;
            prepare_afresh(progress, key);
        }
        kernel_version_ =
            first_line(command_output({"make", "-s", "-C", tree().string(), "kernelversion"}));
        compiler_version_ = first_line(command_output({"gcc", "--version"}));
    }

    void clean() override {
        reset_log(log_path());
        run_checked({"make", "clean"}, step_options("clean.log"), "kernel: make clean");
    }

    Command timed_command() const override {
        return Command{{"make", "-j" + std::to_string(jobs_)}, tree(), fixed_build_environment()};
    }

    fs::path log_path() const override { return dir_ / "build.log"; }

    fs::path source_tree() const override { return tree(); }

    nlohmann::json describe() const override {
        Command c = timed_command();
        nlohmann::json d = {
            {"kind", "kernel"},
            {"source", source_.path.string()},
            {"kernel_config",
             config_file_.empty() ? options_.kernel_config : config_file_.string()},
            {"jobs", jobs_},
            {"tree", tree().string()},
            {"prepare_reused", reused_},
            {"command", c.argv},
            {"environment", c.env_overrides},
            {"kernel_version", kernel_version_},
            {"compiler_version", compiler_version_},
        };
        if (!source_.path.empty()) d["cache_key"] = cache_key();
        return d;
    }

  private:
    fs::path tree() const { return dir_ / "tree"; }
    fs::path key_file() const { return dir_ / "key.json"; }

    SpawnOptions step_options(const std::string& log_name) const {
        SpawnOptions spawn;
        spawn.cwd = tree();
        spawn.env_overrides = fixed_build_environment();
        spawn.log_to(dir_ / log_name);
        reset_log(dir_ / log_name);
        return spawn;
    }

    void check_tools() const {
        std::vector<MissingTool> missing = missing_kernel_tools(
            std::getenv("PATH") ? std::getenv("PATH") : "/usr/bin:/bin", "/usr/include");
        if (!missing.empty()) throw EnvironmentError(describe_missing(missing));
    }

    static std::string describe_missing(const std::vector<MissingTool>& missing) {
        return "the kernel workload needs what is missing here: " +
               join(missing, ", ",
                    [](const MissingTool& m) {
                        return m.what + " (Debian package " + m.package + ")";
                    }) +
               "; `make deps-kernel` installs them";
    }

    void resolve_source() {
        fs::path source = options_.kernel_source;
        if (source.empty()) {
            auto newest = newest_kernel_source();
            if (!newest)
                throw EnvironmentError(
                    "no kernel source: no /usr/src/linux-source-*.tar.* and no --kernel-source; "
                    "install the Debian package linux-source-6.1 (make deps-kernel)");
            source = *newest;
        }
        std::error_code ec;
        if (!fs::exists(source, ec))
            throw EnvironmentError("--kernel-source: " + source.string() + " does not exist");
        if (fs::is_directory(source, ec)) {
            if (!fs::exists(source / "Makefile", ec))
                throw UsageError("--kernel-source: " + source.string() +
                                 " has no Makefile, so it is not a kernel tree");
        } else {
            auto compression = compression_of(source);
            if (!compression)
                throw UsageError("--kernel-source: " + source.string() +
                                 " is neither a .tar.xz, .tar.gz, .tar.bz2 nor a directory");
            if (!find_on_path(compression->program))
                throw EnvironmentError(
                    describe_missing({{compression->program, compression->package}}));
        }
        source_ = fingerprint_source(source);
    }

    nlohmann::json cache_key() const {
        nlohmann::json config;
        if (config_file_.empty())
            config = options_.kernel_config;
        else
            config = {{"file", config_file_.string()}, {"fnv1a", hex(fnv1a_of_file(config_file_))}};
        return {
            {"format", kPrepareFormat},
            {"source", source_.path.string()},
            {"source_is_tree", source_.is_tree},
            {"source_size", source_.size},
            {"source_mtime_ns", source_.mtime_ns},
            {"source_files", source_.files},
            {"config", config},
        };
    }

    nlohmann::json cached_key() const {
        std::ifstream in(key_file());
        if (!in) return nullptr;
        try {
            return nlohmann::json::parse(in);
        } catch (const nlohmann::json::exception&) {
            return nullptr;  // a damaged key only means preparing again
        }
    }

    void prepare_afresh(Progress& progress, const nlohmann::json& key) {
        // The key goes first and comes back last: an interrupted prepare is
        // never mistaken for a finished one.
        fs::remove(key_file());
        const fs::path unpack = dir_ / "unpack";
        if (fs::exists(tree())) progress.status("kernel: removing the previous tree");
        fs::remove_all(tree());
        fs::remove_all(unpack);
        fs::create_directories(unpack);
        check_space();
        copy_source(progress, unpack);
        fs::rename(kernel_root(unpack), tree());
        fs::remove_all(unpack);
        configure(progress);
        std::ofstream out(key_file());
        out << key.dump(2) << "\n";
        out.close();
        if (!out) throw EnvironmentError("cannot write " + key_file().string());
        progress.note(
            "kernel: prepared " + tree().string() + " from " + source_.path.string() + " (" +
            (config_file_.empty() ? options_.kernel_config : config_file_.string()) + ")");
    }

    // The uncompressed size when it can be known cheaply: xz's index has it,
    // a tree's fingerprint counted it; gzip and bzip2 would need a full pass.
    std::optional<std::uintmax_t> unpacked_size() const {
        if (source_.is_tree) return source_.size;
        if (compression_of(source_.path)->program != std::string("xz")) return std::nullopt;
        std::istringstream list(command_output({"xz", "--robot", "--list", source_.path.string()}));
        std::string line;
        while (std::getline(list, line)) {
            if (!line.starts_with("totals\t")) continue;
            std::istringstream fields(line);
            std::string name, streams, blocks;
            std::uintmax_t compressed = 0, uncompressed = 0;
            if (fields >> name >> streams >> blocks >> compressed >> uncompressed)
                return uncompressed;
        }
        return std::nullopt;
    }

    void check_space() {
        total_bytes_ = unpacked_size();
        if (!total_bytes_) return;
        // The build adds objects: a tinyconfig build about 100 MiB, a
        // defconfig one a few GiB. One GiB of room for the former; a user
        // of defconfig is warned by the build itself.
        const std::uintmax_t needed = *total_bytes_ + (std::uintmax_t{1} << 30);
        const std::uintmax_t available = free_bytes(dir_);
        if (available < needed)
            throw EnvironmentError("no room for the kernel tree in " + dir_.string() +
                                   ": it needs about " + mib(needed) + ", " + mib(available) +
                                   " are free (--workdir elsewhere?)");
    }

    void copy_source(Progress& progress, const fs::path& unpack) {
        std::vector<std::string> argv;
        std::string verb;
        if (source_.is_tree) {
            // A copy, never the user's tree itself: make clean and the
            // config step would change it.
            argv = {"cp", "-a", "--reflink=auto", (source_.path / ".").string(), unpack.string()};
            verb = "copying";
        } else {
            argv = {"tar", "-x", "-f", source_.path.string(), "-C", unpack.string()};
            std::string flag = compression_of(source_.path)->tar_flag;
            if (!flag.empty()) argv.insert(argv.begin() + 1, flag);
            verb = "unpacking";
        }
        SpawnOptions spawn;
        spawn.log_to(dir_ / "prepare.log");
        reset_log(dir_ / "prepare.log");
        const auto started = std::chrono::steady_clock::now();
        const std::string what = "kernel: " + verb + " " + source_.path.filename().string();
        run_with_progress(argv, spawn, what, [&](pid_t pid) {
            std::string text = what;
            if (auto done = bytes_read_by(pid)) {
                text += ": " + mib(*done);
                if (total_bytes_ && *total_bytes_ > 0)
                    text +=
                        " of " + mib(*total_bytes_) + " (" +
                        std::to_string(std::min<std::uintmax_t>(100, *done * 100 / *total_bytes_)) +
                        "%)";
            }
            auto seconds = std::chrono::duration_cast<std::chrono::seconds>(
                std::chrono::steady_clock::now() - started);
            progress.status(text + ", " + std::to_string(seconds.count()) + " s");
        });
    }

    // Tarballs usually hold one top folder (linux-source-6.1/); some do not.
    fs::path kernel_root(const fs::path& unpack) const {
        if (fs::exists(unpack / "Makefile")) return unpack;
        std::vector<fs::path> entries;
        for (const auto& e : fs::directory_iterator(unpack)) entries.push_back(e.path());
        if (entries.size() == 1 && fs::exists(entries[0] / "Makefile")) return entries[0];
        throw EnvironmentError(source_.path.string() +
                               " holds no kernel tree (no top-level Makefile)");
    }

    void configure(Progress& progress) {
        std::string target = options_.kernel_config;
        if (!config_file_.empty()) {
            fs::copy_file(config_file_, tree() / ".config", fs::copy_options::overwrite_existing);
            target = "olddefconfig";
        }
        progress.status("kernel: make " + target);
        run_checked({"make", target}, step_options("configure.log"), "kernel: make " + target);
    }

    WorkloadOptions options_;
    unsigned jobs_;
    fs::path dir_;
    fs::path config_file_;  // empty for tinyconfig, allnoconfig, defconfig
    SourceFingerprint source_;
    std::optional<std::uintmax_t> total_bytes_;
    bool reused_ = false;
    std::string kernel_version_, compiler_version_;
};

}  // namespace

bool is_named_kernel_config(const std::string& config) {
    return is_named_config(config);
}

std::vector<MissingTool> missing_kernel_tools(const std::string& search_path,
                                              const fs::path& include_dir) {
    std::vector<MissingTool> missing;
    const std::pair<const char*, const char*> programs[] = {
        {"make", "make"},   {"gcc", "gcc"},   {"bc", "bc"},
        {"bison", "bison"}, {"flex", "flex"}, {"tar", "tar"},
    };
    for (const auto& [program, package] : programs)
        if (!find_on_path(program, search_path)) missing.push_back({program, package});
    if (!fs::exists(include_dir / "libelf.h") && !fs::exists(include_dir / "gelf.h"))
        missing.push_back({"libelf headers", "libelf-dev"});
    if (!fs::exists(include_dir / "openssl" / "ssl.h"))
        missing.push_back({"openssl headers", "libssl-dev"});
    return missing;
}

std::optional<fs::path> newest_kernel_source(const fs::path& dir) {
    std::optional<fs::path> newest;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        const std::string name = e.path().filename().string();
        if (!name.starts_with("linux-source-") || !e.is_regular_file(ec)) continue;
        if (!compression_of(e.path()) || name.ends_with(".tar")) continue;
        // strverscmp orders 6.10 after 6.9, as `sort -V` does.
        if (!newest || ::strverscmp(newest->filename().c_str(), name.c_str()) < 0)
            newest = e.path();
    }
    return newest;
}

SourceFingerprint fingerprint_source(const fs::path& source) {
    SourceFingerprint f;
    // Canonical, so that "tree/", "./tree" and a symlink to it are one key.
    f.path = fs::canonical(source);
    f.is_tree = fs::is_directory(f.path);
    if (!f.is_tree) {
        f.size = fs::file_size(f.path);
        f.mtime_ns = mtime_ns(f.path);
        return f;
    }
    f.files = 0;
    f.mtime_ns = mtime_ns(f.path);
    auto it =
        fs::recursive_directory_iterator(f.path, fs::directory_options::skip_permission_denied);
    for (auto end = fs::recursive_directory_iterator(); it != end; ++it) {
        std::error_code ec;
        if (it->is_directory(ec) && it->path().filename() == ".git") {
            it.disable_recursion_pending();  // history is not source
            continue;
        }
        f.mtime_ns = std::max(f.mtime_ns, mtime_ns(it->path()));
        if (it->is_regular_file(ec)) {
            f.size += it->file_size(ec);
            ++f.files;
        }
    }
    return f;
}

void check_kernel_config(const std::string& config) {
    std::error_code ec;
    if (!is_named_config(config) && !fs::is_regular_file(config, ec))
        throw UsageError("--kernel-config: '" + config +
                         "' is neither tinyconfig, allnoconfig, defconfig nor a config file");
}

std::unique_ptr<Workload> make_kernel_workload(const WorkloadOptions& options) {
    return std::make_unique<KernelWorkload>(options);
}

}  // namespace contest
