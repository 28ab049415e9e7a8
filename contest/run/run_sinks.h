#pragma once
// Where a run's result files go besides their own files (result_sink.h):
// each of the config's sinks (sink_specs.h), made for the recorder.
#include <string>
#include <vector>

#include "contest/result/result_sink.h"
#include "contest/run/run_config.h"

namespace contest {

// One set for all the labels of a run: they share its database connection.
ResultSinks run_result_sinks(const RunConfig& config);

// What each sink is, for the run's start to say: "the results database
// results/history.sqlite".
std::vector<std::string> run_sink_names(const RunConfig& config);

}  // namespace contest
