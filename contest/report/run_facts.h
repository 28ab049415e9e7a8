#pragma once
// The facts of the machine, the kernels and the run that a reader checks
// before believing a comparison (CPU, memory, each kernel's HZ, preemption
// model and .config, the workload, runs and rounds, the containment, a
// guest's accelerator), read from what the result files recorded, one value
// per label; and the command line that made a label's files.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "contest/analysis/report_model.h"

namespace contest {

struct RunFact {
    std::string name;                 // "CPU", "HZ", ...
    std::vector<std::string> values;  // one per label of the model, in its order; "-": unknown
    bool same() const;                // every label's value is the same
};

// Facts that no label recorded are left out.
std::vector<RunFact> run_facts(const ReportModel& model);

// The words of a recorded config.command_line, each quoted for a POSIX shell
// where it needs it ("contest", "run", "-k", "\"my label\""); empty when the
// config does not record one.
std::vector<std::string> command_words(const nlohmann::json& config);

}  // namespace contest
