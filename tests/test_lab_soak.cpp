// A lab as a soak test (issue 69): three hosts, each a forked child of the
// test running the robot's loop (run_track) over the stand-in bench
// (fake_track_bench.h), each with its own hostname (a UTS namespace as
// root, else its files' system.hostname), its own clone of the tree, results
// folder and workdir, all into one PostgreSQL of the test's own. A step is
// planted at a known commit and each host's speed drifts in a slow random
// walk. The robot's starts are repeated starts of the loop (each start sees
// the branch grown by a tag or three), and faults come at random moments,
// seeded, the seed printed: the server stopped for a while and started
// again, a host's loop SIGKILLed by pid mid-point and mid-bisection, one
// host's results file system filled (a small tmpfs, as root), a second track
// of the same tree and database started beside the first. At the end: every
// point of every host in the database once, every run of every file once,
// nothing owed, the step found, confirmed, bisected and mailed, no mail for
// the drift, no lock held, no process and no server left.
//
// Hidden ([.lab-soak]): ctest's lab_soak (label long, `make test-long`) runs
// the short one; bench/lab_soak.sh the long one (CONTEST_SOAK_POINTS=40).
// CONTEST_SOAK_SEED replays a run.
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <soci/soci.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "contest/history/db_session.h"
#include "contest/history/history_db.h"
#include "contest/history/owed_saves.h"
#include "contest/history/schema.h"
#include "contest/history/triage.h"
#include "contest/sys/errors.h"
#include "contest/sys/file_lock.h"
#include "contest/sys/progress.h"
#include "contest/track/track_state.h"
#include "contest/track/tracking.h"
#include "fake_track_bench.h"
#include "lab_soak.h"
#include "lab_soak_faults.h"
#include "postgres_server.h"
#include "test_helpers.h"

using namespace contest;
using namespace contest::track;
namespace fs = std::filesystem;

