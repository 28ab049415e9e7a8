#pragma once
// Where a label's result file goes besides its own file, each time it is
// saved: the results database (contest/history/history_sink.h), a test's
// recorder. The file is the first destination and the one that counts (a
// failed save stops the run); a sink is told after the file is written, with
// the bytes written, and keeps its own failures to itself: it says them and
// lets the run go on, since every run is in the file already.
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "contest/result/result_file.h"

namespace contest {

class ResultSink {
  public:
    virtual ~ResultSink() = default;
    // `file` as it now stands (every run so far), just written whole at
    // `path` as `text`. Never throws.
    virtual void saved(const ResultFile& file, const std::filesystem::path& path,
                       const std::string& text) noexcept = 0;
};

using ResultSinks = std::vector<std::shared_ptr<ResultSink>>;

}  // namespace contest
