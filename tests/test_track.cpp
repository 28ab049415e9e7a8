// `contest track` without building or booting: the kbuild stand-in's real
// git tree with 30 commits on top, a tag every 4, one commit that makes the
// workload slower (a step) and one tagged commit that does not build. Each
// measurement goes through a measuring seam (TrackBench) whose runs are
// the run loop's (run_rounds) through a fake backend deriving each run's
// figure from its kernel's commit, and the bisection is the stepper's
// (bisection.h) driven at a fake place (fake_bisect_place.h)
// with real `git bisect` (the stand-in bench: fake_track_bench.h). What is checked: the track finds
// the step between the two tags around it, confirms it, bisects it to its commit and writes one
// mail; the failing point is recorded and skipped; a rerun measures nothing; a SIGKILL at every
// step and in the middle of runs resumes without measuring again what was done; the user's tree is
// untouched; the state is read as untrusted.
#include <sys/wait.h>
#include <unistd.h>

#include <soci/soci.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "contest/bisect/bisect_state.h"
#include "contest/bisect/bisection.h"
#include "contest/history/db_session.h"
#include "contest/history/history_db.h"
#include "contest/history/import.h"
#include "contest/history/triage.h"
#include "contest/report/post_parts.h"
#include "contest/run/plan/run_journal.h"
#include "contest/run/plan/run_plan.h"
#include "contest/run/record/label_run.h"
#include "contest/run/rounds/run_loop.h"
#include "contest/sys/errors.h"
#include "contest/sys/file_lock.h"
#include "contest/sys/journal_file.h"
#include "contest/sys/progress.h"
#include "contest/sys/text.h"
#include "contest/track/branch_points.h"
#include "contest/track/track_state.h"
#include "contest/track/tracking.h"
#include "fake_track_bench.h"
#include "kbuild_stand_in.h"
#include "test_helpers.h"

using namespace contest;
using namespace contest::track;
namespace fs = std::filesystem;

namespace {

using test::FakeBench;
using test::killed_here;
using test::kills_log;
using test::last_phase;
using test::phase_of;
using test::TrackedTree;
using test::turns_before_kill;

struct Tracking {
    explicit Tracking(int step = TrackedTree::kStep) : t(step) {}
    TrackedTree t;
    fs::path scratch = t.stand_in.scratch.path();
    FakeBench bench{t, scratch / "work", scratch / "measured.log"};
    Progress quiet{Progress::Mode::kQuiet};

