#include "loads/registry.h"

#include <iostream>
#include <set>

#include "contest/sys/errors.h"

namespace contest {

// Each load's file defines its factory (and, when it can be unavailable, the
// check saying why). Declared here, listed once in the table below.
std::unique_ptr<Load> make_no_load(const LoadEnv&);
std::unique_ptr<Load> make_cpu_load(const LoadEnv&);
std::unique_ptr<Load> make_process_load(const LoadEnv&);
// -- more loads: declarations --
std::unique_ptr<Load> make_io_load(const LoadEnv&);
std::unique_ptr<Load> make_io_other(const LoadEnv&);
std::optional<std::string> io_other_unavailable(const LoadOptions&);
std::unique_ptr<Load> make_read_load(const LoadEnv&);
std::unique_ptr<Load> make_list_load(const LoadEnv&);
std::unique_ptr<Load> make_mem_load(const LoadEnv&);
std::unique_ptr<Load> make_ctar_load(const LoadEnv&);
std::unique_ptr<Load> make_xtar_load(const LoadEnv&);
std::optional<std::string> tar_unavailable(const LoadOptions&);
std::unique_ptr<Load> make_dbench_load(const LoadEnv&);
std::optional<std::string> dbench_load_unavailable(const LoadOptions&);

namespace {

std::optional<std::string> always_available(const LoadOptions&) {
    return std::nullopt;
}

// contest's order: the order of the blocks in every table.
const LoadInfo kLoads[] = {
    {"no_load", "nothing; the reference for Ratio", "", 1, "", 1, false, true, true, true,
     always_available, make_no_load},
    {"cacherun", "no load, straight after the previous run; caches not dropped", "", 1, "", 1,
     false, false, true, true, always_available, make_no_load},
    {"process_load", "4 x CPUs processes in a ring of pipes passing a few 8 KiB records round",
     "ring hops", 1, "", 1, true, true, true, true, always_available, make_process_load},
    {"cpu_load", "one busy process per online CPU", "M loops", 1e6, "", 1, true, true, true, true,
     always_available, make_cpu_load},
    // -- more loads: rows --
    {"io_load", "writes new files of zeros up to the size of RAM, over and over (unlink, recreate)",
     "MiB written", 1 << 20, "files", 1, true, true, true, true, always_available, make_io_load},
    {"io_other", "io_load in --io-other-dir (another disk)", "MiB written", 1 << 20, "files", 1,
     true, true, false, true, io_other_unavailable, make_io_other},
    {"read_load", "reads a RAM-sized file, made before the run, over and over", "MiB read", 1 << 20,
     "passes", 1, true, true, true, true, always_available, make_read_load},
    {"list_load", "lists the whole file system (ls -lRa / without /proc /sys /dev), over and over",
     "entries", 1, "passes", 1, true, true, true, true, always_available, make_list_load},
    {"mem_load",
     "references 110% of RAM a word per page (capped below the OOM killer), over and over",
     "GiB touched", 1 << 30, "passes", 1, true, true, true, true, always_available, make_mem_load},
    {"ctar_load", "creates a tar of the workload's source tree, over and over", "MiB archived",
     1 << 20, "archives", 1, true, true, false, true, tar_unavailable, make_ctar_load},
    {"xtar_load", "extracts a tar of the workload's source tree, over and over", "MiB extracted",
     1 << 20, "archives", 1, true, true, false, true, tar_unavailable, make_xtar_load},
    {"dbench_load", "dbench with 16 x CPUs clients, over and over", "k dbench ops", 1000, "runs", 1,
     true, true, false, true, dbench_load_unavailable, make_dbench_load},
};

}  // namespace

void LoadCounters::fail(const std::string& why) {
    std::size_t n = std::min(why.size(), sizeof error - 1);
    why.copy(error, n);
    error[n] = '\0';
}

std::span<const LoadInfo> load_registry() {
    return kLoads;
}

const LoadInfo* find_load(std::string_view name) {
    for (const auto& l : kLoads)
        if (l.name == name) return &l;
    return nullptr;
}

std::size_t load_order(std::string_view name) {
    for (std::size_t i = 0; i < std::size(kLoads); ++i)
        if (kLoads[i].name == name) return i;
    return std::size(kLoads);
}

std::vector<const LoadInfo*> resolve_loads(const std::vector<std::string>& names,
                                           const LoadOptions& options) {
    std::vector<const LoadInfo*> out;
    std::set<std::string_view> seen;
    auto add = [&](const LoadInfo* l) {
        if (seen.insert(l->name).second) out.push_back(l);
    };
    for (const auto& name : names) {
        if (name == "default" || name == "all") {
            for (const auto& l : kLoads) {
                if (name == "default" ? !l.in_default : !l.in_all) continue;
                if (auto why = l.unavailable(options)) {
                    // `all` means all that can run here: skip, but say why.
                    if (name == "all")
                        std::cerr << "contest: skipping " << l.name << ": " << *why << "\n";
                    else
                        throw EnvironmentError(std::string(l.name) + ": " + *why);
                    continue;
                }
                add(&l);
            }
            continue;
        }
        const LoadInfo* l = find_load(name);
        if (!l) throw UsageError("unknown load '" + name + "' (see contest loads)");
        if (auto why = l->unavailable(options)) throw EnvironmentError(name + ": " + *why);
        add(l);
    }
    return out;
}

}  // namespace contest
