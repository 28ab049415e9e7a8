#include "contest/cli/boot_words.h"

#include <filesystem>
#include <set>

#include "contest/cli/db_password.h"
#include "contest/cli/load_cli.h"
#include "contest/history/pg_uri.h"
#include "contest/sys/errors.h"
#include "contest/sys/text.h"
#include "contest/sys/trusted_folder.h"
#include "loads/registry.h"
#include "workloads/kernel.h"

namespace contest {
namespace {

namespace fs = std::filesystem;

// The options whose value is a path, and which of them a later step reads
// or writes. --results and --boot-root are the start's own to check (the
// results folder's ancestry, the unit's folders), and --workdir too (a
// default one as well as a given one).
struct PathOption {
    bool path = false;
    bool read_later = false;
};

PathOption path_option(const std::string& name, const std::string& value) {
    static const std::set<std::string> read_later = {"kernel-source", "latency-raw",
                                                     "summary-json"};
    static const std::set<std::string> start_own = {"workdir", "results", "boot-root", "resume"};
    static const std::set<std::string> loads = load_path_options();
    if (name == "kernel-config") return {!is_named_kernel_config(value), true};
    if (name == "build-config") return {true, false};
    // The results database every step writes: a SQLite file is a path; a
    // PostgreSQL URI is not.
    if (name == "db")
        return history::is_postgresql_uri(value) ? PathOption{} : PathOption{true, true};
    if (read_later.contains(name) || loads.contains(name)) return {true, true};
    return {start_own.contains(name), false};
}

// value absolute, its links resolved as far as it exists.
std::string resolved_path(const std::string& value) {
    std::error_code ec;
    const fs::path absolute = fs::absolute(value).lexically_normal();
    const fs::path real = fs::weakly_canonical(absolute, ec);
    return (ec ? absolute : real).string();
}

void refuse_open_to_others(const std::string& name, const std::string& path) {
    std::error_code ec;
    const auto why =
        fs::is_directory(path, ec) ? folder_open_to_others(path) : file_open_to_others(path);
    if (why)
        throw UsageError("--" + name + " " + printable(path) + ": " + printable(*why) +
                         ": refusing it, a --boot run's later steps use it as root (give a path "
                         "that only root can change, and each folder above it: chown root, "
                         "chmod go-w)");
}

}  // namespace

std::vector<std::string> boot_run_words(const RunOptions& options) {
    std::vector<std::string> words;
    const po::variables_map& vm = options.values();
    for (const auto& o : options.table()) {
        const std::string name = o.description->long_name();
        const auto it = vm.find(name);
        if (it == vm.end() || it->second.defaulted() || it->second.empty()) continue;
        for (std::string& word : option_words(*o.description, it->second)) {
            const std::string head = "--" + name + "=";
            if (word.starts_with(head)) {
                const std::string value = word.substr(head.size());
                const PathOption kind = path_option(name, value);
                if (name == "db" &&
                    (db_password_moved_to_environment() ||
                     (history::is_postgresql_uri(value) && history::pg_uri_password(value))))
                    throw UsageError(
                        "--boot and a password in --db's URI: the steps after each reboot, "
                        "which systemd starts, would not have it; put it in root's ~/.pgpass "
                        "or a service file and give the URI without it (docs/history.md)");
                if (kind.path) {
                    word = head + resolved_path(value);
                    if (kind.read_later) refuse_open_to_others(name, word.substr(head.size()));
                }
            }
            words.push_back(std::move(word));
        }
    }
    return words;
}

}  // namespace contest
