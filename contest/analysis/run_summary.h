#pragma once
// `contest run --summary-json FILE`: a small, stable JSON an engine (Ansible,
// LAVA, a CI job) turns into one test case per load, without knowing the
// result file's schema. docs/fleet.md documents the fields; new fields may be
// added, existing ones keep their name and meaning while schema_version is 1.
#include <filesystem>

#include <nlohmann/json.hpp>

#include "contest/result/result_file.h"

namespace contest {

inline constexpr int kSummarySchemaVersion = 1;

// One entry per load that has runs, in contest's order: runs, failed_runs,
// mean_time_s (mean wall time of the runs that passed; null when none did),
// ratio (the table's Ratio over the label's no_load, from the same estimate,
// load_ratio: paired by round where rounds hold both; null without a passing
// no_load) and exit_code
// (0 when every run of the load passed, else 1, as `contest run` exits).
// exit_code at the top is the code `contest run` exits with when it finishes
// (1 when any run failed); result_file is where the full result was saved (made absolute).
nlohmann::json run_summary(const ResultFile& result, const std::filesystem::path& result_file);

// Written with write_file_atomically: an engine polling the file sees the
// whole summary or none.
void write_run_summary(const std::filesystem::path& path, const ResultFile& result,
                       const std::filesystem::path& result_file);

}  // namespace contest
