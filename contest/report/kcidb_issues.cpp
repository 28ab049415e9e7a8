#include "contest/report/kcidb_issues.h"

#include "contest/report/formats.h"
#include "contest/report/kcidb_export.h"
#include "contest/sys/sha256.h"

namespace contest {

namespace {

using ojson = nlohmann::ordered_json;

std::string id_of(const std::string& origin, const std::string& made_of) {
    return origin + ":" + sha256_hex(made_of).substr(0, 32);
}

}  // namespace

ojson kcidb_issues(const std::vector<KcidbAlert>& alerts, const std::string& origin) {
    check_kcidb_origin(origin);
    ojson issues = ojson::array(), incidents = ojson::array();
    for (const KcidbAlert& a : alerts) {
        if (a.changes.empty()) continue;
        const KcidbChange& top = a.changes.front();
        const std::string issue_id = id_of(origin, "contest-alert\n" + a.key);
        ojson issue = {
            {"id", issue_id},
            {"version", a.version},
            {"origin", origin},
            {"report_subject", "contest: " + top.measure + " " + signed_percent(100 * top.moved) +
                                   " between " + a.before + " and " + a.after},
            {"culprit", {{"code", a.state != "invalid"}, {"tool", false}, {"harness", false}}},
            {"comment", a.state + ": " + std::to_string(a.changes.size()) + " change(s) between " +
                            a.before + " and " + a.after}};
        for (const KcidbChange& c : a.changes)
            if (!c.bug.empty()) {
                issue["report_url"] = c.bug;
                break;
            }
        ojson changes = ojson::array();
        for (const KcidbChange& c : a.changes)
            changes.push_back({{"change", c.id},
                               {"series", c.series},
                               {"host", c.host},
                               {"moved", c.moved},
                               {"state", c.state}});
        issue["misc"] = {
            {"state", a.state}, {"before", a.before}, {"after", a.after}, {"changes", changes}};
        issues.push_back(issue);
        for (const KcidbChange& c : a.changes) {
            ojson incident = {
                {"id", id_of(origin, "contest-change\n" + a.key + "\n" + std::to_string(c.id))},
                {"origin", origin},
                {"issue_id", issue_id},
                {"issue_version", a.version},
                {"present", true},
                {"comment", c.series + " on " + c.host + ": " + signed_percent(100 * c.moved) +
                                ", " + c.state + (c.note.empty() ? "" : ": " + c.note)},
                {"misc",
                 {{"change", c.id},
                  {"series", c.series},
                  {"host", c.host},
                  {"load", c.load},
                  {"measure", c.measure},
                  {"moved", c.moved},
                  {"p", c.p},
                  {"state", c.state}}}};
            incidents.push_back(incident);
        }
    }
    return {{"version", {{"major", kKcidbMajor}, {"minor", kKcidbMinor}}},
            {"issues", issues},
            {"incidents", incidents}};
}

}  // namespace contest
