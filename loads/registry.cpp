#include "loads/registry.h"

#include <iostream>
#include <set>

#include "contest/sys/errors.h"

namespace contest {

// Each load's file defines its entry; this is the one place that lists them.
extern const LoadInfo kNoLoad, kCacherun, kProcessLoad, kCpuLoad, kIoLoad, kIoOther, kReadLoad,
    kListLoad, kMemLoad, kCtarLoad, kXtarLoad, kDbenchLoad;

namespace {

// contest's order: the order of the blocks in every table. Adding a load:
// its file (with its entry) and one line here (and its name above).
const LoadInfo* const kLoads[] = {
    &kNoLoad,   &kCacherun, &kProcessLoad, &kCpuLoad,  &kIoLoad,   &kIoOther,
    &kReadLoad, &kListLoad, &kMemLoad,     &kCtarLoad, &kXtarLoad, &kDbenchLoad,
};

}  // namespace

std::span<const LoadInfo* const> load_registry() {
    return kLoads;
}

const LoadInfo* find_load(std::string_view name) {
    for (const LoadInfo* l : kLoads)
        if (l->name == name) return l;
    return nullptr;
}

std::size_t load_order(std::string_view name) {
    for (std::size_t i = 0; i < std::size(kLoads); ++i)
        if (kLoads[i]->name == name) return i;
    return std::size(kLoads);
}

void check_load_name(const std::string& name) {
    if (name != "default" && name != "all" && !find_load(name))
        throw UsageError("unknown load '" + name + "' (see contest loads)");
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
            for (const LoadInfo* l : kLoads) {
                if (name == "default" && !l->in_default()) continue;
                if (auto why = l->unavailable(options)) {
                    // `all` means all that can run here: skip, but say why.
                    if (name == "all")
                        std::cerr << "contest: skipping " << l->name << ": " << *why << "\n";
                    else
                        throw EnvironmentError(std::string(l->name) + ": " + *why);
                    continue;
                }
                add(l);
            }
            continue;
        }
        check_load_name(name);
        const LoadInfo* l = find_load(name);
        if (auto why = l->unavailable(options)) throw EnvironmentError(name + ": " + *why);
        add(l);
    }
    return out;
}

}  // namespace contest