    TrackOptions options() const {
        TrackOptions o;
        o.tree = t.tree;
        o.branch = "main";
        o.from = "t00";
        o.choice.every = "tag";
        o.measure = bisect::parse_bisect_measure("time:cpu_load", {"no_load", "cpu_load"});
        o.run_words = {"-w", "command", "--workload-cmd", "true", "no_load", "cpu_load"};
        o.folder = scratch / "track";
        o.mail_dir = scratch / "mail";
        o.scratch = scratch / "git-scratch";
        o.locks = scratch / "locks";
        o.db = history::db_target((scratch / "history.sqlite").string(), scratch);
        fs::create_directories(o.scratch);
        return o;
    }
    std::vector<fs::path> mails() const {
        std::vector<fs::path> found;
        std::error_code ec;
        for (const auto& e : fs::directory_iterator(scratch / "mail", ec))
            found.push_back(e.path());
        return found;
    }
    // The database's files of each kernel's commit: every stored point's once.
    std::map<std::string, long long> files_by_commit() const {
        history::HistoryDb db(options().db, history::OpenFor::reading);
        std::map<std::string, long long> out;
        const std::string ours = options().folder.string() + "/%";
        soci::rowset<std::string> rows =
            (session_of(db).prepare
                 << "SELECT k.commit_id FROM files f JOIN kernels k ON f.kernel_id = "
                    "k.id WHERE f.path LIKE :ours",
             soci::use(ours));
        for (const auto& commit : rows) ++out[commit];
        return out;
    }
};

// Another host of a shared database: the same points measured there (by a
// bench of its own), its files' hostname `host`, with the step or without.
void seed_other_host(const Tracking& k, const std::string& host, bool with_step) {
    FakeBench other(k.t, k.scratch / ("work-" + host), k.scratch / (host + ".log"));
    history::HistoryDb db(k.options().db, history::OpenFor::writing);
    for (int i = 0; i <= 28; i += 4) {
        const std::string& c = k.t.commits[static_cast<std::size_t>(i)];
        if (k.t.failing.count(c)) continue;
        const fs::path file = other.measure_point(c, k.scratch / host / std::to_string(i));
        nlohmann::json j = nlohmann::json::parse(test::slurp(file));
        j["system"]["hostname"] = host;
        if (!with_step && i >= TrackedTree::kStep)
            for (auto& r : j["runs"])
                if (r["load"] == "cpu_load") r["wall_s"] = r["wall_s"].get<double>() - 1.0;
        test::put_file(file, j.dump(1));
        REQUIRE(history::import_paths(db, {file}, "2026-12-05T00:00:00Z").skipped.empty());
    }
}

// What the whole track must have come to, however it got there.
void check_the_answer(const Tracking& k, const TrackState& s) {
    INFO(track_status_text(s, 0));
    const TrackedTree& t = k.t;
    REQUIRE(s.points.size() == 8);  // t00 .. t28
    for (const auto& p : s.points) {
        if (t.failing.count(p.commit)) {
            CHECK(p.status == PointStatus::failed);
            CHECK_THAT(p.why, Catch::Contains("does not build"));
        } else {
            CHECK(p.status == PointStatus::stored);
        }
    }
    REQUIRE(s.changes.size() == 1);
    const TrackChange& c = s.changes.front();
    CHECK(c.before == t.commits[12]);
    CHECK(c.after == t.commits[16]);
    CHECK(c.change == Approx(0.1).margin(0.02));
    CHECK(c.status == ChangeStatus::mailed);
    CHECK(c.first_bad == t.commits[TrackedTree::kStep]);
    CHECK_THAT(c.confirm_why, Catch::Contains("differ"));
    REQUIRE(s.mailed.size() == 1);
    const std::vector<fs::path> mails = k.mails();
    REQUIRE(mails.size() == 1);
    const std::string mail = test::slurp(mails.front());
    INFO(mail);
    CHECK(mail.rfind("Subject: [contest] track: " + t.commits[TrackedTree::kStep].substr(0, 12) +
                         " pipe: let a slow reader",
                     0) == 0);
    CHECK_THAT(mail, Catch::Contains("first bad commit: " + t.commits[TrackedTree::kStep]));
    CHECK_THAT(mail, Catch::Contains("commit: " + t.commits[TrackedTree::kStep] + "\n"));
    CHECK_THAT(mail, Catch::Contains("Dee Pipes <dee@example.org>"));
    CHECK_THAT(mail, Catch::Contains("%change"));  // the LKP table of the two points
    CHECK_THAT(mail, Catch::Contains("How the track runs:"));
    CHECK_THAT(test::unwrapped(mail), Catch::Contains("t12 (" + t.commits[12].substr(0, 12) + ")"));
    for (const auto& line : split_lines(mail)) {
        INFO(line);
        CHECK(line.size() <= kPostColumns);
    }
    // Every stored point in the database once, none of the others.
    const auto files = k.files_by_commit();
    CHECK(files.size() == 7);
    for (const auto& [commit, n] : files) {
        CHECK(n == 1);
        CHECK(t.failing.count(commit) == 0);
    }
}

}  // namespace

TEST_CASE("track: the points of a branch, by tag or every N-th first-parent commit", "[track]") {
    TrackedTree t;
    const fs::path scratch = t.stand_in.scratch / "git";
    fs::create_directories(scratch);
    const auto names = [](const std::vector<BranchPoint>& points) {
        std::vector<std::string> out;
        for (const auto& p : points) out.push_back(p.name);
        return out;
    };
    const std::string head = t.commits.back();
    CHECK(names(branch_points(t.tree, t.commits[0], head, {"tag", false}, scratch)) ==
          std::vector<std::string>{"t00", "t04", "t08", "t12", "t16", "t20", "t24", "t28"});
    // From a commit between tags, with the head.
    const auto every = branch_points(t.tree, t.commits[6], head, {"10", true}, scratch);
    REQUIRE(every.size() == 4);
    CHECK(every[0].commit == t.commits[6]);
    CHECK(every[1].commit == t.commits[16]);
    CHECK(names(every)[1] == "t16");
    CHECK(every[2].commit == t.commits[26]);
    CHECK(every[3].commit == head);
    CHECK(every[3].name == head.substr(0, 12));
    // A FROM off the branch's line, a ref that could be read as an option.
    test::sh(t.tree,
             "git checkout -q -b other t04 && git -c user.name=t -c user.email=t@t "
             "commit -q --allow-empty -m aside && git checkout -q main");
    const std::string aside = test::sh(t.tree, "git rev-parse other");
    CHECK_THROWS_AS(branch_points(t.tree, aside, head, {"tag", false}, scratch), UsageError);
    CHECK_THROWS_AS(resolve_commit(t.tree, "--all", "--from", scratch), UsageError);
    CHECK_THROWS_AS(resolve_commit(t.tree, "no-such-tag", "--from", scratch), UsageError);
    CHECK(resolve_commit(t.tree, "t12", "--from", scratch) == t.commits[12]);
}

