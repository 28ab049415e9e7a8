#include "contest/cli/probe_setting_options.h"

#include <functional>

#include "contest/cli/cli_common.h"
#include "contest/latency/probe_table.h"
#include "contest/sys/errors.h"

namespace contest {

namespace {

// check, its UsageError's option ("--method ...") named as prefixed.
void as_prefixed(const std::string& prefix, const std::function<void()>& check) {
    try {
        check();
    } catch (const UsageError& e) {
        const std::string why = e.what();
        if (prefix.empty() || !why.starts_with("--") || why.starts_with("--" + prefix)) throw;
        throw UsageError("--" + prefix + why.substr(2));
    }
}

}  // namespace

std::vector<ProbeSettingOption> probe_setting_options(const ProbeSettingTargets& to,
                                                      const std::string& prefix) {
    using namespace latency;
    // clang-format off
    return {
        {prefix + "interval-us", bounded(&to.settings->interval_us, kMinIntervalUs, kMaxIntervalUs)->default_value(1000)->value_name("N"), own_option_help("interval-us")},
        {prefix + "method", checked(to.method, [prefix](const std::string& m) { as_prefixed(prefix, [&] { parse_sleep_method(m); }); })->default_value("clock_ns")->value_name("M"), "clock_ns | posix_ns | itimer | poll"},
        {prefix + "policy", checked(to.policy, [prefix](const std::string& p) { as_prefixed(prefix, [&] { parse_sched_policy(p); }); })->default_value("other")->value_name("P"), "other | fifo | rr (no privilege: other, recorded)"},
        {prefix + "priority", bounded(&to.settings->priority, kMinPriority, kMaxPriority)->default_value(50)->value_name("N"), "fifo, rr: the real-time priority"},
        {prefix + "dist", bounded(to.dist_ns, kMinDistNs, kMaxDistNs)->default_value(1000)->value_name("NS"), "bucket width of the latency distribution shown (multiple of 1000)"},
        {prefix + "exec-cmd", po::value(&to.settings->exec_command)->default_value(kDefaultExecCommand)->value_name("CMD"), own_option_help("exec-cmd")},
        {prefix + "exec-missed-ms", bounded(&to.settings->exec_missed_ms, kMinExecMissedMs, kMaxExecMissedMs)->default_value(kDefaultExecMissedMs)->value_name("MS"), own_option_help("exec-missed-ms")},
    };
    // clang-format on
}

}  // namespace contest
