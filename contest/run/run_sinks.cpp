#include "contest/run/run_sinks.h"

#include "contest/history/history_sink.h"

namespace contest {

ResultSinks run_result_sinks(const RunConfig& config) {
    if (!config.history) return {};
    return {std::make_shared<history::HistorySink>(
        history::db_target(config.history_db, config.results_dir), config.results_dir)};
}

}  // namespace contest
