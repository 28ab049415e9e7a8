#include "contest/run/record/run_sinks.h"

#include "contest/history/history_sink.h"

namespace contest {

ResultSinks run_result_sinks(const std::vector<SinkSpec>& specs,
                             const std::filesystem::path& results_dir) {
    ResultSinks sinks;
    for (const SinkSpec& spec : specs) switch (spec.kind) {
            case SinkKind::results_database:
                sinks.push_back(std::make_shared<history::HistorySink>(
                    history::db_target(spec.where, results_dir), results_dir));
                break;
        }
    return sinks;
}

std::vector<std::string> run_sink_names(const std::vector<SinkSpec>& specs,
                                        const std::filesystem::path& results_dir) {
    std::vector<std::string> names;
    for (const SinkSpec& spec : specs) switch (spec.kind) {
            case SinkKind::results_database:
                names.push_back("the results database " +
                                history::db_target(spec.where, results_dir).shown);
                break;
        }
    return names;
}

}  // namespace contest
