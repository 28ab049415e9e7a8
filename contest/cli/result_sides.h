#pragma once
// The result files an argument of compare, post or export names: a result file or
// folder when it names one, else a label looked up under a results folder
// (read once, when first needed).
#include <string>
#include <vector>

#include "contest/result/result_file.h"

namespace contest {

// The folder of the committed examples in a checkout's results folder
// (results/examples): other machines' runs, read when named (a path into
// it, or --results results/examples), never with what a person ran.
inline constexpr const char* kExamplesFolder = "examples";

// What a person ran in results_dir: each folder in it but examples/, and
// each *.json at its top (the history database beside them is no result).
// results_dir itself when it is no folder (the reader then names it);
// a UsageError saying so, and where the examples are, when nothing is left.
std::vector<std::string> own_result_paths(const std::string& results_dir);

class ResultSides {
  public:
    // Labels are looked up among what a person ran in results_dir
    // (own_result_paths).
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
