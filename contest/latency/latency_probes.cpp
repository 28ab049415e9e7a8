#include "contest/latency/latency_probes.h"

#include "contest/latency/probe_sleeper.h"
#include "contest/latency/probe_table.h"

namespace contest::latency {

LatencyPlan make_latency_plan(std::vector<ProbeOptions> probes,
                              std::optional<WorkCalibration> known) {
    LatencyPlan plan;
    plan.probes = std::move(probes);
    for (const auto& p : plan.probes)
        if (p.cpu_share > 0 && !plan.calibration)
            plan.calibration = known ? *known : calibrate_work();
    return plan;
}

nlohmann::json plan_json(const LatencyPlan& plan) {
    nlohmann::json probes = nlohmann::json::array();
    for (const auto& p : plan.probes) {
        nlohmann::json j = {{"probe", p.name()},           {"period_ns", p.period_ns},
                            {"cpu_share", p.cpu_share},    {"method", name_of(p.method)},
                            {"policy", name_of(p.policy)}, {"priority", p.priority}};
        if (p.probe->record) j.update(p.probe->record(p));
        probes.push_back(j);
    }
    nlohmann::json j = {{"probes", probes}, {"dist_ns", plan.dist_ns}};
    if (plan.calibration) j["calibration"] = calibration_json(*plan.calibration);
    return j;
}

LatencyProbes::LatencyProbes(const LatencyPlan& plan, const std::string& raw_tag) {
    for (auto p : plan.probes) {
        if (p.raw_path && !raw_tag.empty())
            *p.raw_path += "." + raw_tag + "." + std::string(p.name());
        probes_.push_back(std::make_unique<RunningProbe>(p, plan.calibration));
    }
}

void LatencyProbes::begin() {
    std::int64_t now = monotonic_ns();
    for (auto& p : probes_) p->open_window(now);
}

void LatencyProbes::end() {
    // One time for all, published to all before waiting for any: the
    // probes' windows are the same window.
    std::int64_t now = monotonic_ns();
    for (auto& p : probes_) p->end_window(now);
    for (auto& p : probes_) p->wait_closed();
}

std::vector<ProbeResult> LatencyProbes::results() const {
    std::vector<ProbeResult> r;
    for (const auto& p : probes_) r.push_back(p->result());
    return r;
}

// The latency probes are contest's own work, as the load is: not others'.
void LatencyProbes::record(RunRecord& rec) {
    const auto r = results();
    rec.latency = run_latency_json(r);
    cpu_pct_ = 0;
    recorded_failures_.clear();
    for (const auto& p : r) {
        cpu_pct_ += p.cpu_pct.value_or(0);
        if (p.failure)
            recorded_failures_.push_back(std::string(p.options.name()) + " probe: " + *p.failure);
    }
}

nlohmann::json run_latency_json(const std::vector<ProbeResult>& results) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& r : results) j[std::string(r.options.name())] = r.to_json();
    return j;
}

std::vector<pid_t> LatencyProbes::process_groups() const {
    std::vector<pid_t> out;
    for (const auto& p : probes_) out.push_back(p->pgid());
    return out;
}

std::optional<std::string> LatencyProbes::failure() const {
    for (const auto& p : probes_)
        if (auto why = p->failure()) return why;
    return std::nullopt;
}

}  // namespace contest::latency
