#include "contest/latency/probe_choice.h"

#include <sched.h>

#include <algorithm>

#include "contest/sys/errors.h"
#include "contest/sys/text.h"

namespace contest::latency {

namespace {

const ProbeInfo& probe_named(const std::string& s, const char* option) {
    if (const ProbeInfo* probe = find_probe(s)) return *probe;
    throw UsageError(std::string(option) + " '" + s + "': must be one of " + probe_names("|"));
}

}  // namespace

std::string_view ProbeOptions::name() const {
    return probe->name;
}
const ProbeInfo& parse_probe(const std::string& s) {
    return probe_named(s, "--probe");
}
ProbeOptions make_probe_options(const ProbeInfo& probe, const ProbeSettings& settings) {
    const SchedPolicy policy = settings.policy;
    const int priority = settings.priority;
    ProbeOptions o;
    o.probe = &probe;
    o.method = settings.method;
    o.policy = policy;
    probe.configure(o, settings);
    if (policy == SchedPolicy::other) {
        o.priority = 0;
    } else {
        int lo = ::sched_get_priority_min(SCHED_FIFO), hi = ::sched_get_priority_max(SCHED_FIFO);
        if (priority < lo || priority > hi)
            throw UsageError("--priority " + std::to_string(priority) + ": must be " +
                             std::to_string(lo) + ".." + std::to_string(hi) + " for " +
                             std::string(name_of(policy)));
        o.priority = priority;
    }
    return o;
}

std::vector<ProbeOptions> make_probe_list(const std::string& probes,
                                          const ProbeSettings& settings) {
    std::vector<ProbeOptions> list;
    for (const std::string& name : split_commas(probes)) {
        if (name.empty()) throw UsageError("--latency '" + probes + "': an empty probe name");
        const ProbeInfo& probe = probe_named(name, "--latency");
        for (const auto& o : list)
            if (o.probe == &probe)
                throw UsageError("--latency '" + probes + "': " + name + " twice");
        list.push_back(make_probe_options(probe, settings));
    }
    return list;
}

std::optional<UnchosenProbeOption> option_of_unchosen_probe(
    const std::vector<const ProbeInfo*>& chosen,
    const std::function<bool(const ProbeOwnOption&)>& given) {
    for (const ProbeInfo* p : probe_table()) {
        if (std::find(chosen.begin(), chosen.end(), p) != chosen.end()) continue;
        for (const ProbeOwnOption& o : p->options)
            if (given(o)) return UnchosenProbeOption{p, &o};
    }
    return std::nullopt;
}

}  // namespace contest::latency