TEST_CASE(
    "track: the step between two tags found, confirmed, bisected to its commit and mailed once, "
    "the point that does not build skipped, a rerun measures nothing, a new tag is one point",
    "[track]") {
    Tracking k;
    const std::string before = k.t.stand_in.state();
    // A fleet's shared database: two other hosts have the same points, one
    // with the step and one without.
    seed_other_host(k, "host-b", true);
    seed_other_host(k, "host-c", false);
    const TrackState s = run_track(k.options(), k.bench, k.quiet);
    check_the_answer(k, s);
    const std::string mail = test::unwrapped(test::slurp(k.mails().front()));
    INFO(mail);
    // What the mail says of each host, from its name to the next's (the
    // lines unwrapped, each host's joined to the next).
    const auto b = mail.find(" host-b ("), c = mail.find(" host-c (");
    REQUIRE(b != std::string::npos);
    REQUIRE(c != std::string::npos);
    const std::string of_b = mail.substr(b, c - b), of_c = mail.substr(c, mail.find('\n', c) - c);
    CHECK_THAT(of_b, Catch::Contains("): +") &&
                         Catch::Contains("between the same points (medians): a change point "
                                         "there too"));
    CHECK_THAT(of_c, Catch::Contains("between the same points (medians): no change point there, "
                                     "over 7 points"));
    CHECK(k.t.stand_in.state() == before);
    // Each point measured once, the change compared once.
    for (const auto& p : s.points)
        if (p.status == PointStatus::stored)
            CHECK(k.bench.count("point " + p.commit + " done") == 1);
    CHECK(k.bench.count("compare " + k.t.commits[12] + " " + k.t.commits[16] + " done") == 1);
    const std::string status = track_status_text(s, 0);
    CHECK_THAT(status, Catch::Contains("points: 8, 7 stored, 1 failed, 0 to do"));
    CHECK_THAT(status,
               Catch::Contains("t08 " + k.t.commits[8].substr(0, 12) + ": failed: does not build"));
    CHECK_THAT(status, Catch::Contains("mailed, first bad commit " +
                                       k.t.commits[TrackedTree::kStep].substr(0, 12)));

    // A rerun with nothing new measures nothing and mails nothing.
    int measured = k.bench.lines();
    check_the_answer(k, run_track(k.options(), k.bench, k.quiet));
    CHECK(k.bench.lines() == measured);

    // A new tag is one new point, and one made later on an older commit is
    // a point in its place on the line; the same change is not mailed again.
    k.t.add_commit(31);
    k.t.add_commit(32);
    k.t.tag(32);
    k.t.tag(2);
    measured = k.bench.lines();
    TrackOptions o = k.options();
    o.from.clear();  // the state's
    const TrackState again = run_track(o, k.bench, k.quiet);
    REQUIRE(again.points.size() == 10);
    CHECK(again.points[1].name == "t02");
    CHECK(again.points.back().name == "t32");
    for (const auto& p : again.points) CHECK(p.status != PointStatus::pending);
    CHECK(k.bench.lines() == measured + 4);  // two runs begun and done
    CHECK(k.mails().size() == 1);
    CHECK(again.changes.size() == 1);
    CHECK(test::leftover_processes().empty());
}

TEST_CASE(
    "track: a change the series placed one point off (a point measured on a bad day) is not "
    "confirmed there, and is found, confirmed and bisected between the neighbouring pair",
    "[track]") {
    Tracking k(18);  // the step between t16 and t20
    // t16's own run on a bad day: as slow as the points after the step, so
    // the series puts its change between t12 and t16.
    k.bench.point_offsets[k.t.commits[16]] = 1.0;
    const TrackState s = run_track(k.options(), k.bench, k.quiet);
    INFO(track_status_text(s, 0));
    REQUIRE(s.changes.size() >= 2);
    const TrackChange& shown = s.changes.front();
    CHECK(shown.before == k.t.commits[12]);
    CHECK(shown.after == k.t.commits[16]);
    CHECK(shown.status == ChangeStatus::not_confirmed);
    // Measured in parts of 5 rounds until the ends' bound: 10 rounds.
    CHECK_THAT(shown.confirm_why, Catch::Contains("cannot tell the ends apart after 10 rounds"));
    CHECK(fs::exists(k.options().folder / shown.confirm_folder / "part-2"));
    const auto real = std::find_if(s.changes.begin(), s.changes.end(), [&](const auto& c) {
        return c.before == k.t.commits[16] && c.after == k.t.commits[20];
    });
    REQUIRE(real != s.changes.end());
    CHECK(real->neighbour_of == k.t.commits[12] + ".." + k.t.commits[16]);
    CHECK(real->status == ChangeStatus::mailed);
    CHECK(real->first_bad == k.t.commits[18]);
    REQUIRE(k.mails().size() == 1);
    const std::string mail = test::unwrapped(test::slurp(k.mails().front()));
    INFO(mail);
    CHECK_THAT(mail, Catch::Contains("could not tell them apart"));
    // Its other neighbour (t04, t12: the failing t08 is no point) was not confirmed either.
    for (const auto& c : s.changes)
        if (&c != &*real && &c != &shown) CHECK(c.status == ChangeStatus::not_confirmed);
    CHECK(test::leftover_processes().empty());
}

