#pragma once
// The faults of the lab's soak (test_lab_soak.cpp), each at a random moment
// of its own (a count of the lab's stored points, drawn from the soak's
// seed): the server stopped for a while and started again, a host's loop
// SIGKILLed by pid mid-point and mid-bisection, one host's results file
// system filled, a second track of a host's tree and database started
// beside its first. Each is injected once, and said in the log.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "contest/history/triage.h"
#include "contest/sys/file_lock.h"
#include "contest/sys/utc_timestamp.h"
#include "lab_soak.h"

namespace contest::lab_soak {

class Faults {
  public:
    explicit Faults(Lab& lab) : lab_(lab), began_(Clock::now()) {
        const int total = lab.settings().points * static_cast<int>(lab.hosts().size());
        const auto between = [&](int low, int high) {
            return low + static_cast<int>(lab.rng()() % static_cast<unsigned>(high - low + 1));
        };
        const auto any_host = [&] { return &lab.hosts()[lab.rng()() % lab.hosts().size()]; };
        server_at_ = between(1, total / 3);
        kill_point_at_ = between(total / 4, total / 2);
        kill_point_host_ = any_host();  // the first asked; another when it has settled
        bisect_delay_ms_ = between(0, 60);
        full_at_ = between(2, total / 2);
        second_at_ = between(1, total - 3);
        second_host_ = any_host();  // the first asked; another when it has settled
        jump_host_ = any_host();
        // Three points a side at least (the change points' min_segment).
        jump_at_ = between(3, std::max(3, lab.settings().points / 2 - 3));
        if (!lab.tmpfs_host()) {
            full_met_ = true;
            note(
                "the full results file system: skipped (no tmpfs of the test's own here: not "
                "root, or no mount namespace)");
        }
    }

    // A host's start ended with `code`.
    void ended(const Host& h, int code) {
        if (full_ && &h == lab_.tmpfs_host() && code != kDone) ++failed_while_full_;
        if (&h == jump_host_ && code == kStoppedAtFound) triage_due_ = true;
    }
    // A host kept from starting now: the one whose change a person is to
    // mark before its next start.
    bool holds(const Host& h) const { return triage_due_ && &h == jump_host_; }
    bool all_met() const {
        return server_met_ && kill_point_met_ && kill_bisect_met_ && full_met_ && second_met_ &&
               triage_met_;
    }
    // The host whose change was marked invalid, and the change's two commits.
    const Host* triaged_host() const { return triage_met_ ? jump_host_ : nullptr; }
    const std::pair<std::string, std::string>& triaged_pair() const { return triaged_pair_; }
    int injected() const { return injected_; }
    // The faults that have not met their moment yet, named.
    std::string unmet() const {
        std::string out;
        const auto add = [&](bool met, const char* what) {
            if (!met) out += std::string(out.empty() ? "" : "; ") + what;
        };
        add(server_met_, "the server's restart");
        add(kill_point_met_, "the kill mid-point");
        add(kill_bisect_met_, "the kill mid-bisection");
        add(full_met_, "the full results file system");
        add(second_met_, "the second track");
        add(triage_met_,
            "the change marked invalid (its host's change before the step never "
            "found)");
        return out;
    }
    std::string log() const { return log_.str(); }
    // What this branch cannot check yet, one line each; "" when nothing.
    std::string pending_text() const { return pending_; }
    void pending(const std::string& line) { pending_ += "pending: " + line + "\n"; }

    void step() {
        int stored = 0;
        for (const Host& h : lab_.hosts()) stored += read_phase(h).stored;
        server(stored);
        kill_mid_point(stored);
        kill_mid_bisection();
        fill(stored);
        second_track(stored);
        jump_and_triage();
    }

  private:
    // Where the host's state stood at a kill: its point measuring, its
    // change bisecting (the state file is replaced whole, so it is read
    // whole whenever the kill lands).
    static std::string state_said(const Host& h) {
        try {
            const TrackState s = read_track_state(h.folder / kTrackStateFile);
            for (const auto& c : s.changes)
                if (c.status == ChangeStatus::bisecting) return "its state had a change bisecting";
            for (const auto& p : s.points)
                if (p.status == PointStatus::measuring)
                    return "its state had point " + p.name + " measuring";
            return "its state had nothing under way (" + phase_of(s) + ")";
        } catch (const std::exception& e) {
            return std::string("its state unread: ") + e.what();
        }
    }
    void note(const std::string& what) {
        const double t = std::chrono::duration<double>(Clock::now() - began_).count();
        log_ << "  " << static_cast<int>(t * 10) / 10.0 << " s: " << what << "\n";
    }

