#include "contest/track/tracking.h"

#include <soci/soci.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <iomanip>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>

#include "contest/analysis/stats.h"
#include "contest/bisect/bisection_text.h"
#include "contest/history/file_keys.h"
#include "contest/history/import.h"
#include "contest/history/series.h"
#include "contest/history/triage.h"
#include "contest/report/formats.h"
#include "contest/sys/atomic_file.h"
#include "contest/sys/enum_names.h"
#include "contest/sys/file_lock.h"
#include "contest/sys/host_name.h"
#include "contest/sys/process.h"
#include "contest/sys/regular_file.h"
#include "contest/sys/spawn.h"
#include "contest/sys/text.h"
#include "contest/sys/unique_fd.h"
#include "contest/sys/utc_timestamp.h"
#include "contest/track/track_lock.h"
#include "contest/track/track_mail.h"

namespace contest::track {

namespace fs = std::filesystem;

// A mail read back to be sent: tens of KiB as written; bounded all the same.
constexpr std::uintmax_t kMaxMailBytes = 1u << 20;

namespace {

// The mail written to the mail program's stdin. A program that ends
// without reading it (one that refuses the mail) closes the pipe: the
// write fails with EPIPE, which is that program's failure to say, not a
// SIGPIPE that kills contest. So SIGPIPE is held back for the write, and
// one the write raised taken off this thread before it is let through.
bool write_to_mail_program(int fd, std::string_view text) {
    sigset_t pipe_only, before, pending;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    sigemptyset(&pending);
    ::sigpending(&pending);
    const bool was_pending = sigismember(&pending, SIGPIPE) == 1;
    ::pthread_sigmask(SIG_BLOCK, &pipe_only, &before);
    const bool written = write_all(fd, text);
    const int error = errno;
    if (!written && error == EPIPE && !was_pending) {
        const timespec now{0, 0};
        while (::sigtimedwait(&pipe_only, nullptr, &now) < 0 && errno == EINTR) {
        }
    }
    ::pthread_sigmask(SIG_SETMASK, &before, nullptr);
    errno = error;
    return written;
}

}  // namespace

std::string history_measure_of(const bisect::BisectMeasure& measure) {
    if (measure.what == "time") return "wall_s";
    if (measure.what == "loads") return "load_units_per_s";
    if (measure.what == "ratio")
        throw UsageError(
            "contest track: --measure ratio:" + measure.load +
            ": the results database keeps each run's figures, not their ratio to no_load's; "
            "give time:, loads: or a measure's name");
    return measure.what;
}

namespace {

double now_s() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// Seconds from one ISO 8601 UTC time (a result file's, "...Z") to another;
// -1 when either is none. A run across reboots is timed by its file, since
// no one process saw it whole.
double utc_span_s(const std::string& from, const std::string& to) {
    const auto seconds = [](const std::string& text) -> double {
        std::tm tm{};
        std::istringstream in(text);
        in >> std::get_time(&tm, "%Y-%m-%dT%H:%M:%S");
        return in.fail() ? -1 : static_cast<double>(::timegm(&tm));
    };
    const double a = seconds(from), b = seconds(to);
    return a < 0 || b < a ? -1 : b - a;
}

// A fresh folder at `folder`: one a cut run left is kept beside it as
// FOLDER.interrupted-N, never measured into again.
void set_aside(const fs::path& folder) {
    std::error_code ec;
    if (!fs::exists(folder, ec)) return;
    for (int n = 1;; ++n) {
        fs::path aside = folder;
        aside += ".interrupted-" + std::to_string(n);
        if (!fs::exists(aside, ec)) {
            fs::rename(folder, aside);
            return;
        }
    }
}

// A wall time as the track says it: "133.3 s".
std::string seconds_text(double s) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f s", s);
    return text;
}

// "007": a point's or a change's number in its folder's name, so that
// the folders list in their order.
std::string three_digits(std::size_t n) {
    std::string text = std::to_string(n);
    return std::string(text.size() < 3 ? 3 - text.size() : 0, '0') + text;
}

class Track {
  public:
    Track(const TrackOptions& options, TrackBench& bench, Progress& progress)
        : o_(options), bench_(bench), progress_(progress) {}

    TrackState run();

