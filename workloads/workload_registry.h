#pragma once
// What each workload kind is (name, what it times, how to make it), and the
// one list of the kinds, as loads/registry.h lists the loads.
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "workloads/workload.h"

namespace contest {

struct WorkloadInfo {
    std::string_view name;
    std::string_view help;  // what it compiles or runs, one line
    std::unique_ptr<Workload> (*make)(const WorkloadOptions&);
};

// Every kind, in the order --help names them.
std::span<const WorkloadInfo> workload_registry();

// The kind called `name`, or nullptr.
const WorkloadInfo* find_workload(std::string_view name);

// Makes the workload named by options.kind; UsageError for an unknown kind.
std::unique_ptr<Workload> make_workload(const WorkloadOptions& options);
// UsageError unless kind is synthetic, kernel or command.
void check_workload_kind(const std::string& kind);

// The kinds' names, `last` before the last one and `separator` between the
// others: "synthetic | kernel | command", "synthetic, kernel or command".
std::string workload_names(std::string_view separator, std::string_view last);

}  // namespace contest
