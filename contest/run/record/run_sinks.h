#pragma once
// Where a run's result files go besides their own files (result_sink.h):
// each of the config's sinks (sink_specs.h), made for the recorder.
#include <filesystem>
#include <string>
#include <vector>

#include "contest/result/result_sink.h"
#include "contest/run/record/sink_specs.h"

namespace contest {

// One set for all the labels of a run: they share its database connection.
ResultSinks run_result_sinks(const std::vector<SinkSpec>& specs,
                             const std::filesystem::path& results_dir);

// What each sink is, for the run's start to say: "the results database
// results/history.sqlite".
std::vector<std::string> run_sink_names(const std::vector<SinkSpec>& specs,
                                        const std::filesystem::path& results_dir);

}  // namespace contest
