#pragma once
// Where a run's result files go besides their own files (result_sink.h):
// the results database, unless the run was told --no-history.
#include "contest/result/result_sink.h"
#include "contest/run/run_config.h"

namespace contest {

// One set for all the labels of a run: they share its database connection.
ResultSinks run_result_sinks(const RunConfig& config);

}  // namespace contest
