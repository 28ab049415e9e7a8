#include "contest/vm/kernel_image.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>

#include "contest/observe/kernel_facts.h"
#include "contest/sys/errors.h"
#include "contest/sys/sha256.h"
#include "contest/sys/spawn.h"
#include "contest/sys/text.h"

namespace contest {
namespace {

namespace fs = std::filesystem;

std::string file_bytes(const fs::path& path, std::size_t limit = 64u << 20) {
    std::ifstream in(path, std::ios::binary);
    std::string out;
    char buf[65536];
    while (in && out.size() < limit) {
        in.read(buf, sizeof buf);
        out.append(buf, static_cast<std::size_t>(in.gcount()));
    }
    return out;
}

// A Debian linux-image package's name: linux-image-, then [a-z0-9.+-].
bool is_package_name(const std::string& name) {
    const std::string prefix = "linux-image-";
    if (!name.starts_with(prefix) || name.size() == prefix.size()) return false;
    for (char c : name.substr(prefix.size()))
        if (!(std::islower(static_cast<unsigned char>(c)) ||
              std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '+' || c == '-'))
            return false;
    return true;
}

// Module names use '_' where their files may have '-' (crc32c-intel.ko).
std::string module_name(std::string file_stem) {
    std::replace(file_stem.begin(), file_stem.end(), '-', '_');
    return file_stem;
}

// The endings a module file has, plain first, and the program that
// decompresses each (busybox's insmod loads only plain ones).
struct ModuleEnding {
    const char* ending;
    const char* decompressor;  // nullptr: plain
    const char* package;       // Debian's, for the one that is missing
};
constexpr ModuleEnding kModuleEndings[] = {{".ko", nullptr, nullptr},
                                           {".ko.xz", "xz", "xz-utils"},
                                           {".ko.zst", "zstd", "zstd"},
                                           {".ko.gz", "gzip", "gzip"}};

const ModuleEnding* module_ending(const std::string& file_name) {
    for (const auto& e : kModuleEndings)
        if (file_name.ends_with(e.ending)) return &e;
    return nullptr;
}

// Every module file under root by name, plain or compressed; a plain .ko
// wins over a compressed one of the same name.
void find_modules(const fs::path& root, KernelImage& kernel) {
    std::error_code ec;
    for (fs::recursive_directory_iterator
             it(root, fs::directory_options::skip_permission_denied, ec),
         end;
         it != end; it.increment(ec)) {
        if (ec) break;
        if (!it->is_regular_file(ec)) continue;
        const std::string name = it->path().filename().string();
        const ModuleEnding* ending = module_ending(name);
        if (!ending) continue;
        const std::string module =
            module_name(name.substr(0, name.size() - std::strlen(ending->ending)));
        auto [at, added] = kernel.modules.emplace(module, it->path());
        if (!added && !ending->decompressor) at->second = it->path();
    }
}

void read_builtin_list(const fs::path& file, KernelImage& kernel) {
    std::ifstream in(file);
    for (std::string line; std::getline(in, line);) {
        const fs::path p(line);
        std::string stem = p.filename().string();
        if (stem.ends_with(".ko"))
            kernel.builtin.insert(module_name(stem.substr(0, stem.size() - 3)));
    }
}

void read_config(const fs::path& file, KernelImage& kernel) {
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) return;
    kernel.config_text = file_bytes(file);
    kernel.config_source = file.string();
}

// root's lib/modules/<release>/ (or usr/lib/modules/<release>/); none when
// it has none: another release's modules are another kernel's, which would
// not load (or worse, load) into this one.
fs::path modules_folder(const fs::path& root, const std::string& release) {
    std::error_code ec;
    if (release.empty()) return {};
    for (const char* base : {"lib/modules", "usr/lib/modules"})
        if (fs::is_directory(root / base / release, ec)) return root / base / release;
    return {};
}

void take_modules(const fs::path& folder, KernelImage& kernel) {
    kernel.modules_folder = folder;
    if (folder.empty()) return;
    find_modules(folder, kernel);
    read_builtin_list(folder / "modules.builtin", kernel);
}

fs::path newest_matching(const fs::path& folder, const std::string& prefix,
                         const std::string& suffix) {
    std::error_code ec;
    std::vector<fs::path> found;
    for (const auto& e : fs::directory_iterator(folder, ec)) {
        const std::string name = e.path().filename().string();
        if (name.starts_with(prefix) && name.ends_with(suffix)) found.push_back(e.path());
    }
    std::sort(found.begin(), found.end());
    return found.empty() ? fs::path() : found.back();
}

// The package file unpacked once into cache/<its stem>-<sha256 prefix>/ (a
// marker file says the unpacking finished; a half-done one is redone). The
// key is the file's content: a package rebuilt under the same name and
// version gets its own folder, not the old build's.
fs::path unpacked_package(const fs::path& deb, const fs::path& cache, Progress& progress) {
    const auto sha = file_sha256_hex(deb);
    if (!sha) throw EnvironmentError("cannot read " + deb.string());
    const std::string key = deb.stem().string() + "-" + sha->substr(0, 16);
    const fs::path dir = cache / key;
    std::error_code ec;
    if (fs::exists(dir / ".unpacked", ec)) return dir;
    fs::remove_all(dir, ec);
    fs::create_directories(cache, ec);
    // Another contest may unpack the same package meanwhile: each its own
    // partial folder, renamed into place whole.
    const fs::path partial = cache / (key + ".partial." + std::to_string(::getpid()));
    fs::remove_all(partial, ec);
    progress.note("contest: unpacking " + deb.filename().string() + " into " + dir.string());
    SpawnOptions so;
    so.log_to(cache / "unpack.log");
    run_checked({"dpkg-deb", "-x", deb.string(), partial.string()}, so,
                "unpacking " + deb.string() + " (dpkg-deb -x)");
    std::ofstream(partial / ".unpacked") << deb.string() << "\nsha256 " << *sha << "\n";
    fs::rename(partial, dir, ec);
    if (ec && fs::exists(dir / ".unpacked")) {
        fs::remove_all(partial, ec);  // the other one was first
        return dir;
    }
    if (ec)
        throw EnvironmentError("cannot move " + partial.string() + " to " + dir.string() + ": " +
                               ec.message());
    return dir;
}

// A package name fetched with `apt-get download` into cache/debs/, once.
fs::path fetched_package(const std::string& name, const fs::path& cache, Progress& progress) {
    const fs::path debs = cache / "debs";
    std::error_code ec;
    fs::create_directories(debs, ec);
    fs::path deb = newest_matching(debs, name + "_", ".deb");
    if (!deb.empty()) return deb;
    progress.note("contest: fetching " + name + " (apt-get download) into " + debs.string());
    // Into a folder of its own, moved beside the others once whole.
    const fs::path fetching = debs / (".fetching." + std::to_string(::getpid()));
    fs::remove_all(fetching, ec);
    fs::create_directories(fetching, ec);
    SpawnOptions so;
    so.cwd = fetching;
    so.log_to(cache / "download.log");
    run_checked({"apt-get", "download", name}, so, "fetching " + name + " (apt-get download)");
    const fs::path got = newest_matching(fetching, name + "_", ".deb");
    if (got.empty())
        throw EnvironmentError("apt-get download " + name + " left no " + name + "_*.deb in " +
                               fetching.string());
    fs::rename(got, debs / got.filename(), ec);
    fs::remove_all(fetching, ec);
    return debs / got.filename();
}

KernelImage from_package(const std::string& spec, const fs::path& deb, const fs::path& cache,
                         Progress& progress) {
    KernelImage k;
    k.spec = spec;
    k.kind = ImageKind::package;
    const fs::path root = unpacked_package(deb, cache, progress);
    k.image = newest_matching(root / "boot", "vmlinuz-", "");
    if (k.image.empty())
        throw UsageError("--kernel " + spec +
                         ": the package holds no boot/vmlinuz-*: is it a linux-image package?");
    const std::string release = k.image.filename().string().substr(std::string("vmlinuz-").size());
    read_config(root / "boot" / ("config-" + release), k);
    take_modules(modules_folder(root, release), k);
    return k;
}

KernelImage from_tree(const std::string& spec, const fs::path& tree) {
    KernelImage k;
    k.spec = spec;
    k.kind = ImageKind::tree;
    k.image = tree / "arch/x86/boot/bzImage";
    std::error_code ec;
    if (!fs::is_regular_file(k.image, ec))
        throw UsageError(
            "--kernel " + spec +
            ": no arch/x86/boot/bzImage in the tree (run `make bzImage modules` there first)");
    read_config(tree / ".config", k);
    k.modules_folder = tree;
    find_modules(tree, k);
    read_builtin_list(tree / "modules.builtin", k);
    return k;
}

KernelImage from_file(const std::string& spec, const fs::path& file, const fs::path& host_root) {
    KernelImage k;
    k.spec = spec;
    k.kind = ImageKind::file;
    k.image = file;
    const std::string version = bzimage_version(file);
    if (version.empty())
        throw UsageError("--kernel " + spec + ": not a bzImage (no kernel setup header)");
    const std::string release = version.substr(0, version.find(' '));
    // vmlinuz-R's own config-R beside it, else the host's; the host's
    // modules of that release, and none of another.
    read_config(file.parent_path() / ("config-" + release), k);
    if (k.config_text.empty()) read_config(host_root / "boot" / ("config-" + release), k);
    take_modules(modules_folder(host_root, release), k);
    return k;
}

}  // namespace

