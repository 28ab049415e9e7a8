#pragma once
// The lab of the soak test (test_lab_soak.cpp): its hosts, its tree, its
// PostgreSQL, and one start of a host's robot as a forked child.
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "contest/history/history_db.h"
#include "contest/sys/errors.h"
#include "contest/sys/progress.h"
#include "contest/track/track_state.h"
#include "contest/track/tracking.h"
#include "fake_track_bench.h"
#include "postgres_server.h"
#include "test_helpers.h"

namespace contest::lab_soak {

namespace fs = std::filesystem;
using namespace contest::track;

using Clock = std::chrono::steady_clock;

// The soak's size and seed: CONTEST_SOAK_POINTS points a host (12 by
// default: the short soak), CONTEST_SOAK_SEED or a fresh one.
struct Settings {
    int points = 12;
    std::uint64_t seed = 0;
    double budget_s = 600;  // the whole lab's bound, past which it fails
};

inline Settings settings_from_environment() {
    Settings s;
    if (const char* p = std::getenv("CONTEST_SOAK_POINTS")) s.points = std::max(6, std::atoi(p));
    if (const char* p = std::getenv("CONTEST_SOAK_SEED"))
        s.seed = std::strtoull(p, nullptr, 10);
    else
        s.seed = std::random_device{}();
    s.budget_s = 60 + 5.0 * s.points;  // ~5 s for 12 points here: the rest is slack
    return s;
}

// The exit codes of one start of a host's loop.
enum StartExit {
    kDone = 0,
    kUsage = 2,
    kEnvironment = 3,
    kBusy = 4,
    kOther = 5,
    kStoppedAtFound = 6  // stopped where a change was recorded, for a person to triage
};

// A start stopped right after its state records a change before the step
// (a timer's start that ends there), so that the change is marked between
// two starts.
struct StoppedAtFound : std::runtime_error {
    StoppedAtFound() : std::runtime_error("stopped where a change was found") {}
};

// The host's speed jumps by this (a host's own change, no kernel's) once
// the file `jump` is in its folder: a change the robot would act on, which
// a person marks invalid.
inline constexpr double kJump = 1.07;

struct Host {
    std::string name;
    fs::path dir;     // the host's own: its clone, workdir, locks, logs
    fs::path tree;    // its clone of the lab's tree
    fs::path folder;  // its results folder (the track's)
    fs::path work;
    int tagged = 0;  // the points its branch has so far
    pid_t child = -1;
    int starts = 0;
    std::map<int, int> exits;  // exit code -> how many starts
    bool settled = false;      // its last start ended 0 with every point given
    Clock::time_point next_start{};
    // Points a start left measured and not stored (the server away): owed to
    // the database, stored by a later start.
    std::set<std::string> owed;
};

// What a host's start wrote last: its state's phase and points stored.
struct Phase {
    std::string phase;
    int stored = 0;
};

inline Phase read_phase(const Host& h) {
    std::ifstream in(h.dir / "phase");
    Phase p;
    in >> p.phase >> p.stored;
    return p;
}

// The step a host's state is at: a change's confirming or bisecting, else
// the status of the last point taken. (Not test::phase_of's: a change left
// found, as one marked invalid is for good, would hide every later step.)
inline std::string phase_of(const TrackState& s) {
    for (const auto& c : s.changes)
        if (c.status == ChangeStatus::confirming || c.status == ChangeStatus::bisecting)
            return std::string(name_in(kChangeStatusNames, c.status));
    for (auto p = s.points.rbegin(); p != s.points.rend(); ++p)
        if (p->status != PointStatus::pending)
            return std::string(name_in(kPointStatusNames, p->status));
    return "listed";
}

// A host's speed now: a random walk of its own (0.1% a turn), kept in a
// file of its folder across its starts, so that the walk goes on where the
// last start left it.
inline double drifted_speed(const fs::path& file, std::uint64_t seed) {
    long long turns = 0;
    double speed = 1.0;
    {
        std::ifstream in(file);
        in >> turns >> speed;
    }
    std::mt19937_64 rng(seed * 1000003 + static_cast<std::uint64_t>(turns));
    speed *= std::exp(std::normal_distribution<double>(0, 0.001)(rng));
    speed = std::clamp(speed, 0.9, 1.1);
    test::put_file(file.string() + ".new", std::to_string(turns + 1) + " " + std::to_string(speed));
    fs::rename(file.string() + ".new", file);
    return speed;
}

class Lab {
  public:
    Lab(const Settings& s, const fs::path& pg_bin)
        : settings_(s),
          rng_(s.seed),
          tree_(2 + 4 * (s.points / 2), 4 * (s.points - 1) + 2, 0),
          dir_(tree_.stand_in.scratch.path()) {
        uts_ = ::geteuid() == 0;
        // Mounts of the test's own (the results file system's tmpfs) in a
        // mount namespace of its own: gone with the test however it ends.
        if (::geteuid() == 0 && ::unshare(CLONE_NEWNS) == 0 &&
            ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0)
            mounts_ = true;
        server_.emplace(pg_bin, dir_ / "pg", test::TcpLogin{"soak: a lab's password"});
        test::put_file(dir_ / "sendmail",
                       "#!/bin/sh\n{ echo \"ARGS $*\"; cat; echo '.'; } >> '" +
                           (dir_ / "sent.log").string() + "'\n",
                       true);
        hosts_.reserve(3);
        for (const char* name : {"soak-host-a", "soak-host-b", "soak-host-c"}) {
            Host& h = hosts_.emplace_back();
            h.name = name;
            h.dir = dir_ / name;
            h.tree = h.dir / "linux";
            h.folder = h.dir / "results";
            h.work = h.dir / "work";
            fs::create_directories(h.folder);
            test::sh(dir_, "git clone -q '" + tree_.tree.string() + "' '" + h.tree.string() +
                               "' && cd '" + h.tree.string() +
                               "' && git tag -l | xargs git tag -d >/dev/null");
            give_tags(h, 2 + static_cast<int>(rng_() % 3));
        }
        // One host's results on a small file system of their own, to fill.
        full_host_ = rng_() % hosts_.size();
        if (mounts_ && ::mount("tmpfs", hosts_[full_host_].folder.c_str(), "tmpfs", 0,
                               "size=64m,mode=0755") == 0)
            tmpfs_ = hosts_[full_host_].folder;
    }
    ~Lab() {
        if (!tmpfs_.empty()) ::umount2(tmpfs_.c_str(), MNT_DETACH);
    }
    Lab(const Lab&) = delete;
    Lab& operator=(const Lab&) = delete;