namespace contest::lab_soak {

struct Counts {
    long long points = 0, runs = 0, mails = 0, starts = 0, owed_caught_up = 0;
};

std::string text_if_there(const fs::path& file) {
    std::error_code ec;
    return fs::exists(file, ec) ? test::slurp(file) : "";
}

// A migration of a contest newer than this one, applied by hand: a column
// added, its row of schema_version saying that every older contest may
// still read and write. False when the server is away (the next look tries).
bool add_newer_migration(Lab& lab) {
    try {
        history::HistoryDb db(history::db_target(lab.uri(), lab.dir()), history::OpenFor::reading);
        const int newer = history::current_schema_version() + 1;
        db.in_transaction([&] {
            session_of(db) << "ALTER TABLE files ADD COLUMN soak_newer TEXT NOT NULL DEFAULT ''";
            session_of(db) << "INSERT INTO schema_version (version, oldest_reader, oldest_writer) "
                              "VALUES (:v, 1, 1)",
                soci::use(newer);
        });
        std::cout << "lab soak: a newer contest's migration (version " << newer
                  << ", additive) applied" << std::endl;
        return true;
    } catch (const std::exception& e) {
        return false;
    }
}

// What the lab must have come to, however its faults fell.
Counts check_the_lab(Lab& lab, Faults& faults) {
    Counts counts;
    const std::string step = lab.step_commit();
    history::HistoryDb db(history::db_target(lab.uri(), lab.dir()), history::OpenFor::reading);
    long long files_of_hosts = 0, mailed = 0;
    for (Host& h : lab.hosts()) {
        INFO(h.name);
        counts.starts += h.starts;
        const TrackState s = read_track_state(h.folder / kTrackStateFile);
        INFO(track_status_text(s, 0));
        // Every point stored.
        CHECK(s.points.size() == static_cast<std::size_t>(lab.settings().points));
        std::set<std::string> stored;
        for (const auto& p : s.points) {
            CHECK(p.status == PointStatus::stored);
            if (p.status == PointStatus::stored) stored.insert(p.commit);
        }
        // The step found, confirmed and bisected to its commit (mailed by
        // one host, its group's mail claimed: the others' already mailed);
        // nothing else mailed (the drift); nothing left under way but the
        // change a person marked invalid, never confirmed.
        const bool triaged_here = faults.triaged_host() == &h;
        int found = 0;
        for (const auto& c : s.changes) {
            const bool answered =
                c.status == ChangeStatus::mailed || c.status == ChangeStatus::already_mailed;
            found += answered && c.first_bad == step;
            if (answered) CHECK(c.first_bad == step);
            mailed += c.status == ChangeStatus::mailed;
            // The marked change, or a later look's split within the
            // tolerance of its place (history/triage.h: the same change).
            const auto place = [&](const std::string& commit) {
                for (std::size_t i = 0; i < s.points.size(); ++i)
                    if (s.points[i].commit == commit) return static_cast<long>(i);
                return -100L;
            };
            // (A change bisected to the planted step is the step, however
            // near the marked one it lies: a jump a point or two before the
            // step leaves the two within the tolerance.)
            const bool marked = triaged_here && c.first_bad != step &&
                                std::labs(place(c.after) - place(faults.triaged_pair().second)) <=
                                    static_cast<long>(history::kPlaceTolerance);
            if (marked) {
                CHECK(c.status == ChangeStatus::found);
                CHECK(c.confirm_attempts == 0);
                const std::string measured = test::slurp(h.dir / "measured.log");
                CHECK_THAT(measured,
                           !Catch::Contains("compare " + c.before + " " + c.after + " done"));
                CHECK_THAT(measured, !Catch::Contains("bisect " + c.before + " " + c.after));
            } else {
                CHECK(c.status != ChangeStatus::found);
            }
            CHECK(c.status != ChangeStatus::confirming);
            CHECK(c.status != ChangeStatus::bisecting);
        }
        CHECK(found >= 1);
        // Each point in the database once, from this host's results
        // folder, its machine the host's; each of its runs once.
        std::map<std::string, long long> by_commit;
        const std::string ours = h.folder.string() + "/%";
        soci::rowset<soci::row> rows =
            (session_of(db).prepare << "SELECT k.commit_id, m.name, f.path, f.id FROM files f "
                                       "JOIN kernels k ON f.kernel_id = k.id JOIN machines m ON "
                                       "f.machine_id = m.id WHERE f.path LIKE :ours",
             soci::use(ours));
        for (const soci::row& r : rows) {
            const std::string commit = r.get<std::string>(0), path = r.get<std::string>(2);
            ++by_commit[commit];
            ++files_of_hosts;
            CHECK_THAT(r.get<std::string>(1), Catch::StartsWith(h.name + " ("));  // its machine
            long long runs = 0;
            const long long id = r.get<long long>(3);
            session_of(db) << "SELECT COUNT(*) FROM runs WHERE file_id = :id", soci::use(id),
                soci::into(runs);
            const auto file = nlohmann::json::parse(test::slurp(path));
            INFO(path);
            CHECK(runs == static_cast<long long>(file.at("runs").size()));
            counts.runs += runs;
        }
        for (const auto& [commit, n] : by_commit) {
            INFO(commit);
            CHECK(n == 1);
            CHECK(stored.count(commit) == 1);
        }
        CHECK(by_commit.size() == stored.size());
        counts.points += static_cast<long long>(by_commit.size());
        // No lock held: the track's folder's, the tree's and database's.
        CHECK(FileLock::held_by(h.folder / "track.lock") == 0);
        std::error_code ec;
        for (const auto& e : fs::directory_iterator(h.dir / "locks", ec)) {
            INFO(e.path());
            CHECK(FileLock::held_by(e.path()) == 0);
        }
    }
    // Nor a machine-wide one (where a contest keys the one-track lock by
    // the machine, the tree and the database) held by any start of the lab.
    for (const char* folder : {"/run/lock/contest", "/tmp/contest-locks"}) {
        std::error_code ec;
        for (const auto& e : fs::directory_iterator(folder, ec)) {
            const pid_t holder = FileLock::held_by(e.path());
            INFO(e.path() << " held by " << holder);
            CHECK(std::find(lab.started().begin(), lab.started().end(), holder) ==
                  lab.started().end());
        }
    }
    // Nothing in the database but the hosts' points (the second track's none).
    long long files = 0, runs = 0;
    session_of(db) << "SELECT COUNT(*) FROM files", soci::into(files);
    session_of(db) << "SELECT COUNT(*) FROM runs", soci::into(runs);
    CHECK(files == files_of_hosts);
    CHECK(runs == counts.runs);
    // One mail for the step, covering its hosts; none for the drift.
    const std::string sent = text_if_there(lab.dir() / "sent.log");
    std::size_t at = 0;
    while ((at = sent.find("ARGS ", at)) != std::string::npos) {
        ++counts.mails;
        const std::size_t subject = sent.find("Subject: ", at);
        REQUIRE(subject != std::string::npos);
        const std::string line = sent.substr(subject, sent.find('\n', subject) - subject);
        INFO(line);
        CHECK_THAT(line, Catch::Contains(step.substr(0, 12)));
        at = subject;
    }
    CHECK(mailed == 1);
    CHECK(counts.mails == 1);
    // Nothing owed: every point a start left measured is stored (checked
    // above, once each), and no save is on any results folder's list.
    for (Host& h : lab.hosts()) {
        counts.owed_caught_up += static_cast<long long>(h.owed.size());
        std::error_code ec;
        for (auto it = fs::recursive_directory_iterator(h.dir, ec);
             !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
            INFO(it->path());
            CHECK(it->path().filename() != history::kOwedFile);
        }
    }
    return counts;
}

}  // namespace contest::lab_soak