TEST_CASE(
    "track: killed (SIGKILL) after every step and in the middle of its runs, it resumes, "
    "measures nothing twice that was done, and mails once",
    "[track]") {
    Tracking k;
    const std::string before = k.t.stand_in.state();
    kills_log = k.scratch / "kills.log";
    // Each step of the track in its order, and how a forked track is cut
    // there: right after its state says so (SIGKILL in the save's hook), or
    // in the middle of the run that step starts (SIGKILL in the second turn
    // of the run after that save). Each forked track goes to its kill; the
    // next one takes the track on; the last is not killed.
    const std::vector<std::pair<std::string, bool>> cuts = {
        {"measuring", false},  {"measuring", true},  {"measured", false},
        {"stored", false},     {"failed", false},    {"found", false},
        {"confirming", false}, {"confirming", true}, {"bisecting", false},
        {"bisecting", true},   {"", false}};
    for (const auto& [phase, mid_run] : cuts) {
        const pid_t child = fork();
        REQUIRE(child >= 0);
        if (child == 0) {
            int code = 0;
            try {
                int saves = 0;
                TrackOptions o = k.options();
                o.saved = [&, phase = phase, mid_run = mid_run](const TrackState& state) {
                    last_phase = phase_of(state);
                    ++saves;
                    if (last_phase != phase) return;
                    if (mid_run)
                        turns_before_kill = 1;  // in the run this step starts
                    else if (saves >= 2)        // past the points listed: a step taken
                        killed_here("after a step");
                };
                run_track(o, k.bench, k.quiet);
            } catch (...) {
                code = 3;
            }
            _exit(code);
        }
        int status = 0;
        REQUIRE(waitpid(child, &status, 0) == child);
        INFO("cut at " << phase << (mid_run ? " mid-run" : " after a step"));
        if (phase.empty()) {
            CHECK(WIFEXITED(status));
            CHECK(WEXITSTATUS(status) == 0);
        } else {
            CHECK(WIFSIGNALED(status));
        }
    }
    // Every cut was where it was meant to be.
    std::set<std::string> cut;
    {
        std::ifstream in(kills_log);
        for (std::string line; std::getline(in, line);) cut.insert(line);
    }
    INFO(test::slurp(kills_log));
    for (const auto& [phase, mid_run] : cuts)
        if (!phase.empty()) CHECK(cut.count(phase + (mid_run ? " mid-run" : " after a step")) == 1);
    const TrackState s = read_track_state(k.options().folder / kTrackStateFile);
    check_the_answer(k, s);
    // A point's run that was done is never taken again: only one a kill cut.
    for (const auto& p : s.points)
        if (p.status == PointStatus::stored)
            CHECK(k.bench.count("point " + p.commit + " done") == 1);
    // The comparison cut in its run was taken again, once.
    CHECK(k.bench.count("compare " + k.t.commits[12] + " " + k.t.commits[16] + " done") == 1);
    CHECK(k.t.stand_in.state() == before);
    // The resumed run again: nothing.
    const int measured = k.bench.lines();
    run_track(k.options(), k.bench, k.quiet);
    CHECK(k.bench.lines() == measured);
    CHECK(test::leftover_processes().empty());
}

