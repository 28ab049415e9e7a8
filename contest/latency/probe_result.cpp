#include "contest/latency/probe_result.h"

#include "contest/latency/probe_table.h"

namespace contest::latency {

std::optional<double> ProbeResult::share_wanted_pct() const {
    if (options.cpu_share <= 0) return std::nullopt;
    return 100.0 * options.cpu_share;
}

std::optional<double> ProbeResult::share_got_pct() const {
    auto wanted = share_wanted_pct();
    if (!wanted || stats.work_wanted() == 0) return std::nullopt;
    return *wanted * static_cast<double>(stats.work_done()) /
           static_cast<double>(stats.work_wanted());
}

std::optional<double> ProbeResult::missed_pct() const {
    if (stats.periods() == 0) return std::nullopt;
    return 100.0 * static_cast<double>(stats.missed()) / static_cast<double>(stats.periods());
}

nlohmann::json ProbeResult::to_json() const {
    auto opt = [](const auto& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
    nlohmann::json j = {
        {"probe", options.name()},
        {"period_ns", options.period_ns},
        {"method", name_of(options.method)},
        {"sched", setup_json(options, setup)},
        {"window_s", window_s},
        {"complete", complete},
        {"missed_pct", opt(missed_pct())},
        {"probe_cpu",
         {{"user_s", opt(cpu_user_s)}, {"sys_s", opt(cpu_sys_s)}, {"cpu_pct", opt(cpu_pct)}}},
        {"latency", stats.to_json()}};
    if (calibration) {
        j["cpu_share_pct"] = {{"wanted", opt(share_wanted_pct())}, {"got", opt(share_got_pct())}};
        j["work"] = {{"calibration", calibration_json(*calibration)},
                     {"chunks_per_period", chunks_per_period},
                     {"chunks_done", stats.work_done()},
                     {"chunks_wanted", stats.work_wanted()}};
        // Frame times as the field states them: the rate the slowest 1% of
        // frames ran at beside the nominal one.
        const double nominal_fps = 1e9 / static_cast<double>(options.period_ns);
        const auto mean = stats.frame_mean_ns();
        j["frames"] = {{"count", stats.frames()},
                       {"nominal_fps", nominal_fps},
                       {"mean_fps", mean ? nlohmann::json(1e9 / *mean) : nlohmann::json(nullptr)},
                       {"one_pct_low_fps", opt(stats.one_pct_low_fps())},
                       {"mean_interval_ns", opt(mean)},
                       {"p99_interval_ns", opt(stats.frame_percentile_ns(99))}};
    }
    if (options.probe->record) j.update(options.probe->record(options));
    if (failure) j["failure"] = *failure;
    return j;
}

}  // namespace contest::latency