    void server(int stored) {
        if (server_met_ || stored < server_at_) return;
        if (!server_down_) {
            lab_.server().stop();
            server_down_ = true;
            up_at_ = Clock::now() + std::chrono::milliseconds(1500 + lab_.rng()() % 2500);
            ++injected_;
            note("the server stopped (" + std::to_string(stored) + " points stored)");
            return;
        }
        if (Clock::now() < up_at_) return;
        lab_.server().restart();
        server_down_ = false;
        server_met_ = true;
        note("the server started again");
    }

    // The host a fault picked, or the next one while it has settled (its
    // points all in: no loop of its to cut any more).
    Host*& unsettled(Host*& picked) {
        for (std::size_t i = 0; picked->settled && i < lab_.hosts().size(); ++i)
            picked = &lab_.hosts()[(static_cast<std::size_t>(picked - lab_.hosts().data()) + 1) %
                                   lab_.hosts().size()];
        return picked;
    }

    void kill_mid_point(int stored) {
        if (kill_point_met_ || stored < kill_point_at_) return;
        Host& h = *unsettled(kill_point_host_);
        test::put_file(h.dir / "slow-point", "");  // a window for the kill
        if (h.child <= 0) return;
        if (read_phase(h).phase != "measuring") return;
        ::kill(h.child, SIGKILL);
        for (const Host& any : lab_.hosts()) fs::remove(any.dir / "slow-point");
        kill_point_met_ = true;
        ++injected_;
        note(h.name + "'s loop (pid " + std::to_string(h.child) +
             ") SIGKILLed mid-point: " + state_said(h));
    }

    void kill_mid_bisection() {
        if (kill_bisect_met_) return;
        // Each batch held a while: a window for the kill, whichever host
        // bisects first.
        for (const Host& h : lab_.hosts())
            if (!fs::exists(h.dir / "slow-bisection")) test::put_file(h.dir / "slow-bisection", "");
        for (Host& h : lab_.hosts()) {
            if (h.child <= 0 || read_phase(h).phase != "bisecting") continue;
            if (bisecting_ != &h) {
                bisecting_ = &h;
                bisecting_since_ = Clock::now();
            }
            if (Clock::now() - bisecting_since_ < std::chrono::milliseconds(bisect_delay_ms_))
                return;
            ::kill(h.child, SIGKILL);
            for (const Host& any : lab_.hosts()) fs::remove(any.dir / "slow-bisection");
            kill_bisect_met_ = true;
            ++injected_;
            note(h.name + "'s loop (pid " + std::to_string(h.child) +
                 ") SIGKILLed mid-bisection: " + state_said(h));
            return;
        }
        bisecting_ = nullptr;
    }