TEST_CASE(
    "track --boot: each run started and left to the machine's reboots, the track taking it on at "
    "its next start, the same answer, each point measured once, one mail",
    "[track]") {
    Tracking k;
    k.bench.across_reboots = true;
    TrackState s;
    int starts = 0;
    for (; starts < 60; ++starts) {
        const int before = k.bench.count("started across reboots");
        s = run_track(k.options(), k.bench, k.quiet);
        // Each start of the track takes one run across reboots at most
        // (the machine reboots under it then).
        const int started = k.bench.count("started across reboots") - before;
        CHECK(started <= 1);
        if (started == 0) break;
        // Between boots the state says where it stands: one point or
        // change under way, none of it begun afresh.
        const auto measuring = std::count_if(s.points.begin(), s.points.end(), [](auto& p) {
            return p.status == PointStatus::measuring;
        });
        const auto acting = std::count_if(s.changes.begin(), s.changes.end(), [](auto& c) {
            return c.status == ChangeStatus::confirming || c.status == ChangeStatus::bisecting;
        });
        CHECK(measuring + acting == 1);
    }
    check_the_answer(k, s);
    // 7 points (one does not build), one confirmation part, one bisection,
    // each started once and found over at the next start.
    CHECK(k.bench.count("started across reboots") == 9);
    CHECK(starts == 9);
    for (const auto& p : s.points) {
        if (p.status != PointStatus::stored) continue;
        CHECK(k.bench.count("point " + p.commit + " done") == 1);
        CHECK(p.attempts == 1);
    }
    CHECK(s.changes.front().confirm_attempts == 1);
    CHECK(test::leftover_processes().empty());
}

TEST_CASE(
    "track: a bisection stopped past its time bound leaves its change without an answer, said, "
    "no mail, not taken again",
    "[track]") {
    Tracking k;
    k.bench.bisect_stops = "its run took longer than 5 s: stopped (contest: step 2 ...)";
    const TrackState s = run_track(k.options(), k.bench, k.quiet);
    REQUIRE(s.changes.size() == 1);
    CHECK(s.changes[0].status == ChangeStatus::no_answer);
    CHECK_THAT(s.changes[0].why, Catch::Contains("the bisection was stopped: its run took longer "
                                                 "than 5 s") &&
                                     Catch::Contains("its state is kept in " +
                                                     (k.options().folder / "changes").string()));
    CHECK(k.mails().empty());
    CHECK(k.bench.count("bisect " + k.t.commits[12] + " " + k.t.commits[16] + " begun") == 1);
    // The robot moves on: a rerun neither bisects again nor mails.
    const int measured = k.bench.lines();
    const TrackState again = run_track(k.options(), k.bench, k.quiet);
    CHECK(again.changes[0].status == ChangeStatus::no_answer);
    CHECK(k.bench.lines() == measured);
    CHECK(k.mails().empty());
}

// The first start stopped right after it records a change (as a timer's
// start that ends there), a person marks it between the two starts.
struct ChangeFound : std::runtime_error {
    ChangeFound() : std::runtime_error("stopped where the change was found") {}
};

TEST_CASE(
    "track: a change marked invalid (or acknowledged) between two starts is never confirmed, "
    "bisected or mailed, and one someone is investigating is",
    "[track][triage]") {
    for (const auto status : {history::TriageStatus::invalid, history::TriageStatus::acknowledged,
                              history::TriageStatus::investigating}) {
        const std::string name = history::triage_status_name(status);
        INFO(name);
        Tracking k;
        TrackOptions o = k.options();
        o.saved = [](const TrackState& s) {
            for (const auto& c : s.changes)
                if (c.status == ChangeStatus::found) throw ChangeFound();
        };
        CHECK_THROWS_AS(run_track(o, k.bench, k.quiet), ChangeFound);
        {
            history::HistoryDb db(o.db, history::OpenFor::writing);
            const auto recorded = history::recorded_changes(db);
            REQUIRE(recorded.size() == 1);
            CHECK(recorded.front().before_commit == k.t.commits[12]);
            CHECK(recorded.front().after_commit == k.t.commits[16]);
            CHECK_THAT(recorded.front().by, Catch::StartsWith("contest track@"));
            history::TriageRequest r;
            r.change = recorded.front().id;
            r.status = status;
            r.note = "a noisy host";
            r.by = "ann@lab";
            history::triage_change(db, r, "2026-12-05T06:00:00Z");
        }
        o.saved = {};
        const TrackState s = run_track(o, k.bench, k.quiet);
        INFO(track_status_text(s, 0));
        for (const auto& p : s.points) CHECK(p.status != PointStatus::pending);
        const std::string compared = "compare " + k.t.commits[12] + " " + k.t.commits[16] + " done";
        if (history::robot_leaves(status)) {
            REQUIRE(s.changes.size() == 1);
            CHECK(s.changes.front().status == ChangeStatus::found);
            CHECK(k.bench.count(compared) == 0);
            CHECK(k.bench.count("bisect " + k.t.commits[12] + " " + k.t.commits[16] + " begun") ==
                  0);
            CHECK(k.mails().empty());
            // A third start leaves it too.
            const int measured = k.bench.lines();
            run_track(o, k.bench, k.quiet);
            CHECK(k.bench.lines() == measured);
            CHECK(k.mails().empty());
        } else {
            // Someone looking: the robot's confirmation and bisection help.
            CHECK(k.bench.count(compared) == 1);
            CHECK(k.mails().size() == 1);
        }
    }
    CHECK(test::leftover_processes().empty());
}