  private:
    void start_or_take_on();
    void save() {
        write_track_state(o_.folder / kTrackStateFile, s_);
        if (o_.saved) o_.saved(s_);
    }
    void take_point(std::size_t index);
    void store_point(TrackPoint& point);
    void find_changes();
    void act_on(std::size_t index);
    void add_neighbours(std::size_t index);
    void confirm(TrackChange& change);
    void bisect_and_mail(TrackChange& change);
    void send_mails();
    std::vector<std::string> on_other_hosts(const TrackChange& change);
    // Triage (history/triage.h): the series' changes recorded at each look,
    // what a person marked a change, the group's one mail.
    void record_for_triage(const history::SeriesKey& key,
                           const std::vector<const history::KernelPoint*>& ours,
                           const std::vector<ChangePoint>& found);
    std::optional<history::RecordedChange> triaged(const TrackChange& change);
    bool left_by_triage(const TrackChange& change);
    std::vector<std::string> group_lines(const TrackChange& change);
    std::string point_name(const std::string& commit) const {
        for (const auto& p : s_.points)
            if (p.commit == commit) return p.name;
        return commit.substr(0, 12);
    }

    const TrackOptions& o_;
    TrackBench& bench_;
    Progress& progress_;
    TrackState s_;
    std::optional<history::HistoryDb> db_;
    // The series of the latest look: its key and its points' kernels and
    // commits, in the branch's order.
    history::SeriesKey series_;
    std::vector<long long> kernels_;
    std::map<std::string, std::size_t> place_;
    std::set<std::string> said_;  // triage notes already given this start
};

void refuse_other_question(const TrackState& s, const TrackState& asked, const fs::path& folder) {
    const auto differs = [&](const std::string& what, const std::string& was,
                             const std::string& now) {
        throw UsageError("contest track: " + printable(folder.string()) +
                         " follows another question (" + what + " " + printable(was) + ", not " +
                         printable(now) +
                         "): give the same, or another --results for a track of its own");
    };
    if (s.tree != asked.tree) differs("the tree", s.tree, asked.tree);
    if (s.branch != asked.branch) differs("--branch", s.branch, asked.branch);
    if (!asked.from.empty() && s.from != asked.from) differs("--from", s.from, asked.from);
    if (s.every != asked.every) differs("--every", s.every, asked.every);
    if (s.head != asked.head) differs("--head", s.head ? "on" : "off", asked.head ? "on" : "off");
    if (s.boot != asked.boot) differs("--boot", s.boot ? "on" : "off", asked.boot ? "on" : "off");
    if (s.measure != asked.measure) differs("--measure", s.measure, asked.measure);
    if (s.run_words != asked.run_words)
        differs("the run words", join(s.run_words, " "), join(asked.run_words, " "));
    if (s.point_rounds != asked.point_rounds)
        differs("--runs", std::to_string(s.point_rounds), std::to_string(asked.point_rounds));
    if (s.confirm_rounds != asked.confirm_rounds)
        differs("--confirm-rounds", std::to_string(s.confirm_rounds),
                std::to_string(asked.confirm_rounds));
}

void Track::start_or_take_on() {
    TrackState asked;
    asked.tree = o_.tree.string();
    asked.branch = o_.branch;
    asked.from = o_.from.empty() ? "" : resolve_commit(o_.tree, o_.from, "--from", o_.scratch);
    asked.every = o_.choice.every;
    asked.head = o_.choice.head;
    asked.boot = o_.boot;
    asked.measure = o_.measure.text();
    asked.run_words = o_.run_words;
    asked.point_rounds = o_.point_rounds;
    asked.confirm_rounds = o_.confirm_rounds;
    std::error_code ec;
    if (fs::exists(o_.folder / kTrackStateFile, ec)) {
        s_ = read_track_state(o_.folder / kTrackStateFile);
        refuse_other_question(s_, asked, o_.folder);
    } else {
        if (asked.from.empty())
            throw UsageError(
                "contest track: give --from REF, where the track begins (its first "
                "point), to start a track in " +
                printable(o_.folder.string()));
        s_ = asked;
    }
    const std::string head = resolve_commit(o_.tree, s_.branch, "--branch", o_.scratch);
    // The state's points in the branch's order, the new ones where the
    // branch has them (a tag made later on an older commit too). A point no
    // longer on the branch (it was rewritten) leaves the track: its runs
    // stay in the database, but it is no point of this line's series.
    std::map<std::string, TrackPoint> known;
    for (auto& p : s_.points) known[p.commit] = std::move(p);
    std::vector<TrackPoint> points;
    std::size_t added = 0;
    for (const BranchPoint& b : branch_points(o_.tree, s_.from, head, o_.choice, o_.scratch)) {
        const auto was = known.find(b.commit);
        if (was != known.end()) {
            points.push_back(std::move(was->second));
            known.erase(was);
            continue;
        }
        TrackPoint& p = points.emplace_back();
        p.commit = b.commit;
        p.name = b.name;
        ++added;
    }
    for (const auto& [commit, p] : known)
        warn("contest track: point " + printable(p.name) + " (" + commit.substr(0, 12) +
             ") is no longer on " + printable(s_.branch) + "'s line: left out of the track");
    s_.points = std::move(points);
    progress_.note("contest track: " + printable(s_.tree) + " " + printable(s_.branch) + " at " +
                   head.substr(0, 12) + ": " + std::to_string(s_.points.size()) + " points, " +
                   std::to_string(added) + " new");
    fs::create_directories(o_.folder);
    save();
}

TrackState Track::run() {
    fs::create_directories(o_.folder);
    fs::create_directories(o_.locks);  // the machine's is made with care before (track_lock.h)
    // One contest a track: of this folder, and of this tree into this
    // database on this machine, wherever the track's folder and workdir
    // (two tracking one tree into one database would store each point
    // twice, and confirm, bisect and mail each change twice).
    auto folder_lock = FileLock::try_take(o_.folder / "track.lock");
    if (!folder_lock)
        throw TrackBusy("contest track: " + printable(o_.folder.string()) +
                        " is being taken by another contest (pid " +
                        std::to_string(FileLock::holder(o_.folder / "track.lock")) + ")");
    const fs::path tree_lock_file = o_.locks / track_lock_name(o_.machine, o_.tree, o_.db);
    auto tree_lock = TrackLock::try_take(tree_lock_file);
    if (!tree_lock)
        throw TrackBusy("contest track: " + printable(o_.tree.string()) + " into " +
                        printable(o_.db.shown) + " is being tracked by another contest (pid " +
                        std::to_string(FileLock::holder(tree_lock_file)) + ")");
    start_or_take_on();
    db_.emplace(o_.db, history::OpenFor::writing);
    try {
        // What a cut track left between its steps first: a change found,
        // not yet acted on, is the series' latest word.
        find_changes();
        for (std::size_t i = 0; i < s_.points.size(); ++i) {
            if (s_.points[i].status == PointStatus::stored ||
                s_.points[i].status == PointStatus::failed)
                continue;
            take_point(i);
            if (s_.points[i].status == PointStatus::stored) find_changes();
        }
    } catch (const AcrossReboots& e) {
        // The state already says where it stands; the mails written so far
        // still go.
        save();
        progress_.note("contest track: " + printable(e.what()) +
                       ": it goes on across reboots, and the track's next start takes it on");
    }
    send_mails();
    return s_;
}

// --send-to: each mail written and not yet handed over goes to the mail
// program once, with a To: line before its Subject. It is recorded as sent
// before the program runs: a cut while it runs loses a mail (the file stays
// in the mail folder) rather than sending it twice. A program that fails is
// said in a warning and its mail taken again by the next run.
void Track::send_mails() {
    if (o_.send_to.empty()) return;
    for (const TrackChange& change : s_.changes) {
        if (change.status != ChangeStatus::mailed || change.mail.empty()) continue;
        const std::string key = s_.measure + "@" + change.first_bad;
        if (std::find(s_.sent.begin(), s_.sent.end(), key) != s_.sent.end()) continue;
        const fs::path mail = o_.mail_dir / change.mail;
        const RegularFileRead got =
            read_regular_file_at(AT_FDCWD, mail.c_str(), kMaxMailBytes, false);
        if (got.refusal != RegularFileRead::Refusal::none) {
            warn("contest track: " + printable(mail.string()) + ": " + got.why() + ": not sent");
            continue;
        }
        s_.sent.push_back(key);
        save();
        std::vector<std::string> argv = o_.sendmail;
        argv.insert(argv.end(), {"-oi", "--"});
        argv.insert(argv.end(), o_.send_to.begin(), o_.send_to.end());
        std::string why;
        try {
            SpawnOptions so;
            so.in = StdStream::pipe();
            so.log_to(o_.folder / "sendmail.log");
            Spawned child = spawn_with_pipes(argv, so);
            const bool written = write_to_mail_program(
                child.in.get(), "To: " + join(o_.send_to, ", ") + "\n" + got.text);
            child.in.reset();
            const int status = wait_for_exit(child.pid);
            if (status != 0)
                why = describe_wait_status(status);
            else if (!written)
                why = "it did not take the whole mail";
        } catch (const std::exception& e) {
            why = e.what();
        }
        if (why.empty()) {
            progress_.note("contest track: " + printable(change.mail) + " sent to " +
                           printable(join(o_.send_to, ", ")));
            continue;
        }
        s_.sent.pop_back();
        save();
        warn("contest track: sending " + printable(change.mail) + " with " +
             printable(join(o_.sendmail, " ")) + ": " + printable(why) + " (see " +
             printable((o_.folder / "sendmail.log").string()) + "); the mail is in " +
             printable(o_.mail_dir.string()) + ", and the next run sends it");
    }
}

void Track::take_point(std::size_t index) {
    TrackPoint& point = s_.points[index];
    if (point.status == PointStatus::measured) return store_point(point);
    // A run across reboots goes on by itself: asked again, not begun afresh.
    const bool going_on = point.status == PointStatus::measuring && !point.folder.empty() &&
                          bench_.goes_on_by_itself(o_.folder / point.folder);
    point.folder = "points/" + three_digits(index + 1) + "-" + point.commit.substr(0, 12);
    const fs::path folder = o_.folder / point.folder;
    if (!going_on) {
        set_aside(folder);
        point.status = PointStatus::measuring;
        ++point.attempts;
        save();
    }
    progress_.status("contest track: point " + std::to_string(index + 1) + " of " +
                     std::to_string(s_.points.size()) + ", " + printable(point.name) +
                     ": building and measuring");
    const double started = now_s();
    fs::path file;
    double run_span = -1;  // a run across reboots: its file's span
    try {
        file = bench_.measure_point(point.commit, folder);
        const ResultFile measured = read_result_file(file);
        if (going_on) run_span = utc_span_s(measured.started_at, measured.finished_at);
        const bool any_ok = std::any_of(measured.runs.begin(), measured.runs.end(), [&](auto& r) {
            return r.load == o_.measure.load && r.status == RunStatus::ok;
        });
        if (!any_ok) {
            std::string why = "no run of " + o_.measure.load + " came back";
            for (const auto& r : measured.runs)
                if (r.load == o_.measure.load && !r.reason.empty()) {
                    why += " (" + r.reason + ")";
                    break;
                }
            throw PointFailed(why);
        }
    } catch (const PointFailed& e) {
        point.status = PointStatus::failed;
        point.why = e.what();
        point.seconds = now_s() - started;
        save();
        warn("contest track: point " + printable(point.name) + " skipped: " + printable(point.why));
        return;
    }
    point.seconds = run_span >= 0 ? run_span : now_s() - started;
    point.file = fs::relative(file, o_.folder).string();
    point.status = PointStatus::measured;
    save();
    store_point(point);
}

void Track::store_point(TrackPoint& point) {
    const history::ImportTally tally = db_->guarded("storing point " + point.name, [&] {
        return history::import_paths(*db_, {o_.folder / point.file}, utc_timestamp());
    });
    for (const auto* why : {&tally.skipped, &tally.refused})
        if (!why->empty())
            throw EnvironmentError("contest track: point " + printable(point.name) +
                                   ": its file is not stored: " + why->front());
    point.status = PointStatus::stored;
    save();
    const std::string hash = point.commit.substr(0, 12);
    progress_.note("contest track: point " + printable(point.name) +
                   (point.name == hash ? "" : " (" + hash + ")") + " stored, " +
                   seconds_text(point.seconds));
}

// The series of the track's measure on this machine and workload (its
// latest point's), its points the track's own, in the branch's order;
// each change point not seen before is recorded, then acted on.
void Track::find_changes() {
    std::map<std::string, std::size_t> order;
    const TrackPoint* latest = nullptr;
    for (std::size_t i = 0; i < s_.points.size(); ++i)
        if (s_.points[i].status == PointStatus::stored) {
            order[s_.points[i].commit] = i;
            latest = &s_.points[i];
        }
    // A change at the head is looked for from kHeadBefore + 1 points on.
    if (latest && order.size() >= std::min(2 * o_.changes.min_segment, kHeadBefore + 1)) {
        const ResultFile file = read_result_file(o_.folder / latest->file);
        history::SeriesKey key;
        key.load = o_.measure.load;
        key.measure = history_measure_of(o_.measure);
        const std::string machine = history::machine_of(file).identity_sha256,
                          workload = history::workload_of(file).identity_sha256;
        db_->guarded("reading the series", [&] {
            db_->sql() << "SELECT id FROM machines WHERE identity_sha256 = :s", soci::use(machine),
                soci::into(key.machine_id);
            db_->sql() << "SELECT id FROM workloads WHERE identity_sha256 = :s",
                soci::use(workload), soci::into(key.workload_id);
        });
        const history::SeriesPoints series = history::series_points(*db_, key);
        std::vector<const history::KernelPoint*> ours;
        for (const auto& p : series.points)
            if (p.tree == s_.tree && order.count(p.commit) && !p.values.empty()) ours.push_back(&p);
        std::sort(ours.begin(), ours.end(),
                  [&](auto* a, auto* b) { return order[a->commit] < order[b->commit]; });
        std::vector<std::vector<double>> values;
        for (const auto* p : ours) values.push_back(p->values);
        // The series' changes, and a suspect one at its head (the newest one
        // or two points), confirmed at once rather than min_segment points later.
        std::vector<ChangePoint> found = find_change_points(values, o_.changes);
        // A suspect within the tolerance of a split the same way is that
        // change (history/triage.h), not a second one to confirm.
        if (const auto head = head_change(values, o_.changes))
            if (std::none_of(found.begin(), found.end(), [&](const ChangePoint& c) {
                    const auto apart =
                        c.index > head->index ? c.index - head->index : head->index - c.index;
                    return apart <= history::kPlaceTolerance &&
                           (c.change > 0) == (head->change > 0);
                }))
                found.push_back(*head);
        record_for_triage(key, ours, found);
        for (const ChangePoint& c : found) {
            const std::string before = ours[c.index - 1]->commit, after = ours[c.index]->commit;
            const bool seen = std::any_of(s_.changes.begin(), s_.changes.end(), [&](auto& k) {
                return k.before == before && k.after == after;
            });
            if (seen) continue;
            TrackChange& change = s_.changes.emplace_back();
            change.series = key.text();
            change.before = before;
            change.after = after;
            change.change = c.change;
            change.p = c.p;
            save();
            progress_.note("contest track: " + key.text() + " moved " +
                           signed_percent(100 * c.change) + " (p " + format_p(c.p) + ") between " +
                           printable(point_name(before)) + " and " + printable(point_name(after)));
        }
    }
    for (std::size_t i = 0; i < s_.changes.size(); ++i) act_on(i);
}

void Track::act_on(std::size_t index) {
    TrackChange& change = s_.changes[index];
    const bool would_act =
        change.status == ChangeStatus::found || change.status == ChangeStatus::confirming ||
        change.status == ChangeStatus::bisecting ||
        (change.status == ChangeStatus::not_confirmed && change.neighbour_of.empty());
    if (would_act && left_by_triage(change)) return;
    if (change.status == ChangeStatus::found || change.status == ChangeStatus::confirming)
        confirm(s_.changes[index]);
    if (s_.changes[index].status == ChangeStatus::bisecting) bisect_and_mail(s_.changes[index]);
    if (s_.changes[index].status == ChangeStatus::not_confirmed) add_neighbours(index);
}

// A change the series showed and its confirmation did not: the split's
// place is itself uncertain, and one point of the pair measured on a bad
// day (a busy host) can pull it one point off the real step, which then
// lies between the pair and a neighbour. So each neighbouring pair of
// stored points is confirmed in turn (once: a neighbour's own refusal adds
// none), each its own paired test at the same level.
void Track::add_neighbours(std::size_t index) {
    const TrackChange change = s_.changes[index];
    if (!change.neighbour_of.empty()) return;
    std::vector<std::string> stored;
    for (const auto& p : s_.points)
        if (p.status == PointStatus::stored) stored.push_back(p.commit);
    const auto at = std::find(stored.begin(), stored.end(), change.before);
    if (at == stored.end() || at + 1 == stored.end() || *(at + 1) != change.after) return;
    const std::size_t i = static_cast<std::size_t>(at - stored.begin());
    std::vector<std::pair<std::string, std::string>> pairs;
    if (i > 0) pairs.emplace_back(stored[i - 1], stored[i]);
    if (i + 2 < stored.size()) pairs.emplace_back(stored[i + 1], stored[i + 2]);
    for (const auto& [before, after] : pairs) {
        const bool known = std::any_of(s_.changes.begin(), s_.changes.end(), [&](auto& k) {
            return k.before == before && k.after == after;
        });
        if (known) continue;
        TrackChange& n = s_.changes.emplace_back();
        n.series = change.series;
        n.before = before;
        n.after = after;
        n.change = change.change;
        n.p = change.p;
        n.neighbour_of = change.before + ".." + change.after;
        save();
        progress_.note("contest track: the change between " + printable(point_name(change.before)) +
                       " and " + printable(point_name(change.after)) +
                       " not confirmed: its neighbours " + printable(point_name(before)) + " and " +
                       printable(point_name(after)) + " next");
        act_on(s_.changes.size() - 1);
    }
}

void Track::confirm(TrackChange& change) {
    const std::string base =
        "changes/" + three_digits(static_cast<std::size_t>(&change - s_.changes.data()) + 1) + "-" +
        change.before.substr(0, 12) + "-" + change.after.substr(0, 12);
    change.confirm_folder = base + "/confirm";
    change.bisect_folder = base + "/bisect";
    // Parts across reboots are taken on where they stand (each part's
    // figures read back, the one under way asked again).
    const bool going_on = change.status == ChangeStatus::confirming &&
                          bench_.goes_on_by_itself(o_.folder / change.confirm_folder / "part-1");
    if (!going_on) set_aside(o_.folder / change.confirm_folder);
    change.status = ChangeStatus::confirming;
    if (!going_on) ++change.confirm_attempts;
    save();
    progress_.status("contest track: confirming the change between " +
                     printable(point_name(change.before)) + " and " +
                     printable(point_name(change.after)));
    // Parts of --confirm-rounds interleaved rounds each, the rounds pooled
    // and the ends' test asked after each part, until the pair differs or
    // the ends' bound of rounds is reached (as a bisection's ends are
    // measured until they differ): a clear step is confirmed by one part, a
    // step near the noise is given the rounds that can see it.
    std::vector<EndsRound> rounds;
    EndsVerdict verdict;
    BisectRule rule = o_.rule;
    rule.ends_max_rounds = std::max(rule.ends_max_rounds, o_.confirm_rounds);
    for (unsigned part = 1; verdict.state == EndsState::unknown; ++part) {
        std::vector<ResultFile> files;
        try {
            files = bench_.compare(
                change.before, change.after,
                o_.folder / change.confirm_folder / ("part-" + std::to_string(part)));
        } catch (const PointFailed& e) {
            change.status = ChangeStatus::not_confirmed;
            change.confirm_why = std::string("its comparison failed: ") + e.what();
            save();
            warn("contest track: " + printable(change.confirm_why));
            return;
        }
        unsigned incomplete = 0;
        const std::vector<EndsRound> more =
            files.size() == 2 ? bisect::ends_rounds(files[0], files[1], o_.measure, incomplete)
                              : std::vector<EndsRound>{};
        if (more.empty()) {
            change.status = ChangeStatus::not_confirmed;
            change.confirm_why = "its comparison brought no round of both points back";
            save();
            warn("contest track: " + printable(change.confirm_why));
            return;
        }
        rounds.insert(rounds.end(), more.begin(), more.end());
        // The last part's rounds reach the bound: the test's last look.
        if (rounds.size() + o_.confirm_rounds > rule.ends_max_rounds)
            rule.ends_max_rounds = std::max<unsigned>(rule.ends_min_rounds, rounds.size());
        verdict = judge_ends(rounds, rule, bisect::unit_of(o_.measure));
    }
    change.confirm_why = verdict.why;
    const bool same_way = (verdict.shift > 0) == (change.change > 0);
    change.status = verdict.state == EndsState::differ && same_way ? ChangeStatus::bisecting
                                                                   : ChangeStatus::not_confirmed;
    if (verdict.state == EndsState::differ && !same_way)
        change.confirm_why += " (the other way from the series' change)";
    save();
    progress_.note(
        "contest track: the change between " + printable(point_name(change.before)) + " and " +
        printable(point_name(change.after)) +
        (change.status == ChangeStatus::bisecting ? " confirmed: " : " not confirmed: ") +
        printable(change.confirm_why));
}

void Track::bisect_and_mail(TrackChange& change) {
    progress_.status("contest track: bisecting between " + printable(point_name(change.before)) +
                     " and " + printable(point_name(change.after)));
    bisect::BisectState b;
    try {
        b = bench_.bisect(change.before, change.after, o_.folder / change.bisect_folder);
    } catch (const PointFailed& e) {
        // Past the bound: the robot moves on (a bisection that cannot end
        // in its time would take every later run's); its state is kept, so
        // a person can take it on by hand with more time.
        change.status = ChangeStatus::no_answer;
        change.why = std::string("the bisection was stopped: ") + e.what() +
                     "; its state is kept in " + (o_.folder / change.bisect_folder).string();
        save();
        warn("contest track: the bisection between " + printable(point_name(change.before)) +
             " and " + printable(point_name(change.after)) +
             " has no answer: " + printable(change.why));
        return;
    }
    if (b.first_bad.empty()) {
        change.status = ChangeStatus::no_answer;
        change.why = !b.failure.empty() ? b.failure
                     : b.ends_state != EndsState::differ
                         ? b.ends_why
                         : "no single first bad commit: it is one of " +
                               std::to_string(b.could_be.size()) + " commits";
        save();
        warn("contest track: the bisection between " + printable(point_name(change.before)) +
             " and " + printable(point_name(change.after)) +
             " has no answer: " + printable(change.why));
        return;
    }
    change.first_bad = b.first_bad;
    change.first_bad_subject = b.first_bad_subject;
    const std::string key = s_.measure + "@" + b.first_bad;
    if (std::find(s_.mailed.begin(), s_.mailed.end(), key) != s_.mailed.end()) {
        change.status = ChangeStatus::already_mailed;
        save();
        return;
    }
    // One mail a group (the changes of this kernel pair over measures,
    // loads and hosts): another host's track may have mailed it.
    if (!history::claim_group_mail(*db_, change.before + ".." + change.after, b.first_bad,
                                   mail_file_name(b.first_bad, s_.measure),
                                   host_name() + ":" + o_.folder.string(), utc_timestamp())) {
        change.status = ChangeStatus::already_mailed;
        save();
        progress_.note("contest track: first bad commit " + b.first_bad.substr(0, 12) +
                       ": its group was mailed by another track of the database");
        return;
    }
    change.mail = mail_file_name(b.first_bad, s_.measure);
    const fs::path mail = o_.mail_dir / change.mail;
    std::error_code ec;
    // Written before a cut that left it unrecorded: it is the one mail.
    if (!fs::exists(mail, ec)) {
        std::vector<std::string> unread;
        std::vector<ResultFile> compared,
            found = read_result_paths({o_.folder / change.confirm_folder}, unread);
        // Every part's files, the before's first: the table pools the
        // rounds the confirmation judged.
        for (const char* label : {kBeforeLabel, kAfterLabel})
            for (auto& f : found)
                if (f.label == label) compared.push_back(f);
        fs::create_directories(o_.mail_dir);
        write_file_atomically(
            mail, track_mail(s_, change, b, compared, on_other_hosts(change), group_lines(change)));
    }
    s_.mailed.push_back(key);
    change.status = ChangeStatus::mailed;
    save();
    progress_.note("contest track: first bad commit " + b.first_bad.substr(0, 12) + " " +
                   printable(b.first_bad_subject) + ": mail " + printable(mail.string()));
}

void Track::record_for_triage(const history::SeriesKey& key,
                              const std::vector<const history::KernelPoint*>& ours,
                              const std::vector<ChangePoint>& found) {
    series_ = key;
    kernels_.clear();
    place_.clear();
    for (const auto* p : ours) {
        place_[p->commit] = kernels_.size();
        kernels_.push_back(p->kernel_id);
    }
    history::record_changes(*db_, key, kernels_, found, "contest track@" + host_name(),
                            utc_timestamp());
}

// The recorded change a track's change is: a neighbour's, the split's it
// came from.
std::optional<history::RecordedChange> Track::triaged(const TrackChange& change) {
    std::string after = change.after;
    if (const auto dots = change.neighbour_of.find(".."); dots != std::string::npos)
        after = change.neighbour_of.substr(dots + 2);
    const auto at = place_.find(after);
    if (at == place_.end()) return std::nullopt;
    return history::recorded_change_at(*db_, series_, kernels_, at->second, change.change);
}

// A change a person marked as needing nothing more (invalid, acknowledged,
// wontfix, downstream, fixed): not confirmed, bisected or mailed again.
bool Track::left_by_triage(const TrackChange& change) {
    const auto r = triaged(change);
    if (!r || !history::robot_leaves(r->status)) return false;
    const std::string key = change.before + ".." + change.after;
    if (said_.insert(key).second)
        progress_.note(
            "contest track: the change between " + printable(point_name(change.before)) + " and " +
            printable(point_name(change.after)) + " is #" + std::to_string(r->id) + ", marked " +
            history::triage_status_name(r->status) + " by " + printable(r->by) + ": left alone");
    return true;
}

// The mail's word on its group: a regression back after one marked fixed,
// and the database's other changes between the same two kernels.
std::vector<std::string> Track::group_lines(const TrackChange& change) {
    std::vector<std::string> lines;
    const auto mine = triaged(change);
    if (mine && mine->back_after)
        lines.push_back("This change comes back: the same way as #" +
                        std::to_string(mine->back_after) + " of the same series, marked fixed.");
    for (const auto& c : history::recorded_changes(*db_)) {
        if (c.before_commit != change.before || c.after_commit != change.after) continue;
        if (mine && c.id == mine->id) continue;
        lines.push_back("#" + std::to_string(c.id) + " " + c.series.text() + " (" + c.machine +
                        "): " + signed_percent(100 * c.moved) + ", " +
                        history::triage_status_name(c.status));
    }
    return lines;
}

// The same change on the database's other hosts (a fleet's shared --db):
// each host's series of this workload, load and measure, its points the
// track's commits (whatever its clone's path), in the branch's order; the
// change between the same two points and whether that host's own series
// shows a change point there, so a mail says where it was seen and where not.
std::vector<std::string> Track::on_other_hosts(const TrackChange& change) {
    const auto mine = history::parse_series_key(change.series);
    if (!mine) return {};
    std::map<std::string, std::size_t> order;
    for (std::size_t i = 0; i < s_.points.size(); ++i) order[s_.points[i].commit] = i;
    std::vector<std::string> lines;
    for (const history::SeriesInfo& info : history::list_series(*db_, mine->measure)) {
        if (info.key.machine_id == mine->machine_id || info.key.workload_id != mine->workload_id ||
            info.key.load != mine->load)
            continue;
        const history::SeriesPoints series = history::series_points(*db_, info.key);
        std::vector<const history::KernelPoint*> ours;
        for (const auto& p : series.points)
            if (order.count(p.commit) && !p.values.empty()) ours.push_back(&p);
        std::sort(ours.begin(), ours.end(),
                  [&](auto* a, auto* b) { return order[a->commit] < order[b->commit]; });
        const auto at = [&](const std::string& commit) {
            return std::find_if(ours.begin(), ours.end(),
                                [&](auto* p) { return p->commit == commit; });
        };
        const auto before = at(change.before), after = at(change.after);
        std::string line = "  " + info.machine + ": ";
        if (before == ours.end() || after == ours.end()) {
            lines.push_back(line + "not measured at both points");
            continue;
        }
        const double moved =
            stats::summarize((*after)->values).median / stats::summarize((*before)->values).median -
            1;
        std::vector<std::vector<double>> values;
        for (const auto* p : ours) values.push_back(p->values);
        bool there = false;
        for (const ChangePoint& c : find_change_points(values, o_.changes))
            there = there || (ours[c.index - 1]->commit == change.before &&
                              ours[c.index]->commit == change.after);
        lines.push_back(
            line + signed_percent(100 * moved) + " between the same points (medians): " +
            (there ? "a change point there too"
                   : "no change point there, over " + std::to_string(ours.size()) + " points"));
    }
    return lines;
}

}  // namespace

