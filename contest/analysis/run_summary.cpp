#include "contest/analysis/run_summary.h"
#include "contest/sys/atomic_file.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "contest/analysis/ratio.h"
#include "contest/sys/errors.h"
#include "contest/sys/json_text.h"
#include "loads/registry.h"

namespace contest {

namespace {

struct LoadTally {
    int runs = 0, failed = 0;
    double wall_sum = 0;
    std::vector<RoundTime> rounds;  // finished and timed-out runs, as Ratio takes them
    int passed() const { return runs - failed; }
};

nlohmann::json null_or(const std::optional<double>& value) {
    return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
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
        const bool timed_out = run.timed_out();
        if (run.ok() || timed_out)
            t.rounds.push_back({"", "", run.round, run.ok() ? run.wall_s : 0, timed_out});
    }
    std::vector<std::string> order;
    for (const auto& [name, t] : tally) order.push_back(name);
    std::stable_sort(order.begin(), order.end(), [](const std::string& a, const std::string& b) {
        return load_order(a) < load_order(b);
    });

    const auto base = tally.find("no_load");
    const bool have_base =
        base != tally.end() && base->second.passed() > 0 && base->second.wall_sum > 0;
    nlohmann::json loads = nlohmann::json::array();
    for (const auto& name : order) {
        const LoadTally& t = tally[name];
        std::optional<double> mean, ratio;
        if (t.passed() > 0) mean = t.wall_sum / t.passed();
        // The table's Ratio (no_load over itself is exactly 1).
        if (mean && have_base) {
            if (name == "no_load")
                ratio = 1;
            else if (const auto e = load_ratio(t.rounds, base->second.rounds))
                ratio = e->ratio;
        }
        loads.push_back({
            {"load", name},
            {"runs", t.runs},
            {"failed_runs", t.failed},
            {"mean_time_s", null_or(mean)},
            {"ratio", null_or(ratio)},
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