TEST_CASE(
    "track: a second track of the same database (another host's robot) confirms and bisects the "
    "change too, and does not mail its alert again",
    "[track][triage]") {
    Tracking k;
    check_the_answer(k, run_track(k.options(), k.bench, k.quiet));
    TrackOptions o = k.options();
    o.folder = k.scratch / "track-2";
    o.mail_dir = k.scratch / "mail-2";
    const TrackState second = run_track(o, k.bench, k.quiet);
    INFO(track_status_text(second, 0));
    REQUIRE(!second.changes.empty());
    const TrackChange& c = second.changes.front();
    CHECK(c.first_bad == k.t.commits[TrackedTree::kStep]);
    CHECK(c.status == ChangeStatus::already_mailed);
    CHECK(k.bench.count("compare " + k.t.commits[12] + " " + k.t.commits[16] + " done") == 2);
    std::error_code ec;
    CHECK((!fs::exists(o.mail_dir, ec) || fs::is_empty(o.mail_dir, ec)));
    CHECK(k.mails().size() == 1);
}

TEST_CASE("track: one contest a track, another question refused, the state read as untrusted",
          "[track]") {
    Tracking k;
    TrackOptions o = k.options();
    fs::create_directories(o.folder);
    {
        auto held = FileLock::try_take(o.folder / "track.lock");
        REQUIRE(held);
        CHECK_THROWS_AS(run_track(o, k.bench, k.quiet), TrackBusy);
    }
    CHECK(k.bench.lines() == 0);
    // A start needs --from.
    TrackOptions no_from = o;
    no_from.from.clear();
    CHECK_THROWS_WITH(run_track(no_from, k.bench, k.quiet), Catch::Contains("give --from"));

    // A state of another question: refused naming what differs, nothing measured.
    TrackState s;
    s.tree = o.tree.string();
    s.branch = "main";
    s.from = k.t.commits[0];
    s.every = "4";
    s.measure = "time:cpu_load";
    s.run_words = o.run_words;
    s.point_rounds = 3;
    s.confirm_rounds = 5;
    write_track_state(o.folder / kTrackStateFile, s);
    CHECK_THROWS_WITH(run_track(o, k.bench, k.quiet), Catch::Contains("--every 4, not tag"));
    CHECK(k.bench.lines() == 0);

    // Round trip, then each refusal one line naming the field.
    TrackPoint p;
    p.commit = k.t.commits[4];
    p.name = "t04";
    p.status = PointStatus::stored;
    p.folder = "points/002-x";
    p.file = "points/002-x/point/f.json";
    s.points.push_back(p);
    const std::string text = track_state_text(s);
    CHECK(track_state_text(track_state_from_text(text, "t")) == text);
    const auto refused = [&](const std::string& from, const std::string& to,
                             const std::string& says) {
        std::string bad = text;
        const auto at = bad.find(from);
        REQUIRE(at != std::string::npos);
        bad.replace(at, from.size(), to);
        INFO(bad);
        try {
            track_state_from_text(bad, "track.json");
            FAIL("accepted");
        } catch (const UsageError& e) {
            CHECK_THAT(e.what(), Catch::Contains(says));
            CHECK(std::string(e.what()).find('\n') == std::string::npos);
        }
    };
    refused("\"points/002-x\"", "\"../../etc\"", "points[0].folder");
    refused("\"points/002-x/point/f.json\"", "\"/etc/passwd\"", "points[0].file");
    refused("\"stored\"", "\"done\"", "no point status");
    refused("\"" + k.t.commits[4] + "\"", "\"HEAD\"", "points[0].commit");
    refused("\"every\": \"4\"", "\"every\": \"-4\"", "every");
    refused("\"point_rounds\": 3", "\"point_rounds\": -3", "point_rounds");
    refused("\"schema\": 3", "\"schema\": 4", "schema: 4 is newer than this contest's 3");
    refused("\"schema\": 3", "\"schema\": 1", "schema");
    refused("\"boot\": false", "\"boot\": 0", "boot");
    // A schema 2 state (before --boot) is a track of guests.
    std::string two = text;
    two.replace(two.find("\"schema\": 3"), 11, "\"schema\": 2");
    two.erase(two.find("\"boot\": false,"), 15);
    CHECK_FALSE(track_state_from_text(two, "t").boot);
    refused("\"mailed\": []", "\"mailed\": [], \"extra\": 1", "extra");
    const fs::path link = o.folder / "link.json";
    fs::create_symlink(o.folder / kTrackStateFile, link);
    CHECK_THROWS_AS(read_track_state(link), UsageError);
}