    // The host whose results folder is a tmpfs of the test's own; none:
    // the test may mount none here (not root, no mount namespace).
    Host* tmpfs_host() { return tmpfs_.empty() ? nullptr : &hosts_[full_host_]; }

    const Settings& settings() const { return settings_; }
    std::mt19937_64& rng() { return rng_; }
    std::vector<Host>& hosts() { return hosts_; }
    test::PostgresServer& server() { return *server_; }
    const test::TrackedTree& tree() const { return tree_; }
    const fs::path& dir() const { return dir_; }
    // The lab's database as its hosts reach it: over TCP, with a password.
    std::string uri() const { return server_->tcp_uri("contest", "soak: a lab's password"); }
    bool mounts() const { return mounts_; }
    const std::vector<pid_t>& started() const { return started_; }
    // The last commit a change may end at to be none of the step's (two
    // points before the step's pair, whatever way a look places it).
    int before_step() const { return 4 * (settings_.points / 2 - 2); }
    std::string step_commit() const { return tree_.commits[static_cast<std::size_t>(tree_.step)]; }

    TrackOptions options(const Host& h) const {
        TrackOptions o;
        o.tree = h.tree;
        o.branch = "main";
        o.from = "t00";
        o.choice.every = "tag";
        o.measure = bisect::parse_bisect_measure("time:cpu_load", {"no_load", "cpu_load"});
        o.run_words = {"-w", "command", "--workload-cmd", "true", "no_load", "cpu_load"};
        o.folder = h.folder;
        o.mail_dir = h.dir / "mail";
        o.send_to = {"lab@example.org"};
        o.sendmail = {(dir_ / "sendmail").string()};
        o.scratch = h.dir / "git-scratch";
        o.locks = h.dir / "locks";
        o.db = history::db_target(uri(), h.folder);
        fs::create_directories(o.scratch);
        return o;
    }

