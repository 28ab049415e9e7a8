#pragma once
// `contest history triage` and `contest history hosts` (docs/history.md,
// "Triage" and "Hosts"): a change's state set by a person, and the lab's
// own view of its hosts.
#include <string>
#include <vector>

#include "contest/history/history_db.h"

namespace contest {

struct TriageWords {
    std::string status, note, bug, of, by;
};

// Who triages: --by, else user@host.
std::string who_triages(const std::string& by);

// triage CHANGE [--status S ...]: without --status, the change and every
// setting of its state; with it, a new setting.
int history_triage(history::HistoryDb& db, const std::vector<std::string>& words,
                   const TriageWords& t);

// hosts: per machine, what it runs, its last file and when, its failures.
int history_hosts(history::HistoryDb& db);

}  // namespace contest