TEST_CASE("contest track: its refusals are one line and exit 2, --status says where it stands",
          "[track][e2e]") {
    TrackedTree t;
    const fs::path dir = t.stand_in.scratch.path();
    const auto refused = [&](const std::vector<std::string>& args, const std::string& says) {
        const test::Outcome o = test::run_contest_binary(args, dir, dir);
        INFO(o.out << o.err);
        CHECK(o.exit_code == 2);
        CHECK_THAT(o.err, Catch::Contains(says));
    };
    refused({"track"}, "give the TREE");
    refused({"track", t.tree.string(), "--every", "0"}, "--every '0'");
    refused({"track", dir.string(), "--from", "t00", "--", "--workdir", (dir / "work").string(),
             "cpu_load"},
            "is no git work tree");
    refused({"track", t.tree.string(), "--from", "t00", "--", "--kernel", "a=/x", "cpu_load"},
            "--kernel is the track's to set");
    refused({"track", t.tree.string(), "--from", "t00", "--measure", "ratio:cpu_load", "--",
             "no_load", "cpu_load"},
            "ratio");
    refused({"track", "--status", "--results", (dir / "none").string()}, "no track in");
    // A bad run word fails the track's start, in one line, before its
    // folder is made: one the parser refuses, and one a point's run refuses
    // (--boot-append of no label the run has), which each point's run
    // refused in turn before the words were parsed once into its config.
    const fs::path start = dir / "start";
    refused({"track", t.tree.string(), "--from", "t00", "--results", start.string(), "--",
             "--workdir", (dir / "work").string(), "--no-such-word", "cpu_load"},
            "--no-such-word");
    refused({"track", t.tree.string(), "--from", "t00", "--results", start.string(), "--",
             "--workdir", (dir / "work").string(), "--boot-append=nolabel=quiet", "cpu_load"},
            "contest track: the run words: --boot-append nolabel=...: no --boot or --kernel has "
            "that label");
    CHECK_FALSE(fs::exists(start));
    refused({"track", t.tree.string(), "--from", "nothing-here", "--results", (dir / "tr").string(),
             "--", "--workdir", (dir / "work").string(), "cpu_load"},
            "'nothing-here' is no commit");

    TrackState s;
    s.tree = t.tree.string();
    s.branch = "main";
    s.from = t.commits[0];
    s.every = "tag";
    s.measure = "time:cpu_load";
    s.point_rounds = 3;
    s.confirm_rounds = 5;
    TrackPoint p;
    p.commit = t.commits[0];
    p.name = "t00";
    p.status = PointStatus::stored;
    p.seconds = 40;
    s.points = {p, p};
    s.points[1].commit = t.commits[4];
    s.points[1].name = "t04";
    s.points[1].status = PointStatus::measuring;
    fs::create_directories(dir / "tr");
    write_track_state(dir / "tr" / kTrackStateFile, s);
    const test::Outcome o = test::run_contest_binary(
        {"track", "--status", "--results", (dir / "tr").string()}, dir, dir);
    INFO(o.out << o.err);
    CHECK(o.exit_code == 0);
    CHECK_THAT(o.out,
               Catch::Contains(
                   "points: 2, 1 stored, 0 failed, 1 to do (about 40.0 s left at 40.0 s a point)"));
    CHECK_THAT(o.out, Catch::Contains("2. t04 " + t.commits[4].substr(0, 12) + ": measuring"));
    CHECK_THAT(o.out, Catch::Contains("not running now"));
    CHECK(test::leftover_processes().empty());
}

