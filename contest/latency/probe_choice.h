#pragma once
// A probe chosen by name from the probe table and its options made from the
// command line's settings: what `contest latency --probe` and `contest run
// --latency` ask for. Above both the options (probe_options.h) and the
// table (probe_table.h), which includes the options for its entries' type.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "contest/latency/probe_options.h"
#include "contest/latency/probe_table.h"

namespace contest::latency {

// The probe table's entry named s (--probe's value).
const ProbeInfo& parse_probe(const std::string& s);

// The probe's options: the sleep and the policy of the settings, the rest
// as the probe's entry configures them (cyclic wakes every interval_us;
// audio is interbench's, 50 ms and 5% of a CPU, video too, 16.7 ms and 40%;
// exec starts its command every 200 ms). Throws UsageError for a priority
// out of the policy's range and for what the entry refuses (a bad
// interval, an exec command that is empty or not found on PATH).
ProbeOptions make_probe_options(const ProbeInfo& probe, const ProbeSettings& settings);

// `contest run --latency PROBES`'s list ("cyclic", "audio,video"): one
// options set per probe, each named once; the other settings as above.
// Throws UsageError naming --latency for an empty or repeated name.
std::vector<ProbeOptions> make_probe_list(const std::string& probes, const ProbeSettings& settings);

// An option of a probe's own (ProbeInfo::options) given for a probe that
// was not chosen: the first, in the table's order, that `given` says was
// given; nothing when none was. `contest latency` (--exec-cmd) and
// `contest run` (--latency-exec-cmd) each refuse it in a line of their own.
struct UnchosenProbeOption {
    const ProbeInfo* probe = nullptr;
    const ProbeOwnOption* option = nullptr;
};
std::optional<UnchosenProbeOption> option_of_unchosen_probe(
    const std::vector<const ProbeInfo*>& chosen,
    const std::function<bool(const ProbeOwnOption&)>& given);

}  // namespace contest::latency
