#include "contest/cli/probe_setting_options.h"

#include "contest/latency/probe_table.h"

namespace contest {

std::vector<TableOption> probe_setting_rows(const ProbeSettingTargets& to,
                                            const std::string& prefix, OptionScope scope,
                                            const Needs& needs) {
    using namespace latency;
    const auto row = [&](const std::string& name, const po::value_semantic* value,
                         const std::string& help) {
        return TableOption(name.c_str(), scope, needs, value, help);
    };
    // clang-format off
    return {
        row(prefix + "interval-us", bounded(&to.settings->interval_us, kMinIntervalUs, kMaxIntervalUs)->default_value(1000)->value_name("N"), own_option_help("interval-us")),
        row(prefix + "method", checked(to.method, [prefix](const std::string& m) { as_prefixed_option(prefix, [&] { parse_sleep_method(m); }); })->default_value("clock_ns")->value_name("M"), "clock_ns | posix_ns | itimer | poll"),
        row(prefix + "policy", checked(to.policy, [prefix](const std::string& p) { as_prefixed_option(prefix, [&] { parse_sched_policy(p); }); })->default_value("other")->value_name("P"), "other | fifo | rr (no privilege: other, recorded)"),
        row(prefix + "priority", bounded(&to.settings->priority, kMinPriority, kMaxPriority)->default_value(50)->value_name("N"), "fifo, rr: the real-time priority"),
        row(prefix + "dist", bounded(to.dist_ns, kMinDistNs, kMaxDistNs)->default_value(1000)->value_name("NS"), "bucket width of the latency distribution shown (multiple of 1000)"),
        row(prefix + "exec-cmd", po::value(&to.settings->exec_command)->default_value(kDefaultExecCommand)->value_name("CMD"), own_option_help("exec-cmd")),
        row(prefix + "exec-missed-ms", bounded(&to.settings->exec_missed_ms, kMinExecMissedMs, kMaxExecMissedMs)->default_value(kDefaultExecMissedMs)->value_name("MS"), own_option_help("exec-missed-ms")),
    };
    // clang-format on
}

}  // namespace contest
