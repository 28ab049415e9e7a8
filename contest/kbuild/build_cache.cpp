#include "contest/kbuild/build_cache.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "contest/sys/atomic_file.h"
#include "contest/sys/errors.h"
#include "contest/sys/process.h"
#include "contest/sys/sha256.h"
#include "contest/sys/text_file.h"

namespace contest::kbuild {
namespace {

namespace fs = std::filesystem;

const char* const kTargetWords[] = {"guest", "boot"};

// The file whose time is an entry's last use.
constexpr const char* kUsedName = "used";

// The pid in a name "<prefix><pid>" or "<prefix><pid>-...", 0 when none.
pid_t pid_in(const std::string& name, const std::string& prefix) {
    if (!name.starts_with(prefix)) return 0;
    char* end = nullptr;
    const long pid = std::strtol(name.c_str() + prefix.size(), &end, 10);
    return pid > 0 && (*end == '\0' || *end == '-') ? static_cast<pid_t>(pid) : 0;
}

}  // namespace

std::string cache_key(const KernelRef& ref, const std::string& config_sha256,
                      const std::string& compiler, const std::string& toolchain,
                      BuildTarget target) {
    std::string text = "contest kernel build 2\ncommit " + ref.commit + "\n";
    for (const auto& p : ref.patches) text += "patch " + p.sha256 + "\n";
    text += "config " + config_sha256 + "\ncompiler " + compiler + "\ntoolchain " + toolchain +
            "\ntarget " + kTargetWords[static_cast<int>(target)] + "\n";
    return sha256_hex(text);
}

BuildCache::BuildCache(fs::path folder) : folder_(std::move(folder)) {
    std::error_code ec;
    fs::create_directories(folder_, ec);
    if (ec) throw EnvironmentError("cannot make " + folder_.string() + ": " + ec.message());
    for (const auto& e : fs::directory_iterator(folder_, ec)) {
        const std::string name = e.path().filename().string();
        pid_t pid = pid_in(name, ".partial-");
        if (!pid) pid = pid_in(name, "uncached-");
        if (pid && pid != ::getpid() && contest_gone(pid)) fs::remove_all(e.path(), ec);
    }
}

std::optional<KernelBuild> BuildCache::find(const std::string& key) const {
    const fs::path entry = folder_ / key;
    std::error_code ec;
    if (!fs::is_regular_file(entry / "tree/arch/x86/boot/bzImage", ec)) return std::nullopt;
    const auto text = read_text_file((entry / "record.json").string());
    if (!text) return std::nullopt;
    const auto j = nlohmann::json::parse(*text, nullptr, false);
    if (j.is_discarded()) return std::nullopt;
    auto record = KernelBuild::from_json(j);
    if (!record || record->key != key) return std::nullopt;
    mark_used(key);
    return record;
}

void BuildCache::mark_used(const std::string& key) const {
    const fs::path used = folder_ / key / kUsedName;
    std::ofstream(used, std::ios::trunc) << "";
    std::error_code ec;
    fs::last_write_time(used, fs::file_time_type::clock::now(), ec);
}

std::uintmax_t BuildCache::entry_bytes(const fs::path& entry) {
    std::uintmax_t bytes = 0;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(entry, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
        if (it->is_regular_file(ec) && !it->is_symlink(ec)) bytes += it->file_size(ec);
    return bytes;
}

std::vector<std::string> BuildCache::evict(std::uintmax_t max_bytes,
                                           const std::set<std::string>& keep) const {
    struct Entry {
        std::string key;
        fs::file_time_type used;
        std::uintmax_t bytes;
    };
    std::vector<Entry> entries;
    std::uintmax_t total = 0;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(folder_, ec)) {
        const std::string name = e.path().filename().string();
        // Only whole entries: a partial or uncached folder is its contest's.
        if (name.starts_with(".") || name.starts_with("uncached-") || e.is_symlink(ec) ||
            !e.is_directory(ec))
            continue;
        std::error_code time_ec;
        auto used = fs::last_write_time(e.path() / kUsedName, time_ec);
        if (time_ec) used = fs::last_write_time(e.path(), time_ec);
        if (time_ec) used = fs::file_time_type::min();
        entries.push_back({name, used, entry_bytes(e.path())});
        total += entries.back().bytes;
    }
    std::sort(entries.begin(), entries.end(),
              [](const Entry& a, const Entry& b) { return a.used < b.used; });
    std::vector<std::string> removed;
    for (const auto& entry : entries) {
        if (total <= max_bytes) break;
        if (keep.contains(entry.key)) continue;
        fs::remove_all(folder_ / entry.key, ec);
        if (ec) continue;
        total -= entry.bytes;
        removed.push_back(entry.key);
    }
    return removed;
}

fs::path BuildCache::partial() const {
    const fs::path p = folder_ / (".partial-" + std::to_string(::getpid()));
    std::error_code ec;
    fs::remove_all(p, ec);
    fs::create_directories(p / "tree", ec);
    if (ec) throw EnvironmentError("cannot make " + p.string() + ": " + ec.message());
    return p;
}

fs::path BuildCache::final_folder(const std::string& key, bool clean) const {
    if (clean) return folder_ / key;
    std::error_code ec;
    for (int n = 1;; ++n) {
        const fs::path p =
            folder_ / ("uncached-" + std::to_string(::getpid()) + "-" + std::to_string(n));
        if (!fs::exists(p, ec)) return p;
    }
}

void BuildCache::commit(const fs::path& partial, const fs::path& final,
                        const KernelBuild& record) const {
    write_file_atomically(partial / "record.json", record.to_json().dump(2) + "\n");
    std::ofstream(partial / kUsedName) << "";
    std::error_code ec;
    fs::remove_all(final, ec);
    fs::rename(partial, final, ec);
    if (ec)
        throw EnvironmentError("cannot move " + partial.string() + " to " + final.string() + ": " +
                               ec.message());
}

}  // namespace contest::kbuild
