#include "contest/run/summary.h"
#include "contest/sys/atomic_file.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "contest/sys/errors.h"
#include "contest/sys/json_text.h"
#include "loads/registry.h"

namespace contest {

namespace {

struct LoadTally {
    int runs = 0, failed = 0;
    double wall_sum = 0;
    int passed() const { return runs - failed; }
    double mean() const { return wall_sum / passed(); }
};

nlohmann::json null_or(bool present, double value) {
    return present ? nlohmann::json(value) : nlohmann::json(nullptr);
}

}  // namespace

nlohmann::json run_summary(const ResultFile& result, const std::filesystem::path& result_file) {
    std::map<std::string, LoadTally> tally;
    for (const auto& run : result.runs) {
        auto& t = tally[run.load];
        ++t.runs;
        if (run.ok())
            t.wall_sum += run.wall_s;
        else
            ++t.failed;
    }
    std::vector<std::string> order;
    for (const auto& [name, t] : tally) order.push_back(name);
    std::stable_sort(order.begin(), order.end(), [](const std::string& a, const std::string& b) {
        return load_order(a) < load_order(b);
    });

    auto base = tally.find("no_load");
    const bool have_base =
        base != tally.end() && base->second.passed() > 0 && base->second.mean() > 0;
    nlohmann::json loads = nlohmann::json::array();
    for (const auto& name : order) {
        const LoadTally& t = tally[name];
        const bool have_mean = t.passed() > 0;
        loads.push_back({
            {"load", name},
            {"runs", t.runs},
            {"failed_runs", t.failed},
            {"mean_time_s", null_or(have_mean, have_mean ? t.mean() : 0)},
            {"ratio", null_or(have_mean && have_base,
                              have_mean && have_base ? t.mean() / base->second.mean() : 0)},
            {"exit_code", t.failed > 0 ? kExitSomeRunsFailed : kExitOk},
        });
    }
    const bool any_failed = std::any_of(tally.begin(), tally.end(),
                                        [](const auto& entry) { return entry.second.failed > 0; });
    const auto& hostname = result.system.is_object() ? result.system.value("hostname", "") : "";
    return {
        {"schema_version", kSummarySchemaVersion},
        {"label", result.label},
        {"host", hostname},
        {"complete", result.complete},
        {"result_file", std::filesystem::absolute(result_file).string()},
        {"exit_code", any_failed ? kExitSomeRunsFailed : kExitOk},
        {"loads", loads},
    };
}

void write_run_summary(const std::filesystem::path& path, const ResultFile& result,
                       const std::filesystem::path& result_file) {
    write_file_atomically(path, json_text(run_summary(result, result_file)) + "\n");
}

}  // namespace contest
