#pragma once
// What `contest history triage` and `contest history hosts` print for a
// person, rendered through the outputs table (report/outputs.h: the uses
// history_triage and history_hosts, text only): a change's state and every
// setting of it, or the setting just made; the lab's hosts, a line each and
// what each runs, and what this machine owes the database. The models are
// plain: what the history says, put together by the command
// (contest/cli/history_triage.cpp); every text of the database's is made
// printable here.
#include <cstddef>
#include <string>
#include <vector>

namespace contest {

// One setting of a change's state.
struct HistoryTriageSetting {
    std::string at, status, by;
    long long of = 0;  // the change it is downstream of, 0 none
    std::string bug, note;
};

struct HistoryTriage {
    long long id = 0;
    std::string status;  // "untriaged", ...
    std::string series, machine;
    double moved = 0;           // after / before - 1
    std::string before, after;  // the kernels either side, named
    // Set: the setting just made (its by and at), said in a line; else the
    // change and every setting of it.
    bool set = false;
    std::string by, at;
    std::vector<HistoryTriageSetting> settings;
};

struct HistoryHostRow {
    std::string name;
    std::string last_started_at;
    long long files = 0, runs = 0, failed_runs = 0;
    std::string last_kernel, last_label;
    long long series = 0;
    std::vector<std::string> loads, labels, trees;
    std::string last_failure;  // its last failed run, "" none
};

struct HistoryHosts {
    std::string database;  // as shown: the file, or the URI without its password
    std::vector<HistoryHostRow> hosts;
    std::string results;   // this machine's results folder
    std::size_t owed = 0;  // the saves it owes the database
};

std::string history_triage_text(const HistoryTriage& triage);
std::string history_hosts_text(const HistoryHosts& hosts);

}  // namespace contest