std::string bzimage_version(const fs::path& image) {
    const std::string head = file_bytes(image, 1 << 16);
    // The setup header: "HdrS" at 0x202, the version string's offset (from
    // 0x200) at 0x20E.
    if (head.size() < 0x210 || head.compare(0x202, 4, "HdrS") != 0) return "";
    const std::size_t at = 0x200 + (static_cast<unsigned char>(head[0x20E]) |
                                    static_cast<unsigned char>(head[0x20F]) << 8);
    if (at >= head.size()) return "";
    const std::size_t end = head.find('\0', at);
    return head.substr(at, (end == std::string::npos ? head.size() : end) - at);
}

std::optional<std::string> bzimage_truncated(const fs::path& image) {
    const std::string head = file_bytes(image, 1 << 16);
    if (head.size() < 0x1f8)
        return printable(image.string()) + " is too short for a bzImage header";
    const auto byte = [&](std::size_t at) -> std::uintmax_t {
        return static_cast<unsigned char>(head[at]);
    };
    // setup_sects (0 means 4) and syssize, in 16-byte paragraphs.
    const std::uintmax_t setup = byte(0x1f1) ? byte(0x1f1) : 4;
    const std::uintmax_t syssize =
        byte(0x1f4) | byte(0x1f5) << 8 | byte(0x1f6) << 16 | byte(0x1f7) << 24;
    const std::uintmax_t wanted = (setup + 1) * 512 + syssize * 16;
    std::error_code ec;
    const std::uintmax_t size = fs::file_size(image, ec);
    if (ec || size >= wanted) return std::nullopt;
    return printable(image.string()) + " is " + std::to_string(size) +
           " bytes where its header says " + std::to_string(wanted) +
           ": cut short (a partial copy?)";
}

