#include "contest/latency/probe_options.h"

#include <sched.h>

#include <array>
#include <cmath>

#include "contest/sys/enum_names.h"
#include "contest/sys/errors.h"
#include "contest/sys/number_text.h"
#include "contest/sys/spawn.h"
#include "contest/sys/text.h"
#include "contest/sys/words.h"

namespace contest::latency {

namespace {

constexpr std::array<EnumName<ProbeKind>, 4> kKinds{{{ProbeKind::cyclic, "cyclic"},
                                                     {ProbeKind::audio, "audio"},
                                                     {ProbeKind::video, "video"},
                                                     {ProbeKind::exec, "exec"}}};
constexpr std::array<EnumName<SleepMethod>, 4> kMethods{{{SleepMethod::clock_ns, "clock_ns"},
                                                         {SleepMethod::posix_ns, "posix_ns"},
                                                         {SleepMethod::itimer, "itimer"},
                                                         {SleepMethod::poll, "poll"}}};
constexpr std::array<EnumName<SchedPolicy>, 3> kPolicies{
    {{SchedPolicy::other, "other"}, {SchedPolicy::fifo, "fifo"}, {SchedPolicy::rr, "rr"}}};

template <typename E, std::size_t N>
E parse_in(const std::array<EnumName<E>, N>& table, const std::string& s, const char* option) {
    if (auto value = value_in(table, s)) return *value;
    throw UsageError(std::string(option) + " '" + s + "': must be one of " +
                     names_in(table, "|", "|"));
}

// The exec probe's argv, its program found now: a command that cannot start
// is the user's mistake, said before anything runs.
std::vector<std::string> exec_argv(const std::string& command) {
    std::vector<std::string> argv;
    try {
        argv = split_words(command);
    } catch (const UsageError& e) {
        throw UsageError("--exec-cmd: " + std::string(e.what()));
    }
    if (argv.empty()) throw UsageError("--exec-cmd: the exec probe needs a command to start");
    auto path = find_on_path(argv[0]);
    if (!path)
        throw UsageError("--exec-cmd '" + command + "': " + argv[0] +
                         " is not an executable file (nor on PATH)");
    argv[0] = path->string();
    return argv;
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

ProbeOptions make_probe_options(ProbeKind kind, const ProbeSettings& settings) {
    const std::int64_t interval_us = settings.interval_us;
    const SchedPolicy policy = settings.policy;
    const int priority = settings.priority;
    ProbeOptions o;
    o.kind = kind;
    o.method = settings.method;
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
        case ProbeKind::exec:
            o.period_ns = kExecPeriodNs;
            o.exec_argv = exec_argv(settings.exec_command);
            if (!(settings.exec_missed_ms >= kMinExecMissedMs &&
                  settings.exec_missed_ms <= kMaxExecMissedMs))
                throw UsageError("--exec-missed-ms " + fixed(settings.exec_missed_ms, 3) +
                                 ": must be from 0.001 to 10000");
            o.exec_missed_ns = std::llround(settings.exec_missed_ms * 1e6);
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

std::vector<ProbeOptions> make_probe_list(const std::string& probes,
                                          const ProbeSettings& settings) {
    std::vector<ProbeOptions> list;
    for (const std::string& name : split_commas(probes)) {
        if (name.empty()) throw UsageError("--latency '" + probes + "': an empty probe name");
        ProbeKind kind = parse_in(kKinds, name, "--latency");
        for (const auto& o : list)
            if (o.kind == kind) throw UsageError("--latency '" + probes + "': " + name + " twice");
        list.push_back(make_probe_options(kind, settings));
    }
    return list;
}

}  // namespace contest::latency