TEST_CASE(
    "contest track on the stand-in tree: each point built once by its contest run --kernel, one "
    "that does not build and one whose guest does not come up recorded and skipped, the tree "
    "untouched",
    "[track][e2e]") {
    test::require_program("qemu-system-x86_64");
    test::StandIn s;
    const fs::path dir = s.scratch.path();
    test::sh(s.tree, "git tag t0 " + s.base + " && git tag t1 " + s.next +
                         " && echo 1 > fail && git add fail && git -c user.name=t -c "
                         "user.email=t@t commit -qm 'does not build' && git tag t2");
    const std::string before = s.state();
    const std::vector<std::string> args = {"track",
                                           s.tree.string(),
                                           "--from",
                                           "t0",
                                           "--results",
                                           (dir / "track").string(),
                                           "--",
                                           "--workdir",
                                           (dir / "work").string(),
                                           "--vm-accel",
                                           "tcg",
                                           "-w",
                                           "command",
                                           "--workload-cmd",
                                           "true",
                                           "no_load",
                                           "cpu_load"};
    test::Outcome o = test::run_contest_binary(args, dir, dir);
    INFO(o.out << o.err);
    CHECK(o.exit_code == 0);
    const TrackState state = read_track_state(dir / "track" / kTrackStateFile);
    REQUIRE(state.points.size() == 3);
    for (const auto& p : state.points) CHECK(p.status == PointStatus::failed);
    // Built, booted, and its guest refused the stand-in's image: no run came back.
    CHECK_THAT(state.points[0].why, Catch::Contains("no run of cpu_load came back"));
    // Its run was `contest run --journal` of the journal the track made in
    // its folder, which the run made its own: its file named there.
    const RunJournal ran =
        read_run_journal(dir / "track" / state.points[0].folder / kRunJournalName);
    REQUIRE(ran.results.size() == 1);
    CHECK(ran.results[0].parent_path() == dir / "track" / state.points[0].folder / "point");
    CHECK(fs::exists(ran.results[0]));
    CHECK(ran.config.sinks.empty());
    CHECK_THAT(state.points[2].why, Catch::Contains("the stand-in fails here"));
    CHECK_THAT(o.err, Catch::Contains("point t2 skipped"));
    CHECK_THAT(o.out, Catch::Contains("points: 3, 0 stored, 3 failed"));
    // t0 and t1, each a run of its kernel alone: two builds.
    CHECK(s.builds_count() == "2");
    o = test::run_contest_binary(args, dir, dir);
    CHECK(o.exit_code == 0);
    CHECK(s.builds_count() == "2");
    CHECK(s.state() == before);
    CHECK(test::leftover_processes().empty());
}

TEST_CASE(
    "track --send-to: the mail handed to the mail program once, with its To: line, a program "
    "that fails is said, and the next run sends it",
    "[track]") {
    Tracking k;
    // A stand-in sendmail: its words and what it was given, a call a line;
    // it fails while `refuse` is there.
    const fs::path log = k.scratch / "sendmail.calls", refuse = k.scratch / "refuse";
    const fs::path program = k.scratch / "bin" / "sendmail";
    test::put_file(program,
                   "#!/bin/sh\n[ -e '" + refuse.string() +
                       "' ] && exit 75\n{ echo \"ARGS $*\"; cat; "
                       "echo; } >> '" +
                       log.string() + "'\n",
                   true);
    TrackOptions o = k.options();
    o.send_to = {"lkml@example.org", "author@example.org"};
    o.sendmail = {program.string()};
    test::put_file(refuse, "");
    TrackState s = run_track(o, k.bench, k.quiet);
    REQUIRE(s.mailed.size() == 1);
    CHECK(s.sent.empty());  // the program failed: not recorded as sent
    CHECK_FALSE(fs::exists(log));
    REQUIRE(k.mails().size() == 1);
    fs::remove(refuse);
    s = run_track(o, k.bench, k.quiet);
    CHECK(s.sent == s.mailed);
    const std::string calls = test::slurp(log);
    INFO(calls);
    CHECK(calls.rfind("ARGS -oi -- lkml@example.org author@example.org\n"
                      "To: lkml@example.org, author@example.org\nSubject: [contest] track: ",
                      0) == 0);
    CHECK_THAT(calls, Catch::Contains(test::slurp(k.mails().front())));
    // Once: a third run sends nothing.
    run_track(o, k.bench, k.quiet);
    CHECK(test::slurp(log) == calls);
    CHECK(test::leftover_processes().empty());
}

TEST_CASE("track --send-to refuses what is no address, in one line", "[track]") {
    test::ScratchDir dir("track-send-to");
    for (const char* bad : {"-oi", "no at sign", "a@b c", "x"}) {
        INFO(bad);
        const auto o = test::run_contest_binary({"track", dir.path().string(), "--from", "HEAD",
                                                 std::string("--send-to=") + bad, "--", "no_load"},
                                                dir.path(), dir.path());
        CHECK(o.exit_code == 2);
        CHECK(o.err.find("--send-to '") != std::string::npos);
        CHECK(o.err.find("not a mail address") != std::string::npos);
    }
}
