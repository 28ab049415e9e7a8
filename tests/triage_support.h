#pragma once
// Triage's checks (contest/history/triage.h), shared by SQLite and
// PostgreSQL: a change found, marked, found again by a later look with one
// more point under the same id and state; the place's tolerance; grouping;
// a regression back after one marked fixed; the robot's one mail a group.
#include <soci/soci.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "contest/analysis/change_points.h"
#include "contest/history/history_db.h"
#include "contest/history/import.h"
#include "contest/history/series.h"
#include "contest/history/triage.h"
#include "history_support.h"

namespace contest::test {

// Kernel k1..kN of the small example, Time 30% slower from k5 on.
inline void put_stepped_kernel(const std::filesystem::path& dir, int i) {
    const std::string label = "k" + std::to_string(i);
    put_example_as(dir / label / "r.json", label, "6.1." + std::to_string(i), i <= 4 ? 1.0 : 1.3);
}

// The changes a look at `key` finds now, recorded as `changes` records them.
inline std::vector<history::RecordedChange> look_at(history::HistoryDb& db,
                                                    const history::SeriesKey& key,
                                                    const std::string& now) {
    using namespace history;
    const SeriesPoints s = series_points(db, key);
    std::vector<std::vector<double>> values;
    std::vector<long long> kernels;
    for (const auto& p : s.points) {
        values.push_back(p.values);
        kernels.push_back(p.kernel_id);
    }
    return record_changes(db, key, kernels, find_change_points(values), "look@test", now);
}

inline void check_triage_round_trip(const history::DbTarget& target,
                                    const std::filesystem::path& scratch) {
    using namespace history;
    for (int i = 1; i <= 8; ++i) put_stepped_kernel(scratch / "in", i);
    HistoryDb db(target, OpenFor::writing);
    REQUIRE(import_paths(db, {scratch / "in"}, "2026-12-05T00:00:00Z").skipped.empty());
    const SeriesKey key = *parse_series_key("m1/w1/io_load/wall_s");
    const auto first = look_at(db, key, "2026-12-05T01:00:00Z");
    REQUIRE(first.size() == 1);
    const RecordedChange found = first.front();
    CHECK(found.status == TriageStatus::untriaged);
    CHECK(found.before_name == "6.1.4");
    CHECK(found.after_name == "6.1.5");
    CHECK(found.moved == Approx(0.3).margin(0.01));
    CHECK(found.by == "look@test");

    TriageRequest r;
    r.change = found.id;
    r.status = TriageStatus::invalid;
    r.note = "the host was rebuilding its RAID";
    r.bug = "https://bugs.example.org/123";
    r.by = "ann@lab";
    const RecordedChange marked = triage_change(db, r, "2026-12-05T02:00:00Z");
    CHECK(marked.status == TriageStatus::invalid);
    CHECK(marked.by == "ann@lab");
    CHECK(marked.note == r.note);
    CHECK(marked.bug == r.bug);

    // One more point: the same change, the same id, its state kept.
    put_stepped_kernel(scratch / "more", 9);
    REQUIRE(import_paths(db, {scratch / "more"}, "2026-12-05T03:00:00Z").skipped.empty());
    const auto later = look_at(db, key, "2026-12-05T04:00:00Z");
    REQUIRE(later.size() == 1);
    CHECK(later.front().id == found.id);
    CHECK(later.front().status == TriageStatus::invalid);
    CHECK(later.front().seen_at == "2026-12-05T04:00:00Z");
    CHECK(later.front().found_at == "2026-12-05T01:00:00Z");
    // Every setting kept: found, then invalid.
    const auto history_rows = triage_history(db, found.id);
    REQUIRE(history_rows.size() == 2);
    CHECK(history_rows[0].status == TriageStatus::untriaged);
    CHECK(history_rows[1].status == TriageStatus::invalid);
    CHECK(history_rows[1].at == "2026-12-05T02:00:00Z");

    // By state: the invalid one there, none untriaged of this series.
    const auto invalid = recorded_changes(db, TriageStatus::invalid);
    REQUIRE(invalid.size() == 1);
    CHECK(invalid.front().id == found.id);
    for (const auto& c : recorded_changes(db, TriageStatus::untriaged))
        CHECK(c.series.text() != key.text());
    CHECK(recorded_changes(db).size() == 1);

    // Unknown change, downstream of nothing: one line each.
    r.change = found.id + 100;
    CHECK_THROWS_AS(triage_change(db, r, "t"), UsageError);
    r.change = found.id;
    r.status = TriageStatus::downstream;
    r.of = found.id + 100;
    CHECK_THROWS_AS(triage_change(db, r, "t"), UsageError);
    r.of = 0;
    CHECK_THROWS_AS(triage_change(db, r, "t"), UsageError);
    CHECK(triage_history(db, found.id).size() == 2);
}

// The tolerance, the way, grouping by kernel pair with the most moved
// first, a regression back after a fixed one, the group's one mail.
inline void check_triage_identity_and_groups(const history::DbTarget& target,
                                             const std::filesystem::path& scratch) {
    using namespace history;
    for (int i = 1; i <= 12; ++i)
        put_example_as(scratch / "in" / std::to_string(i) / "r.json", "k" + std::to_string(i),
                       "6.2." + std::to_string(i));
    HistoryDb db(target, OpenFor::writing);
    REQUIRE(import_paths(db, {scratch / "in"}, "2026-12-05T00:00:00Z").skipped.empty());
    const SeriesPoints s = series_points(db, *parse_series_key("m1/w1/io_load/wall_s"));
    REQUIRE(s.points.size() >= 12);
    std::vector<long long> kernels;
    for (const auto& p : s.points) kernels.push_back(p.kernel_id);
    const auto split = [](std::size_t index, double change) {
        ChangePoint c;
        c.index = index;
        c.change = change;
        c.p = 0.001;
        return c;
    };
    const auto record = [&](const SeriesKey& key, std::vector<ChangePoint> found) {
        return record_changes(db, key, kernels, found, "look@test", "2026-12-05T01:00:00Z");
    };
    // Series of a load of their own ("picked"): whatever else the database
    // holds, the splits are only these.
    const SeriesKey wall = *parse_series_key("m1/w1/picked/wall_s");
    const SeriesKey rss = *parse_series_key("m1/w1/picked/max_rss_kib");
    const long long a = record(wall, {split(3, 0.2)}).front().id;
    // Within 2 points, the same way: the same change, its kernels moved.
    const auto moved = record(wall, {split(5, 0.25)});
    CHECK(moved.front().id == a);
    CHECK(moved.front().after_kernel == kernels[5]);
    // 3 points on, or the other way: another change.
    const SeriesKey sys = *parse_series_key("m1/w1/picked/sys_s");
    const long long b = record(sys, {split(3, 0.2)}).front().id;
    CHECK(record(sys, {split(6, 0.2)}).front().id != b);
    CHECK(record(sys, {split(3, -0.2)}).front().id != b);
    CHECK(record(sys, {split(4, 0.2)}).front().id == b);

    // Two measures at one kernel pair: one alert, the most moved first.
    const long long small = record(wall, {split(10, 0.05)}).front().id;
    const long long big = record(rss, {split(10, -0.4)}).front().id;
    std::vector<ChangeGroup> groups = group_changes(recorded_changes(db));
    const auto at10 = std::find_if(groups.begin(), groups.end(), [&](const ChangeGroup& g) {
        return g.key == "k" + std::to_string(kernels[9]) + "..k" + std::to_string(kernels[10]);
    });
    REQUIRE(at10 != groups.end());
    REQUIRE(at10->changes.size() == 2);
    CHECK(at10->changes[0].id == big);
    CHECK(at10->changes[1].id == small);
    CHECK(at10->status == TriageStatus::untriaged);
    // Groups come most moved first.
    for (std::size_t i = 1; i < groups.size(); ++i)
        CHECK(std::fabs(groups[i - 1].changes.front().moved) >=
              std::fabs(groups[i].changes.front().moved));

    // Marked fixed, then the same way again later in the series: back.
    TriageRequest fixed;
    fixed.change = a;
    fixed.status = TriageStatus::fixed;
    fixed.by = "ann@lab";
    triage_change(db, fixed, "2026-12-05T02:00:00Z");
    const SeriesKey cpu = *parse_series_key("m1/w1/picked/cpu_pct");
    const long long first_up = record(cpu, {split(3, 0.2)}).front().id;
    fixed.change = first_up;
    triage_change(db, fixed, "2026-12-05T02:00:00Z");
    const auto again = record(cpu, {split(3, 0.2), split(6, -0.2), split(9, 0.2)});
    REQUIRE(again.size() == 3);
    CHECK(again[0].id == first_up);
    CHECK(again[1].back_after == 0);  // the fix itself, the other way
    CHECK(again[2].back_after == first_up);

    // The group's one mail: the first claimant, again by itself, never by
    // another, nor another group of the same first bad commit.
    CHECK(claim_group_mail(db, "a..b", "bad1", "m.mail", "host-a:/t", "t1"));
    CHECK(claim_group_mail(db, "a..b", "bad1", "m.mail", "host-a:/t", "t2"));
    CHECK_FALSE(claim_group_mail(db, "a..b", "bad1", "m.mail", "host-b:/t", "t3"));
    CHECK_FALSE(claim_group_mail(db, "a..c", "bad1", "m.mail", "host-b:/t", "t3"));
    CHECK(claim_group_mail(db, "c..d", "bad2", "n.mail", "host-b:/t", "t4"));
}

}  // namespace contest::test