KernelImage resolve_kernel_image(const std::string& spec, const fs::path& cache, Progress& progress,
                                 const fs::path& host_root) {
    std::error_code ec;
    const fs::path path(spec);
    KernelImage k;
    if (fs::is_directory(path, ec)) {
        k = from_tree(spec, fs::absolute(path));
    } else if (fs::is_regular_file(path, ec) && spec.ends_with(".deb")) {
        k = from_package(spec, fs::absolute(path), cache, progress);
    } else if (fs::is_regular_file(path, ec)) {
        k = from_file(spec, fs::absolute(path), host_root);
    } else if (is_package_name(spec)) {
        k = from_package(spec, fetched_package(spec, cache, progress), cache, progress);
    } else if (fs::exists(path, ec)) {
        throw UsageError("--kernel " + printable(spec) +
                         ": neither a file nor a folder (a device, a FIFO or a socket)");
    } else {
        throw UsageError("--kernel " + printable(spec) +
                         ": no such file or folder, and not a linux-image-* package name");
    }
    k.version_text = bzimage_version(k.image);
    if (k.version_text.empty())
        throw UsageError("--kernel " + printable(spec) + ": " + k.image.string() +
                         " is not a bzImage");
    k.release = k.version_text.substr(0, k.version_text.find(' '));
    return k;
}

