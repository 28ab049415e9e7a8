#pragma once
// --resume FILE: an interrupted result file, read and checked against the
// config of the run's journal (run_driver.h opens it: no word is parsed
// again), then continued with the runs it does not hold yet.
#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "contest/result/result_file.h"
#include "contest/run/plan/run_config.h"

namespace contest {

// An interrupted result file of the run (one of config.resume): refused
// when it is complete or its label is not `label`, the plan's.
ResultFile resumed_result(const std::filesystem::path& file, const std::string& label);

// The first field where the recorded config and this one differ ("" when
// none), as "runs: recorded 3, now 5". Fields that differ between two runs
// of one config (where the processes were held, whether a tree was reused)
// are not compared.
std::string config_difference(const nlohmann::json& recorded, const nlohmann::json& now,
                              const std::string& prefix = "");

// The resumed file, to continue under `config_record` (this run's config as
// the file would hold it): refused when that differs from the recorded one.
ResultFile continued_result(const std::filesystem::path& file, ResultFile resumed,
                            const nlohmann::json& config_record);

// A planned run the resumed file already holds (finished, whatever its status).
bool already_done(const ResultFile& result, std::string_view load, unsigned index);

}  // namespace contest
