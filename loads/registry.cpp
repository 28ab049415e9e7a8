#include "loads/registry.h"

#include <algorithm>
#include <set>

#include "contest/sys/errors.h"
#include "contest/sys/progress.h"
#include "loads/command_load.h"

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

// contest's entries, then the user's (--load-cmd), which live as long as
// the process.
std::vector<const LoadInfo*>& entries() {
    static std::vector<const LoadInfo*> all(std::begin(kLoads), std::end(kLoads));
    return all;
}

bool is_plain_name(const std::string& name) {
    if (name.empty()) return false;
    for (char c : name)
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
    return true;
}

}  // namespace

std::set<std::string> load_path_options() {
    std::set<std::string> names;
    for (const LoadInfo* l : load_registry())
        for (const LoadOption* o : l->options)
            if (o->kind == LoadOptionKind::text) names.emplace(o->name);
    return names;
}

std::span<const LoadInfo* const> load_registry() {
    return entries();
}

const LoadInfo* find_load(std::string_view name) {
    for (const LoadInfo* l : entries())
        if (l->name == name) return l;
    return nullptr;
}

std::size_t load_order(std::string_view name) {
    const auto& all = entries();
    for (std::size_t i = 0; i < all.size(); ++i)
        if (all[i]->name == name) return i;
    return all.size();
}

const LoadInfo& define_command_load(const std::string& name, const std::string& command) {
    const std::string what = "--load-cmd '" + name + "=" + command + "'";
    if (!is_plain_name(name))
        throw UsageError(what + ": the name must be lowercase letters, digits and '_'");
    if (name == "default" || name == "all" ||
        std::find(std::begin(kLoads), std::end(kLoads), find_load(name)) != std::end(kLoads))
        throw UsageError(what + ": " + name + " is contest's own; give your load another name");
    if (const LoadInfo* known = find_load(name)) {
        if (command_of(*known) == command) return *known;
        throw UsageError(what + ": " + name + " is defined twice, as two commands");
    }
    const LoadInfo& info = make_command_load_entry(name, command);
    entries().push_back(&info);
    return info;
}

void set_command_load_units(const std::string& name, const std::string& units_command) {
    const LoadInfo* info = find_load(name);
    if (!info || !command_of(*info))
        throw UsageError("--load-cmd-units '" + name + "=" + units_command + "': " + name +
                         " is no --load-cmd (define it first)");
    set_units_command(*info, units_command);
}

void check_load_name(const std::string& name) {
    if (name != "default" && name != "all" && !find_load(name))
        throw UsageError(
            "unknown load '" + name +
            "' (see contest loads; your own is defined by --load-cmd before its name)");
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
            for (const LoadInfo* l : entries()) {
                if (!l->in_all() || (name == "default" && !l->in_default())) continue;
                if (auto why = l->unavailable(options)) {
                    // `all` means all that can run here: skip, but say why.
                    if (name == "all")
                        say("skipping " + std::string(l->name) + ": " + *why);
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
