#pragma once
// What `contest loads` and `contest load NAME` print for a person,
// rendered through the outputs table (report/outputs.h: the use loads_list,
// text alone, and load_work, text or json as `contest load --format`
// says). The models are plain: the load table's entries and one load's
// window, put together by the command (contest/cli/cmd_loads.cpp).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace contest {

struct LoadListRow {
    std::string name, sets, unit, help;  // unit "-" when it counts none
    // Its own options, a line each: "--OPTION VALUE help (default D)".
    std::vector<std::string> options;
    std::optional<std::string> unavailable;  // why it cannot run here
};

struct LoadList {
    std::vector<LoadListRow> loads;
};

// One load run alone over its window.
struct LoadWork {
    std::string name, unit, secondary_unit;  // secondary_unit "" when it counts none
    bool counts_work = true;                 // false: a --load-cmd without --load-cmd-units
    double seconds = 0, units = 0, secondary = 0, cpu_pct = 0;
    unsigned cpus = 1;
    std::uint64_t restarts = 0;  // its command ended by itself and was started again
    nlohmann::json facts = nlohmann::json::object();
    std::optional<std::string> failure;
};

std::string loads_list_text(const LoadList& list);
std::string load_work_text(const LoadWork& work);
std::string load_work_json(const LoadWork& work);

}  // namespace contest
