#pragma once
// How one workload run ended (docs/contract.md, "Result files"; the meaning of
// each status is in docs/results.md). The names are the result file's words.
#include <array>
#include <optional>
#include <string_view>

namespace contest {

enum class RunStatus { ok, workload_failed, load_failed, timed_out, interrupted };

struct RunStatusName {
    RunStatus status;
    std::string_view name;
};

// The one table both directions read: status -> word written, word read -> status.
inline constexpr std::array<RunStatusName, 5> kRunStatusNames{{
    {RunStatus::ok, "ok"},
    {RunStatus::workload_failed, "workload_failed"},
    {RunStatus::load_failed, "load_failed"},
    {RunStatus::timed_out, "timed_out"},
    {RunStatus::interrupted, "interrupted"},
}};

constexpr std::string_view run_status_name(RunStatus status) {
    for (const auto& s : kRunStatusNames)
        if (s.status == status) return s.name;
    return "unknown";
}

constexpr std::optional<RunStatus> run_status_from_name(std::string_view name) {
    for (const auto& s : kRunStatusNames)
        if (s.name == name) return s.status;
    return std::nullopt;
}

}  // namespace contest
