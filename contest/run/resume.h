#pragma once
// --resume FILE: an interrupted result file, read and checked against the
// config of the run's journal (run_driver.h opens it: no word is parsed
// again), then continued with the runs it does not hold yet.
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "contest/result/result_file.h"
#include "contest/run/run_config.h"

namespace contest {

// The interrupted result file config.resume names: refused when it is
// complete or its label is not this run's.
ResultFile resumed_result(const RunConfig& config);

// The first field where the recorded config and this one differ ("" when
// none), as "runs: recorded 3, now 5". Fields that differ between two runs
// of one config (where the processes were held, whether a tree was reused)
// are not compared.
std::string config_difference(const nlohmann::json& recorded, const nlohmann::json& now,
                              const std::string& prefix = "");

// The resumed file, to continue under `config_record` (this run's config as
// the file would hold it): refused when that differs from the recorded one.
ResultFile continued_result(const RunConfig& config, ResultFile resumed,
                            const nlohmann::json& config_record);

// A planned run the resumed file already holds (finished, whatever its status).
bool already_done(const ResultFile& result, std::string_view load, unsigned index);

}  // namespace contest
