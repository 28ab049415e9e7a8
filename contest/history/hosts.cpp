#include "contest/history/hosts.h"

#include <algorithm>
#include <map>

#include "contest/history/db_session.h"
#include "contest/history/row_values.h"

namespace contest::history {

namespace {

void add_once(std::vector<std::string>& to, const std::string& value) {
    if (!value.empty() && std::find(to.begin(), to.end(), value) == to.end()) to.push_back(value);
}

}  // namespace

std::vector<HostView> host_views(HistoryDb& db) {
    std::map<long long, HostView> by_id;
    db.guarded("reading its hosts", [&] {
        soci::rowset<soci::row> files =
            (session_of(db).prepare
             << "SELECT ma.id, ma.name, f.label, f.started_at, f.finished_at, k.release, "
                "k.tree, k.commit_id FROM files f JOIN machines ma ON ma.id = f.machine_id "
                "JOIN kernels k ON k.id = f.kernel_id ORDER BY f.started_at, f.id");
        for (const soci::row& row : files) {
            HostView& h = by_id[integer_at(row, 0)];
            h.machine_id = integer_at(row, 0);
            h.name = row.get<std::string>(1);
            ++h.files;
            add_once(h.labels, row.get<std::string>(2));
            add_once(h.trees, row.get<std::string>(6));
            h.last_label = row.get<std::string>(2);
            h.last_started_at = row.get<std::string>(3);
            h.last_finished_at = row.get<std::string>(4);
            const std::string commit = row.get<std::string>(7);
            h.last_kernel =
                row.get<std::string>(5) + (commit.empty() ? "" : " @" + commit.substr(0, 12));
        }
        soci::rowset<soci::row> runs =
            (session_of(db).prepare
             << "SELECT f.machine_id, r.load, r.status, r.reason FROM runs r JOIN files f ON "
                "f.id = r.file_id ORDER BY f.started_at, f.id, r.id");
        for (const soci::row& row : runs) {
            HostView& h = by_id[integer_at(row, 0)];
            add_once(h.loads, row.get<std::string>(1));
            if (row.get<std::string>(2) == "ok") {
                ++h.ok_runs;
                continue;
            }
            ++h.failed_runs;
            const std::string reason = row.get<std::string>(3);
            h.last_failure = reason.empty() ? row.get<std::string>(2) : reason;
        }
        soci::rowset<soci::row> series =
            (session_of(db).prepare
             << "SELECT machine_id, COUNT(*) FROM (SELECT DISTINCT f.machine_id, f.workload_id, "
                "r.load, m.measure FROM files f JOIN runs r ON r.file_id = f.id JOIN "
                "run_measures m ON m.run_id = r.id WHERE r.status = 'ok') s GROUP BY machine_id");
        for (const soci::row& row : series) by_id[integer_at(row, 0)].series = integer_at(row, 1);
    });
    std::vector<HostView> out;
    for (auto& [id, h] : by_id) {
        for (auto* list : {&h.loads, &h.labels, &h.trees}) std::sort(list->begin(), list->end());
        out.push_back(std::move(h));
    }
    std::stable_sort(out.begin(), out.end(), [](const HostView& a, const HostView& b) {
        return a.last_started_at < b.last_started_at;
    });
    return out;
}

}  // namespace contest::history
