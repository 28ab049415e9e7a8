#pragma once
// The lab's own view (docs/history.md, "Hosts"): per machine of the
// database, what it runs (its series, loads, labels and trees), its last
// file and when, and its failed runs, so a person sees which host stopped.
#include <string>
#include <vector>

#include "contest/history/history_db.h"

namespace contest::history {

struct HostView {
    long long machine_id = 0;
    std::string name;
    long long files = 0, series = 0, ok_runs = 0, failed_runs = 0;
    std::vector<std::string> loads, labels, trees;  // each once, sorted
    std::string last_started_at, last_finished_at, last_label, last_kernel;
    std::string last_failure;  // the latest failed run's reason, "" for none
};

// Every machine with a file, the one whose last file is oldest first: the
// host most likely to have stopped heads the list.
std::vector<HostView> host_views(HistoryDb& db);

}  // namespace contest::history
