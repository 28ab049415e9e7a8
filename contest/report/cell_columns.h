#pragma once
// The columns of the report's main table, one row per label under each load:
// the one list text, markdown and the HTML page's full table print them from,
// each column with its heading in text and in markdown (HTML takes text's)
// and its figure.
#include <span>
#include <string>
#include <string_view>

#include "contest/analysis/report_model.h"

namespace contest {

// What a column's figure depends on besides its cell.
struct CellDigits {
    int time = 1;   // decimals of Time and its CI (time_decimals)
    int loads = 1;  // of the block's Loads (loads_decimals)
};

struct CellColumn {
    std::string_view text_heading;
    std::string_view markdown_heading;  // "": not in markdown
    bool stats_only;                    // text prints it only with --stats
    std::string (*text)(const Cell&, const CellDigits&);
    // Where markdown says it otherwise; nullptr: as text does.
    std::string (*markdown)(const Cell&, const CellDigits&) = nullptr;
};

// In the order both formats print them (the first is the label); text adds
// the significance mark after the last.
std::span<const CellColumn> cell_columns();

}  // namespace contest
