#include "contest/cli/own_run_options.h"

#include "contest/cli/cli_common.h"
#include "contest/cli/run_options.h"
#include "contest/sys/errors.h"
#include "loads/registry.h"

namespace contest {

std::string run_option_given(const std::vector<std::string>& words,
                             std::initializer_list<const char*> own) {
    RunOptions given;
    if (!given.parse_words(words)) return "";
    for (const char* name : own)
        if (option_given(given.values(), name)) return name;
    return "";
}

std::vector<std::string> loads_of_run(const RunConfig& run) {
    std::vector<std::string> loads;
    for (const LoadInfo* info : resolve_loads(run.loads, run.load)) loads.emplace_back(info->name);
    return loads;
}

std::string measure_or_default(const std::string& measure, const std::vector<std::string>& loads,
                               const std::string& command) {
    if (!measure.empty()) return measure;
    for (const auto& l : loads)
        if (l != "no_load") return "time:" + l;
    throw UsageError(command + ": give --measure, or a load besides no_load");
}

}  // namespace contest
