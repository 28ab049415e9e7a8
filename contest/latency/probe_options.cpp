#include "contest/latency/probe_options.h"

#include <sched.h>

#include <array>
#include <utility>

#include "contest/sys/errors.h"

namespace contest::latency {

namespace {

constexpr std::array<std::pair<ProbeKind, std::string_view>, 3> kKinds{
    {{ProbeKind::cyclic, "cyclic"}, {ProbeKind::audio, "audio"}, {ProbeKind::video, "video"}}};
constexpr std::array<std::pair<SleepMethod, std::string_view>, 4> kMethods{
    {{SleepMethod::clock_ns, "clock_ns"},
     {SleepMethod::posix_ns, "posix_ns"},
     {SleepMethod::itimer, "itimer"},
     {SleepMethod::poll, "poll"}}};
constexpr std::array<std::pair<SchedPolicy, std::string_view>, 3> kPolicies{
    {{SchedPolicy::other, "other"}, {SchedPolicy::fifo, "fifo"}, {SchedPolicy::rr, "rr"}}};

template <typename E, std::size_t N>
std::string_view name_in(const std::array<std::pair<E, std::string_view>, N>& table, E value) {
    for (const auto& [v, name] : table)
        if (v == value) return name;
    return "?";
}

template <typename E, std::size_t N>
E parse_in(const std::array<std::pair<E, std::string_view>, N>& table, const std::string& s,
           const char* option) {
    std::string choices;
    for (const auto& [v, name] : table) {
        if (name == s) return v;
        if (!choices.empty()) choices += '|';
        choices += name;
    }
    throw UsageError(std::string(option) + " '" + s + "': must be one of " + choices);
}

}  // namespace

std::string_view name_of(ProbeKind k) {
    return name_in(kKinds, k);
}
std::string_view name_of(SleepMethod m) {
    return name_in(kMethods, m);
}
std::string_view name_of(SchedPolicy p) {
    return name_in(kPolicies, p);
}
ProbeKind parse_probe_kind(const std::string& s) {
    return parse_in(kKinds, s, "--probe");
}
SleepMethod parse_sleep_method(const std::string& s) {
    return parse_in(kMethods, s, "--method");
}
SchedPolicy parse_sched_policy(const std::string& s) {
    return parse_in(kPolicies, s, "--policy");
}

ProbeOptions make_probe_options(ProbeKind kind, std::int64_t interval_us, SleepMethod method,
                                SchedPolicy policy, int priority) {
    ProbeOptions o;
    o.kind = kind;
    o.method = method;
    o.policy = policy;
    switch (kind) {
        case ProbeKind::cyclic:
            if (interval_us < kMinIntervalUs || interval_us > kMaxIntervalUs)
                throw UsageError("--interval-us " + std::to_string(interval_us) + ": must be " +
                                 std::to_string(kMinIntervalUs) + ".." +
                                 std::to_string(kMaxIntervalUs));
            o.period_ns = interval_us * 1000;
            break;
        case ProbeKind::audio:  // interbench: 50 ms, 5% of a CPU
            o.period_ns = 50'000'000;
            o.cpu_share = 0.05;
            break;
        case ProbeKind::video:  // interbench: 60 frames a second, 40% of a CPU
            o.period_ns = 16'700'000;
            o.cpu_share = 0.40;
            break;
    }
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

std::vector<ProbeOptions> make_probe_list(const std::string& probes, std::int64_t interval_us,
                                          SleepMethod method, SchedPolicy policy, int priority) {
    std::vector<ProbeOptions> list;
    std::size_t from = 0;
    while (from <= probes.size()) {
        std::size_t comma = probes.find(',', from);
        if (comma == std::string::npos) comma = probes.size();
        const std::string name = probes.substr(from, comma - from);
        if (name.empty()) throw UsageError("--latency '" + probes + "': an empty probe name");
        ProbeKind kind = parse_in(kKinds, name, "--latency");
        for (const auto& o : list)
            if (o.kind == kind) throw UsageError("--latency '" + probes + "': " + name + " twice");
        list.push_back(make_probe_options(kind, interval_us, method, policy, priority));
        from = comma + 1;
    }
    return list;
}

}  // namespace contest::latency
