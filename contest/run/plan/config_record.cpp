#include "contest/run/plan/config_record.h"

#include "contest/observe/sysinfo.h"
#include "contest/sys/json_text.h"
#include "contest/sys/version.h"

namespace contest {

nlohmann::json config_record(const RunConfig& c, const RunPlan& plan,
                             const std::optional<latency::LatencyPlan>& latency_plan) {
    nlohmann::json names = nlohmann::json::array();
    for (const auto* l : plan.loads) names.push_back(l->name);
    nlohmann::json j = {
        {"runs", c.auto_runs ? nlohmann::json("auto") : nlohmann::json(c.runs)},
        {"loads", names},
        {"workload", plan.workload->describe()},
        {"jobs", effective_jobs(c.workload.jobs)},
        {"workdir", c.workload.workdir.string()},
        {"warmup_s", c.warmup_s},
        {"drop_caches", c.drop_caches},
        {"settle_s", c.settle_s},
        {"order", run_order_name(c.order)},
        {"order_seed", plan.seed},
        // The loads' own options as given; each load records the values it
        // used (defaults included) with its facts.
        {"load_options", c.load.values},
    };
    if (c.auto_runs) {
        j["target_ci_pct"] = c.auto_runs->target_ci_pct;
        j["target_mde_pct"] = c.auto_runs->target_mde_pct;
        j["max_runs"] = c.auto_runs->max_runs;
        j["adjust"] = c.auto_runs->adjust_outside ? "outside" : "none";
        j["budget_s"] = c.auto_runs->budget_s ? nlohmann::json(*c.auto_runs->budget_s) : nullptr;
    }
    if (c.timeout_s) j["timeout_s"] = *c.timeout_s;
    if (!c.containment.empty()) j["containment"] = c.containment;
    if (!c.command_line.empty()) j["command_line"] = c.command_line;
    j = valid_utf8_json(j);
    if (latency_plan) j["latency"] = latency::plan_json(*latency_plan);
    return j;
}

nlohmann::json vary_record(const std::string& group, const std::vector<Knob>& knobs,
                           const std::vector<std::size_t>& combination) {
    nlohmann::json j = {
        {"group", group}, {"knobs", nlohmann::json::array()}, {"values", nlohmann::json::object()}};
    for (std::size_t k = 0; k < knobs.size(); ++k) {
        j["knobs"].push_back({{"name", knobs[k].name},
                              {"path", knobs[k].path.string()},
                              {"values", knobs[k].values},
                              {"original", knobs[k].original}});
        j["values"][knobs[k].name] = knobs[k].values[combination[k]];
    }
    return j;
}

nlohmann::json kernels_vary_record(const std::string& group, const std::vector<LabelRun>& labels,
                                   std::size_t kernel) {
    Knob kernels{"kernel", "", {}, ""};
    for (const auto& label : labels) kernels.values.push_back(label.label);
    return vary_record(group, {kernels}, {kernel});
}

std::vector<ResultFile> new_results(const RunConfig& config, const RunPlan& plan,
                                    const nlohmann::json& config_record,
                                    const std::string& started_at, const nlohmann::json& system) {
    const std::string group = started_at + "-" + std::to_string(plan.seed);
    std::vector<ResultFile> results(plan.labels.size());
    for (std::size_t v = 0; v < results.size(); ++v) {
        ResultFile& result = results[v];
        result.label = plan.labels[v].label;
        result.contest_version = kVersion;
        result.started_at = started_at;
        result.system = system;
        result.config = config_record;
        if (!plan.knobs.empty())
            result.config["vary"] = vary_record(group, plan.knobs, plan.labels[v].combination);
        if (config.place != RunPlace::host)
            result.config["vary"] = kernels_vary_record(group, plan.labels, v);
        result.loads = nlohmann::json::object();
    }
    return results;
}

}  // namespace contest
