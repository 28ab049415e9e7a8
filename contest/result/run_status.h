#pragma once
// How one workload run ended (docs/contract.md, "Result files"; the meaning of
// each status is in docs/results.md). The names are the result file's words.
#include <array>
#include <optional>
#include <string_view>

#include "contest/sys/enum_names.h"

namespace contest {

enum class RunStatus {
    ok,
    workload_failed,
    load_failed,
    timed_out,
    interrupted,
    guest_failed,
    boot_failed
};

// The one table both directions read: status -> word written, word read -> status.
inline constexpr std::array<EnumName<RunStatus>, 7> kRunStatusNames{{
    {RunStatus::ok, "ok"},
    {RunStatus::workload_failed, "workload_failed"},
    {RunStatus::load_failed, "load_failed"},
    {RunStatus::timed_out, "timed_out"},
    {RunStatus::interrupted, "interrupted"},
    {RunStatus::guest_failed, "guest_failed"},
    {RunStatus::boot_failed, "boot_failed"},
}};

constexpr std::string_view run_status_name(RunStatus status) {
    return name_in(kRunStatusNames, status);
}

constexpr std::optional<RunStatus> run_status_from_name(std::string_view name) {
    return value_in(kRunStatusNames, name);
}

}  // namespace contest