TrackState run_track(const TrackOptions& options, TrackBench& bench, Progress& progress) {
    return Track(options, bench, progress).run();
}

std::string track_status_text(const TrackState& s, int holder) {
    std::string out = "track of " + printable(s.tree) + " " + printable(s.branch) + " from " +
                      s.from.substr(0, 12) + ", every " + printable(s.every) +
                      (s.head ? " and its head" : "") + ", on " + printable(s.measure) + "\n";
    out += holder ? "taken now by pid " + std::to_string(holder) + "\n" : "not running now\n";
    std::size_t stored = 0, failed = 0, left = 0;
    double seconds = 0;
    for (const auto& p : s.points) {
        if (p.status == PointStatus::stored) {
            ++stored;
            seconds += p.seconds;
        }
        failed += p.status == PointStatus::failed;
        left += p.status != PointStatus::stored && p.status != PointStatus::failed;
    }
    // A point measured and not stored is owed to the database (a server
    // away when it was measured): the track's next start stores it.
    const auto owed = std::count_if(s.points.begin(), s.points.end(), [](const TrackPoint& p) {
        return p.status == PointStatus::measured;
    });
    out += "points: " + std::to_string(s.points.size()) + ", " + std::to_string(stored) +
           " stored, " + std::to_string(failed) + " failed, " + std::to_string(left) + " to do";
    if (owed > 0)
        out += " (" + std::to_string(owed) + " measured, owed to the database: the next start " +
               "stores them)";
    if (stored && left)
        out += " (about " +
               seconds_text(seconds / static_cast<double>(stored) * static_cast<double>(left)) +
               " left at " + seconds_text(seconds / static_cast<double>(stored)) + " a point)";
    out += "\n";
    for (std::size_t i = 0; i < s.points.size(); ++i) {
        const TrackPoint& p = s.points[i];
        out += "  " + std::to_string(i + 1) + ". " + printable(p.name) + " " +
               p.commit.substr(0, 12) + ": " + std::string(name_in(kPointStatusNames, p.status));
        if (p.status == PointStatus::stored) out += ", " + seconds_text(p.seconds);
        if (p.attempts > 1) out += ", " + std::to_string(p.attempts) + " runs started";
        if (!p.why.empty()) out += ": " + printable(p.why);
        out += "\n";
    }
    out += "changes: " + std::to_string(s.changes.size()) + "\n";
    for (const auto& c : s.changes) {
        out += "  " + printable(c.series) + " " + signed_percent(100 * c.change) + " between " +
               c.before.substr(0, 12) + " and " + c.after.substr(0, 12) + ": " +
               std::string(name_in(kChangeStatusNames, c.status));
        if (!c.first_bad.empty())
            out += ", first bad commit " + c.first_bad.substr(0, 12) + " " +
                   printable(c.first_bad_subject);
        if (c.status == ChangeStatus::bisecting)
            out += " (its state: " + printable(c.bisect_folder) + ", contest post shows it)";
        if (!c.mail.empty()) out += ", mail " + printable(c.mail);
        if (!c.why.empty()) out += ": " + printable(c.why);
        if (c.status == ChangeStatus::not_confirmed) out += ": " + printable(c.confirm_why);
        out += "\n";
    }
    out += "mails: " + std::to_string(s.mailed.size()) + "\n";
    return out;
}

}  // namespace contest::track
