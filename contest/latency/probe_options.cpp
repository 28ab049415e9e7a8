#include "contest/latency/probe_options.h"

#include <array>

#include "contest/sys/enum_names.h"
#include "contest/sys/errors.h"
#include "contest/sys/text.h"

namespace contest::latency {

namespace {

template <typename E, std::size_t N>
E parse_in(const std::array<EnumName<E>, N>& table, const std::string& s, const char* option) {
    if (auto value = value_in(table, s)) return *value;
    throw UsageError(std::string(option) + " '" + s + "': must be one of " +
                     names_in(table, "|", "|"));
}

}  // namespace

std::string_view name_of(SleepMethod m) {
    return name_in(kMethods, m);
}
std::string_view name_of(SchedPolicy p) {
    return name_in(kPolicies, p);
}
SleepMethod parse_sleep_method(const std::string& s) {
    return parse_in(kMethods, s, "--method");
}
SchedPolicy parse_sched_policy(const std::string& s) {
    return parse_in(kPolicies, s, "--policy");
}

}  // namespace contest::latency
