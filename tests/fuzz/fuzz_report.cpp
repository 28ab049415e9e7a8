// libFuzzer: the report on a result file of arbitrary content. What the
// result-file reader keeps as opaque JSON (each run's latency with its
// --latency-why split and spike timelines, perf, the timeline) is read again
// by the report model and the measures; any such file either renders in
// every format or is refused with a UsageError, never a crash or another
// exception.
#include <cstdint>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "contest/report/report.h"
#include "contest/result/result_file.h"
#include "contest/sys/errors.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) return 0;
    std::vector<contest::ResultFile> files;
    try {
        files.push_back(contest::result_from_json(j, "fuzz.json"));
    } catch (const contest::UsageError&) {
        return 0;
    }
    // A second label of the same runs: the tests between labels run too.
    files.push_back(files.front());
    files.back().label += "-b";
    for (const char* format : {"text", "markdown", "html", "json", "csv"}) {
        contest::ReportOptions o;
        o.format = format;
        o.print_warnings = false;
        o.stats = true;
        try {
            (void)contest::render_report(files, o);
            o.latency_only = true;
            (void)contest::render_report(files, o);
        } catch (const contest::UsageError&) {
        }
    }
    return 0;
}
