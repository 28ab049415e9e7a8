#pragma once
// The history's alerts as KCIDB issues and incidents (docs/kcidb.md,
// "Changes as issues"): an alert (the changes of one kernel pair over
// measures, loads and hosts, history/triage.h) is an issue, each of its
// changes an incident of it. Only the fields kcidb-io's v4.4 and v5 share
// are written (v5 drops an issue's build_valid and test_status), so the
// upgrade on the way in carries them as they are.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace contest {

struct KcidbChange {
    long long id = 0;  // the history's change id
    std::string series, host, load, measure;
    double moved = 0, p = 1;
    std::string state;  // its triage state
    std::string bug, note;
};

struct KcidbAlert {
    std::string key;            // BEFORE..AFTER (commits, else kernel ids): the issue's identity
    std::string before, after;  // the kernels' names
    std::string state;          // the alert's
    int version = 0;            // triage settings of its changes so far: the issue's version
    std::vector<KcidbChange> changes;  // the most moved first
};

// A submission (v4.4) of the alerts' issues and incidents. An invalid
// alert's culprit is all false (KCIDB's "invalid"); any other's is the code.
nlohmann::ordered_json kcidb_issues(const std::vector<KcidbAlert>& alerts,
                                    const std::string& origin);

}  // namespace contest
