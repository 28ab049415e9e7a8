#include "contest/run/run_sinks.h"

#include "contest/history/history_sink.h"

namespace contest {

ResultSinks run_result_sinks(const RunConfig& config) {
    ResultSinks sinks;
    for (const SinkSpec& spec : config.sinks) switch (spec.kind) {
            case SinkKind::results_database:
                sinks.push_back(std::make_shared<history::HistorySink>(
                    history::db_target(spec.where, config.results_dir), config.results_dir));
                break;
        }
    return sinks;
}

std::vector<std::string> run_sink_names(const RunConfig& config) {
    std::vector<std::string> names;
    for (const SinkSpec& spec : config.sinks) switch (spec.kind) {
            case SinkKind::results_database:
                names.push_back("the results database " +
                                history::db_target(spec.where, config.results_dir).shown);
                break;
        }
    return names;
}

}  // namespace contest
