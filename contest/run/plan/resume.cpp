#include "contest/run/plan/resume.h"

#include <algorithm>
#include <set>
#include <vector>

#include "contest/sys/errors.h"
#include "contest/sys/json_text.h"

namespace contest {
namespace {

// Fields of the config that differ between two runs of the same config
// (whether a tree was reused, where the processes were held, the command
// line, which holds --resume the second time), the guests' boots a file
// records as its rounds are taken, the host's fingerprint beside the
// guests' (the machine's, as a host run's `system`, which is no config),
// and whether a kernel's build was found in the cache this time (a resumed
// run finds the kernel its start built; the kernel is its key, commit and
// .config, which are compared): not compared.
bool volatile_field(const std::string& key) {
    return key == "containment" || key == "project_rewritten" || key == "prepare_reused" ||
           key == "command_line" || key == "boots" || key == "host_system" || key == "cache_hit" ||
           key == "ccache_hits" || key == "ccache_misses";
}

// Fields that follow from the others (the latency probes' calibration exists
// when a probe works): named only when nothing else differs, since the user
// changed the probes, not the calibration.
bool derived_field(const std::string& key) {
    return key == "calibration";
}

}  // namespace

ResultFile resumed_result(const std::filesystem::path& file, const std::string& label) {
    ResultFile r = read_result_file(file);
    if (r.complete)
        throw UsageError("--resume " + file.string() +
                         ": this result file is complete; there is nothing to resume");
    if (r.label != label)
        throw UsageError("--resume " + file.string() + ": label differs: recorded '" + r.label +
                         "', now '" + label + "' (-k)");
    return r;
}

std::string config_difference(const nlohmann::json& recorded, const nlohmann::json& now,
                              const std::string& prefix) {
    std::set<std::string> key_set;
    for (const auto& [k, v] : recorded.items()) key_set.insert(k);
    for (const auto& [k, v] : now.items()) key_set.insert(k);
    std::vector<std::string> keys(key_set.begin(), key_set.end());
    std::stable_partition(keys.begin(), keys.end(),
                          [](const std::string& k) { return !derived_field(k); });
    for (const auto& k : keys) {
        if (volatile_field(k)) continue;
        const nlohmann::json a = recorded.contains(k) ? recorded[k] : nlohmann::json();
        const nlohmann::json b = now.contains(k) ? now[k] : nlohmann::json();
        if (a == b) continue;
        if (a.is_object() && b.is_object()) return config_difference(a, b, prefix + k + ".");
        return prefix + k + ": recorded " + json_text(a, -1) + ", now " + json_text(b, -1);
    }
    return "";
}

ResultFile continued_result(const std::filesystem::path& file, ResultFile resumed,
                            const nlohmann::json& config_record) {
    const std::string diff = config_difference(resumed.config, config_record);
    if (!diff.empty())
        throw UsageError("--resume " + file.string() +
                         ": the config differs from the recorded one in " + diff);
    return resumed;
}

bool already_done(const ResultFile& result, std::string_view load, unsigned index) {
    for (const auto& r : result.runs)
        if (r.load == load && r.index == static_cast<int>(index)) return true;
    return false;
}

}  // namespace contest
