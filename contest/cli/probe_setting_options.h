#pragma once
// The latency probes' settings as options, written once for both commands
// that run probes: `contest latency` names them as they are (--method),
// `contest run` with "latency-" before each (--latency-method, given only
// with --latency); the same bounds, defaults and help.
#include <cstdint>
#include <string>
#include <vector>

#include <boost/make_shared.hpp>
#include <boost/program_options.hpp>

#include "contest/latency/probe_options.h"

namespace contest {

// Where the parsed values go: the settings' numbers and command as they
// are, the method's and the policy's names to be parsed after.
struct ProbeSettingTargets {
    latency::ProbeSettings* settings = nullptr;
    std::string* method = nullptr;
    std::string* policy = nullptr;
    std::int64_t* dist_ns = nullptr;
};

struct ProbeSettingOption {
    std::string name;  // with the prefix
    const boost::program_options::value_semantic* value;
    std::string help;
};

// interval-us, method, policy, priority, dist, exec-cmd, exec-missed-ms,
// each named prefix + name; a bad value's UsageError names the option as
// prefixed.
std::vector<ProbeSettingOption> probe_setting_options(const ProbeSettingTargets& to,
                                                      const std::string& prefix);

}  // namespace contest