    // The tmpfs filled to its last byte, left full for two of its host's
    // starts that fail (or 3 s), then emptied.
    void fill(int stored) {
        Host* h = lab_.tmpfs_host();
        if (full_met_ || stored < full_at_ || !h) return;
        const fs::path filler = h->folder / "filler";
        if (!full_) {
            const int fd = ::open(filler.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
            REQUIRE(fd >= 0);
            const std::string block(1 << 16, 'x');
            while (::write(fd, block.data(), block.size()) > 0) {
            }
            const std::string rest(1, 'x');
            while (::write(fd, rest.data(), 1) > 0) {
            }
            ::close(fd);
            full_ = true;
            full_since_ = Clock::now();
            ++injected_;
            note(h->name + "'s results file system filled");
            return;
        }
        if (failed_while_full_ < 2 && Clock::now() - full_since_ < std::chrono::seconds(3)) return;
        fs::remove(filler);
        full_ = false;
        full_met_ = true;
        note(h->name + "'s results file system emptied (" + std::to_string(failed_while_full_) +
             " starts failed while full)");
    }

    // While the host's loop holds its track (stopped there by SIGSTOP, so
    // it cannot let go meanwhile), a second track of the same tree into
    // the same database, its results folder another: refused (TrackBusy)
    // or waiting; never measuring.
    void second_track(int stored) {
        if (second_met_ || stored < second_at_) return;
        Host& h = *unsettled(second_host_);
        if (h.child <= 0) return;
        if (FileLock::held_by(h.folder / "track.lock") != h.child) return;
        ::kill(h.child, SIGSTOP);
        const std::string measured = test::slurp(h.dir / "measured.log");
        const pid_t second = lab_.start(h, h.dir / "second-track", "second-track.log");
        int status = 0;
        bool ended = false;
        for (int i = 0; i < 500 && !ended; ++i) {
            ended = ::waitpid(second, &status, WNOHANG) == second;
            if (!ended) std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        std::string outcome;
        if (!ended) {
            ::kill(second, SIGKILL);
            ::waitpid(second, nullptr, 0);
            outcome = "waited 5 s";
        } else {
            outcome = WIFEXITED(status) && WEXITSTATUS(status) == kBusy
                          ? "refused"
                          : "ended otherwise (" + std::to_string(status) + ")";
        }
        const bool measured_nothing = test::slurp(h.dir / "measured.log") == measured;
        ::kill(h.child, SIGCONT);
        INFO(test::slurp(h.dir / "second-track.log"));
        CHECK((outcome == "refused" || outcome == "waited 5 s"));
        CHECK(measured_nothing);
        second_met_ = true;
        ++injected_;
        note("a second track of " + h.name + "'s tree and database beside the first: " + outcome);
    }

    // A host's speed jumps (kJump) once it has stored jump_at_ points, and
    // its start stops where the change is recorded; between that start and
    // the next, the change is marked invalid in the database (as `contest
    // history triage ID --status invalid` does), never to be acted on.
    void jump_and_triage() {
        Host& h = *jump_host_;
        if (triage_met_) return;
        if (!jumped_) {
            if (read_phase(h).stored < jump_at_) return;
            test::put_file(h.dir / "stop-at-found", "");
            test::put_file(h.dir / "jump", "");
            jumped_ = true;
            note(h.name + "'s speed jumped " + std::to_string(static_cast<int>(kJump * 100 - 100)) +
                 "% (" + std::to_string(jump_at_) + " of its points stored)");
            return;
        }
        if (!triage_due_) return;
        const TrackState s = read_track_state(h.folder / kTrackStateFile);
        const TrackChange* found = nullptr;
        for (const auto& c : s.changes)
            if (c.status == ChangeStatus::found &&
                lab_.tree().number.at(c.after) <= lab_.before_step())
                found = &c;
        REQUIRE(found);
        try {
            history::HistoryDb db(history::db_target(lab_.uri(), lab_.dir()),
                                  history::OpenFor::writing);
            long long id = 0;
            for (const auto& r : history::recorded_changes(db))
                if (r.machine.rfind(h.name + " (", 0) == 0 && r.before_commit == found->before &&
                    r.after_commit == found->after)
                    id = r.id;
            if (id == 0)
                for (const auto& r : history::recorded_changes(db))
                    UNSCOPED_INFO("recorded #" << r.id << " " << r.machine << " " << r.before_commit
                                               << ".." << r.after_commit);
            INFO(h.name << "'s change found: " << found->before << ".." << found->after);
            REQUIRE(id != 0);
            history::TriageRequest request;
            request.change = id;
            request.status = history::TriageStatus::invalid;
            request.note = "the soak's host sped up: no kernel's change";
            request.by = "soak@lab";
            history::triage_change(db, request, utc_timestamp());
            triaged_pair_ = {found->before, found->after};
            note(h.name + "'s change #" + std::to_string(id) + " between " +
                 found->before.substr(0, 12) + " and " + found->after.substr(0, 12) +
                 " marked invalid between two starts");
        } catch (const EnvironmentError&) {
            return;  // the server is down now: marked when it is back
        }
        fs::remove(h.dir / "stop-at-found");
        triage_due_ = false;
        triage_met_ = true;
        ++injected_;
    }

    Lab& lab_;
    Clock::time_point began_;
    std::ostringstream log_;
    std::string pending_;
    int injected_ = 0;
    int server_at_ = 0, kill_point_at_ = 0, full_at_ = 0, second_at_ = 0, bisect_delay_ms_ = 0;
    Host *kill_point_host_ = nullptr, *second_host_ = nullptr, *bisecting_ = nullptr;
    bool server_down_ = false, full_ = false;
    bool server_met_ = false, kill_point_met_ = false, kill_bisect_met_ = false, full_met_ = false,
         second_met_ = false;
    int failed_while_full_ = 0;
    Host* jump_host_ = nullptr;
    int jump_at_ = 0;
    bool jumped_ = false, triage_due_ = false, triage_met_ = false;
    std::pair<std::string, std::string> triaged_pair_;
    Clock::time_point up_at_, full_since_, bisecting_since_;
};

}  // namespace contest::lab_soak