nlohmann::json KernelImage::fingerprint() const {
    nlohmann::json j = {{"image", spec},
                        {"kind", std::string(name_in(kImageKindNames, kind))},
                        {"release", release},
                        {"version", valid_utf8(version_text)}};
    if (config_text.empty()) {
        j["config"] = {{"reason", "no .config found beside the image"}};
        return j;
    }
    const auto cfg = parse_kernel_config(config_text);
    auto value = [&](const char* key) -> nlohmann::json {
        auto it = cfg.find(key);
        return it == cfg.end() ? nlohmann::json(nullptr) : nlohmann::json(it->second);
    };
    j["config"] = {{"source", config_source}, {"sha256", sha256_hex(config_text)}};
    j["config_hz"] = value("CONFIG_HZ");
    j["preemption"] = {{"config", preemption_model(cfg)},
                       {"dynamic", value("CONFIG_PREEMPT_DYNAMIC") == "y"}};
    return j;
}

std::string module_bytes(const fs::path& module, const fs::path& scratch) {
    const ModuleEnding* ending = module_ending(module.filename().string());
    if (!ending || !ending->decompressor) return file_bytes(module, std::size_t(1) << 30);
    if (!find_on_path(ending->decompressor))
        throw EnvironmentError("the module " + module.string() +
                               " is compressed: decompressing it needs " + ending->decompressor +
                               ", which is not installed (Debian package " + ending->package + ")");
    const fs::path out = scratch / (".decompressing-" + std::to_string(::getpid()) + "-" +
                                    module.filename().string() + ".ko");
    const fs::path log = out.string() + ".log";
    SpawnOptions so;
    so.out = StdStream::file(out, false);
    so.err = StdStream::file(log, false);
    // Gone on every way out (a failure's message holds the log's tail).
    struct Remove {
        std::vector<fs::path> paths;
        ~Remove() {
            std::error_code ec;
            for (const auto& p : paths) fs::remove(p, ec);
        }
    } remove{{out, log}};
    run_checked({ending->decompressor, "-dc", "--", module.string()}, so,
                "decompressing the module " + module.string() + " (" + ending->decompressor + ")");
    return file_bytes(out, std::size_t(1) << 30);
}

std::vector<std::string> module_depends(const std::string& bytes) {
    static const std::string key = std::string(1, '\0') + "depends=";
    const std::size_t at = bytes.find(key);
    if (at == std::string::npos) return {};
    const std::size_t from = at + key.size();
    const std::string list = bytes.substr(from, bytes.find('\0', from) - from);
    std::vector<std::string> out;
    std::istringstream in(list);
    for (std::string name; std::getline(in, name, ',');)
        if (!name.empty()) out.push_back(module_name(name));
    return out;
}

std::vector<std::string> modules_to_load(
    const KernelImage& kernel, const std::vector<std::string>& wanted,
    const std::function<const std::string&(const std::string&)>& bytes_of,
    std::vector<std::string>* assumed_builtin) {
    std::vector<std::string> order;
    std::set<std::string> visiting, done;
    std::function<void(const std::string&)> visit = [&](const std::string& name) {
        if (done.count(name) || visiting.count(name)) return;
        auto it = kernel.modules.find(name);
        if (it == kernel.modules.end()) {
            done.insert(name);
            if (assumed_builtin && !kernel.builtin.count(name)) assumed_builtin->push_back(name);
            return;
        }
        visiting.insert(name);
        for (const auto& dep : module_depends(bytes_of(name))) visit(dep);
        visiting.erase(name);
        done.insert(name);
        order.push_back(name);
    };
    for (const auto& name : wanted) visit(name);
    return order;
}

}  // namespace contest
