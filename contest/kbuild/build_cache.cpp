#include "contest/kbuild/build_cache.h"

#include <unistd.h>

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

// The pid in a name "<prefix><pid>" or "<prefix><pid>-...", 0 when none.
pid_t pid_in(const std::string& name, const std::string& prefix) {
    if (!name.starts_with(prefix)) return 0;
    char* end = nullptr;
    const long pid = std::strtol(name.c_str() + prefix.size(), &end, 10);
    return pid > 0 && (*end == '\0' || *end == '-') ? static_cast<pid_t>(pid) : 0;
}

}  // namespace

std::string cache_key(const KernelRef& ref, const std::string& config_sha256,
                      const std::string& compiler, BuildTarget target) {
    std::string text = "contest kernel build 1\ncommit " + ref.commit + "\n";
    for (const auto& p : ref.patches) text += "patch " + p.sha256 + "\n";
    text += "config " + config_sha256 + "\ncompiler " + compiler + "\ntarget " +
            kTargetWords[static_cast<int>(target)] + "\n";
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
    return record;
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
    std::error_code ec;
    fs::remove_all(final, ec);
    fs::rename(partial, final, ec);
    if (ec)
        throw EnvironmentError("cannot move " + partial.string() + " to " + final.string() + ": " +
                               ec.message());
}

}  // namespace contest::kbuild
