#include "contest/report/kcidb_export.h"

#include <cmath>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "contest/analysis/multiple_comparisons.h"
#include "contest/report/comparison_rows.h"
#include "contest/report/formats.h"
#include "contest/report/kcidb_objects.h"
#include "contest/report/kcidb_tests.h"
#include "contest/sys/errors.h"
#include "contest/sys/number_text.h"
#include "contest/sys/text.h"

namespace contest {

namespace {

// KCIDB's own pattern (kcidb-io v3.0 on, unchanged in v4.4).
const std::regex kOrigin("^[a-z0-9_]+$");

// KCIDB's objects have no null properties; a fact the fingerprint could not
// read (null beside its reason) is left out of misc too.
void drop_nulls(nlohmann::ordered_json& j) {
    if (j.is_object()) {
        for (auto it = j.begin(); it != j.end();)
            if (it->is_null())
                it = j.erase(it);
            else
                drop_nulls(*it++);
    } else if (j.is_array()) {
        for (auto it = j.begin(); it != j.end();)
            if (it->is_null())
                it = j.erase(it);
            else
                drop_nulls(*it++);
    }
}

}  // namespace

void check_kcidb_origin(const std::string& origin) {
    if (!std::regex_match(origin, kOrigin))
        throw UsageError("--origin " + printable(origin) +
                         ": a KCIDB origin is lowercase letters, digits and _ (e.g. my_lab)");
}

nlohmann::ordered_json kcidb_submission(const std::vector<ResultFile>& files,
                                        const ReportModel& model, const KcidbOptions& options) {
    using namespace kcidb;
    check_kcidb_origin(options.origin);
    const std::string& origin = options.origin;
    const auto keys = label_keys(files);
    std::map<std::string, std::string> versions;  // label -> contest version of its first file
    for (const auto& f : files) versions.try_emplace(f.label, f.contest_version);

    std::map<std::string, std::vector<Measured>> by_label = measured_by_label(model);

    // What a status stands on besides the label's own files.
    const std::string judging =
        "\nagainst " + keys.at(model.baseline) + " alpha " + six_digits(model.alpha) + " " +
        stats::correction_name(model.correction) + " min-effect " +
        six_digits(model.min_effect_pct) + (model.adjust_outside ? " adjust outside" : "") +
        " target-mde " + six_digits(options.target_mde_pct);
    const auto boots = boots_of(files);
    ojson checkouts = ojson::array(), builds = ojson::array(), tests = ojson::array();
    for (const auto& l : model.labels) {
        const std::string& key = keys.at(l.label);
        const ojson checkout = checkout_of(l, key, origin);
        const Boots& booted = boots.count(l.label) ? boots.at(l.label) : Boots{};
        const ojson build = build_of(l, booted, key, checkout["id"].get<std::string>(), origin);
        checkouts.push_back(checkout);
        builds.push_back(build);
        if (!booted.failed_rounds.empty())
            tests.push_back(boot_test_of(l, booted, key, build["id"].get<std::string>(), origin));
        const ojson environment = environment_of(l, versions.at(l.label));
        std::set<std::string> seen;
        for (const auto& m : by_label[l.label]) {
            if (!std::isfinite(m.value) || !seen.insert(m.path).second) continue;
            const std::string path = test_path(m.path);
            Status judged;
            if (options.judged && m.judgement && l.label != model.baseline)
                judged = status_of(*m.judgement, options.target_mde_pct);
            const std::optional<std::string>& status = judged.status;
            ojson t = {{"build_id", build["id"]},
                       {"id", object_id(origin, "test\n" + key + "\n" + path +
                                                    (status ? judging : std::string()))},
                       {"origin", origin},
                       {"path", path},
                       {"comment", m.comment}};
            ojson number = {{"value", m.value}};
            if (!m.unit.empty()) number["unit"] = m.unit;
            t["number"] = number;
            if (status) t["status"] = *status;
            t["environment"] = environment;
            if (!l.started_at.empty()) t["start_time"] = l.started_at;
            ojson misc = m.misc;
            misc["label"] = l.label;
            if (m.judgement && l.label != model.baseline) {
                const Test& test = *m.judgement->test;
                misc["against"] = {
                    {"baseline", m.judgement->baseline},
                    {"method", test.method},
                    {"change_pct", misc_number(change_of_record(&test, std::nan("")))},
                    {"p_adjusted", misc_number(test.p_adjusted)},
                    {"significant", m.judgement->significant},
                    {"could_see", detectable_text(test)},
                    {"correction", correction_summary(model)},
                    {"alpha", model.alpha}};
                if (!test.withheld.empty()) misc["against"]["withheld"] = test.withheld;
                if (!judged.no_verdict.empty()) misc["against"]["no_verdict"] = judged.no_verdict;
                if (!m.judgement->judged) misc["against"]["judged"] = false;
            }
            t["misc"] = misc;
            tests.push_back(t);
        }
    }
    ojson submission = {{"version", {{"major", kKcidbMajor}, {"minor", kKcidbMinor}}},
                        {"checkouts", checkouts},
                        {"builds", builds},
                        {"tests", tests}};
    drop_nulls(submission);
    return submission;
}

}  // namespace contest