namespace contest::lab_soak {

void run_soak(const fs::path& pg_bin) {
    const Settings settings = settings_from_environment();
    std::cout << "lab soak: seed " << settings.seed << " (CONTEST_SOAK_SEED replays it), "
              << settings.points << " points a host" << std::endl;
    test::adopt_orphans();
    Lab lab(settings, pg_bin);
    Faults faults(lab);
    const auto began = Clock::now();
    bool newer_schema = false;
    const auto deadline = began + std::chrono::duration<double>(settings.budget_s);

    // The robot's starts, until every host has every point and acts on
    // nothing more, and every fault has met its moment.
    while (true) {
        bool all_settled = true;
        for (Host& h : lab.hosts()) {
            if (h.child > 0) {
                int status = 0;
                if (::waitpid(h.child, &status, WNOHANG) == h.child) {
                    h.child = -1;
                    const int code =
                        WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
                    ++h.exits[code];
                    // What this start owed the database (its next stores it).
                    std::error_code ec;
                    if (fs::exists(h.folder / kTrackStateFile, ec))
                        for (const auto& p : read_track_state(h.folder / kTrackStateFile).points)
                            if (p.status == PointStatus::measured) h.owed.insert(p.commit);
                    h.settled = code == kDone && h.tagged == settings.points &&
                                read_phase(h).stored >= settings.points;
                    h.next_start = Clock::now() + std::chrono::milliseconds(50 + lab.rng()() % 200);
                    faults.ended(h, code);
                }
            }
            if (h.child < 0 && !h.settled && Clock::now() >= h.next_start && !faults.holds(h)) {
                lab.give_tags(h, 1 + static_cast<int>(lab.rng()() % 3));
                h.child = lab.start(h, h.folder, "starts.log");
            }
            all_settled = all_settled && h.settled;
        }
        faults.step();
        // Half-way, a newer contest's migration lands (one that only adds, as
        // schema.h's rule lets older contests read and write on): from then
        // on every start is an older contest on a newer schema.
        if (!newer_schema && std::any_of(lab.hosts().begin(), lab.hosts().end(), [&](Host& h) {
                return read_phase(h).stored >= settings.points / 2;
            }))
            newer_schema = add_newer_migration(lab);
        if (all_settled && faults.all_met()) break;
        // Every point in and a fault still to come: it cannot come now.
        if (all_settled) {
            UNSCOPED_INFO(faults.log());
            FAIL("the lab settled before these faults met their moment: "
                 << faults.unmet() << " (seed " << settings.seed << ")");
        }
        if (Clock::now() > deadline) {
            for (Host& h : lab.hosts())
                UNSCOPED_INFO(h.name << ": " << h.starts << " starts, phase " << read_phase(h).phase
                                     << " " << read_phase(h).stored << ", settled " << h.settled
                                     << "\n"
                                     << test::slurp(h.dir / "starts.log"));
            UNSCOPED_INFO(faults.log() << "still to come: " << faults.unmet());
            for (Host& h : lab.hosts())
                if (h.child > 0) ::kill(h.child, SIGKILL);
            FAIL("the lab did not settle in " << settings.budget_s << " s (seed " << settings.seed
                                              << ")");
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    INFO(faults.log());
    const double soak_s = std::chrono::duration<double>(Clock::now() - began).count();

    // The next start of every host acts on nothing: nothing measured, no mail.
    const std::string sent_before = text_if_there(lab.dir() / "sent.log");
    for (Host& h : lab.hosts()) {
        const std::string measured = test::slurp(h.dir / "measured.log");
        int status = 0;
        const pid_t pid = lab.start(h, h.folder, "starts.log");
        REQUIRE(::waitpid(pid, &status, 0) == pid);
        INFO(h.name << "'s last start: " << test::slurp(h.dir / "starts.log"));
        CHECK(WIFEXITED(status));
        CHECK(WEXITSTATUS(status) == kDone);
        CHECK(test::slurp(h.dir / "measured.log") == measured);
    }
    CHECK(text_if_there(lab.dir() / "sent.log") == sent_before);

    const Counts counts = check_the_lab(lab, faults);
    // The newer schema's migration came, and every start after it read and
    // wrote on (the points all in, checked above), leaving it newer.
    CHECK(newer_schema);
    {
        history::HistoryDb db(history::db_target(lab.uri(), lab.dir()), history::OpenFor::reading);
        CHECK(db.schema_version() == history::current_schema_version() + 1);
    }
    const std::string pending = faults.pending_text();

    // No server left, then no process at all.
    const pid_t server = lab.server().pid();
    lab.server().shut();
    CHECK(::kill(server, 0) != 0);
    CHECK(test::leftover_processes().empty());
    std::cout << "lab soak: " << counts.points << " points, " << counts.runs << " runs, "
              << faults.injected() << " faults injected, " << counts.owed_caught_up
              << " owed saves caught up, " << counts.mails << " mails, " << counts.starts
              << " starts, " << static_cast<int>(soak_s) << " s (seed " << settings.seed << ")"
              << std::endl;
    std::cout << "  (a start's exit: 0 done, 3 the server down or the disk full, 4 busy, 6 "
                 "stopped for triage, 137 SIGKILL)\n";
    for (const Host& h : lab.hosts()) {
        std::cout << "  " << h.name << ": " << h.starts << " starts, their exits";
        for (const auto& [code, n] : h.exits) std::cout << " " << code << " x" << n;
        std::cout << "\n";
    }
    std::cout << faults.log() << std::flush;
    if (!pending.empty()) FAIL(pending);
}

}  // namespace contest::lab_soak

TEST_CASE(
    "a lab as a soak: three hosts' robots into one PostgreSQL through a server restarted, loops "
    "killed mid-point and mid-bisection, a full results file system, a second track beside the "
    "first; every point and run once, the step mailed, nothing left",
    "[.lab-soak]") {
    const auto bin = test::postgres_bin_dir();
    if (!bin) CONTEST_SKIP("no PostgreSQL server here (package postgresql)");
    if (::geteuid() != 0) CONTEST_SKIP("the soak's PostgreSQL runs as nobody: root needed");
    contest::lab_soak::run_soak(*bin);
}
