#pragma once
// The latency probes' settings as options, written once for both commands
// that run probes: `contest latency` names them as they are (--method),
// `contest run` with "latency-" before each (--latency-method, given only
// with --latency); the same bounds, defaults and help.
#include <cstdint>
#include <string>
#include <vector>

#include "contest/latency/probe_options.h"
#include "contest/sys/option_table.h"

namespace contest {

// Where the parsed values go: the settings' numbers and command as they
// are, the method's and the policy's names to be parsed after.
struct ProbeSettingTargets {
    latency::ProbeSettings* settings = nullptr;
    std::string* method = nullptr;
    std::string* policy = nullptr;
    std::int64_t* dist_ns = nullptr;
};

// The rows of interval-us, method, policy, priority, dist, exec-cmd,
// exec-missed-ms, each named prefix + name, of the given scope and needing
// `needs`; a bad value's UsageError names the option as prefixed.
std::vector<TableOption> probe_setting_rows(const ProbeSettingTargets& to,
                                            const std::string& prefix, OptionScope scope,
                                            const Needs& needs = {});

}  // namespace contest
