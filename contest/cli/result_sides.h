#pragma once
// The result files an argument of compare, post or export names: a result file or
// folder when it names one, else a label looked up under a results folder
// (read once, when first needed).
#include <string>
#include <vector>

#include "contest/result/result_file.h"

namespace contest {

class ResultSides {
  public:
    explicit ResultSides(std::string results_dir) : results_dir_(std::move(results_dir)) {}

    // Throws UsageError naming the argument, and the labels there are, when
    // it is neither a readable path nor a label under the results folder.
    std::vector<ResultFile> resolve(const std::string& arg);
    // Every argument's files, in the arguments' order.
    std::vector<ResultFile> resolve_all(const std::vector<std::string>& args);

  private:
    const std::vector<ResultFile>& everything();
    std::string results_dir_;
    std::vector<ResultFile> all_;
    bool loaded_ = false;
};

// "a, b, c": the files' labels, each once, in the order first seen.
std::string list_labels(const std::vector<ResultFile>& files);

}  // namespace contest
