#pragma once
// Where a run's saved files go besides their own files (result_sink.h), as
// the run was asked: a list of sinks (RunConfig::sinks), each one entry that
// run_sinks.h makes into the recorder's sink. The results database is one
// kind; a new kind is a SinkKind, its entry's fields, and its case in
// run_sinks.cpp.
#include <string>
#include <vector>

namespace contest {

enum class SinkKind {
    // The results database (docs/history.md): `where` is --db as given ("":
    // history.sqlite in the results folder).
    results_database,
};

struct SinkSpec {
    SinkKind kind = SinkKind::results_database;
    std::string where;
};

// The sinks of a run told nothing: the results database beside its results.
inline std::vector<SinkSpec> default_sinks() {
    return {SinkSpec{}};
}

// The run's results database, if it has one (none under --no-history).
inline const SinkSpec* database_sink(const std::vector<SinkSpec>& sinks) {
    for (const SinkSpec& s : sinks)
        if (s.kind == SinkKind::results_database) return &s;
    return nullptr;
}

}  // namespace contest