    // The host's branch grown by `n` tags (as far as the lab's tree goes).
    void give_tags(Host& h, int n) {
        std::string script = "true";
        for (; n > 0 && h.tagged < settings_.points; --n, ++h.tagged)
            script += " && git tag " + test::TrackedTree::tag_name(4 * h.tagged) + " " +
                      tree_.commits[static_cast<std::size_t>(4 * h.tagged)];
        test::sh(h.tree, script);
    }

    // One start of the host's loop, in a child: its hostname its own, its
    // state's phase written after every save; its exit says how it ended.
    pid_t start(Host& h, const fs::path& folder, const std::string& log) {
        ++h.starts;
        std::fflush(nullptr);
        const pid_t pid = ::fork();
        if (pid != 0) {
            started_.push_back(pid);
            return pid;
        }
        int code = kDone;
        std::string why;
        try {
            if (uts_ &&
                (::unshare(CLONE_NEWUTS) != 0 || ::sethostname(h.name.data(), h.name.size()) != 0))
                throw std::runtime_error("no hostname of its own");
            const test::TreeFacts facts = tree_.at(h.tree);
            test::FakeBench bench(facts, h.work, h.dir / "measured.log",
                                  static_cast<unsigned>(settings_.seed + h.starts));
            const std::uint64_t walk = settings_.seed ^ std::hash<std::string>()(h.name);
            bench.speed = [&] {
                std::error_code ec;
                return drifted_speed(h.dir / "speed", walk) *
                       (fs::exists(h.dir / "jump", ec) ? kJump : 1.0);
            };
            // The fake run loop's files have no sysinfo: the hostname is
            // written as a run's would be, uname's (the namespace's) where
            // the host has a UTS namespace of its own.
            utsname u{};
            bench.hostname = uts_ && ::uname(&u) == 0 ? std::string(u.nodename) : h.name;
            // A point's run or a bisection's batch held a while where the
            // test is to kill the loop by its pid there (its files say when).
            bench.noted = [&](const std::string& line) {
                std::error_code ec;
                if ((line.rfind("point ", 0) == 0 && fs::exists(h.dir / "slow-point", ec)) ||
                    (line.rfind("batch ", 0) == 0 && fs::exists(h.dir / "slow-bisection", ec)))
                    std::this_thread::sleep_for(std::chrono::milliseconds(300));
            };
            TrackOptions o = options(h);
            o.folder = folder;
            o.saved = [&](const TrackState& s) {
                const auto stored = std::count_if(s.points.begin(), s.points.end(), [](auto& p) {
                    return p.status == PointStatus::stored;
                });
                test::put_file(h.dir / "phase.new",
                               phase_of(s) + " " + std::to_string(stored) + "\n");
                fs::rename(h.dir / "phase.new", h.dir / "phase");
                std::error_code ec;
                if (!fs::exists(h.dir / "stop-at-found", ec)) return;
                for (const auto& c : s.changes)
                    if (c.status == ChangeStatus::found &&
                        facts.number.at(c.after) <= before_step())
                        throw StoppedAtFound();
            };
            Progress quiet(Progress::Mode::kQuiet);
            run_track(o, bench, quiet);
        } catch (const StoppedAtFound& e) {
            code = kStoppedAtFound;
            why = e.what();
        } catch (const TrackBusy& e) {
            code = kBusy;
            why = e.what();
        } catch (const EnvironmentError& e) {
            code = kEnvironment;
            why = e.what();
        } catch (const UsageError& e) {
            code = kUsage;
            why = e.what();
        } catch (const std::exception& e) {
            code = kOther;
            why = e.what();
        } catch (...) {
            code = kOther;
            why = "not a std::exception";
        }
        std::ofstream(h.dir / log, std::ios::app)
            << "start " << h.starts << ": " << code << " " << why << "\n";
        ::_exit(code);
    }

  private:
    Settings settings_;
    std::mt19937_64 rng_;
    test::TrackedTree tree_;
    fs::path dir_;
    bool uts_ = false, mounts_ = false;
    std::size_t full_host_ = 0;
    fs::path tmpfs_;
    std::optional<test::PostgresServer> server_;
    std::vector<Host> hosts_;
    std::vector<pid_t> started_;  // every start's pid
};

}  // namespace contest::lab_soak
