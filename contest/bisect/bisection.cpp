#include "contest/bisect/bisection.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <system_error>

#include "contest/bisect/batch_files.h"
#include "contest/bisect/bisection_text.h"
#include "contest/bisect/git_bisect.h"
#include "contest/bisect/step_evidence.h"
#include "contest/sys/atomic_file.h"
#include "contest/sys/errors.h"
#include "contest/sys/file_lock.h"
#include "contest/sys/journal_file.h"
#include "contest/sys/number_text.h"
#include "contest/sys/sha256.h"
#include "contest/sys/text.h"

namespace contest::bisect {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
}

// Wall-clock seconds since the epoch: a batch under --boot begins in one
// contest and ends in another, after reboots.
double epoch_now() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// The bisection's own clone of the tree, keyed by its results folder: two
// bisections of one tree each mark their own `git bisect`.
fs::path clone_folder(const BisectOptions& o) {
    const fs::path results = fs::weakly_canonical(fs::absolute(o.results));
    return o.workdir / "bisect" / sha256_hex(results.string()).substr(0, 16);
}

// Held for the bisection's life: one contest at a time takes it (a second
// command on the same folder, a --continue by hand beside the unit's).
FileLock bisection_lock(const BisectOptions& o) {
    const fs::path folder = clone_folder(o);
    std::error_code ec;
    fs::create_directories(folder, ec);
    if (ec)
        throw EnvironmentError("contest bisect: cannot make " + printable(folder.string()) + ": " +
                               ec.message());
    auto lock = FileLock::try_take(folder / "lock");
    if (!lock) {
        const pid_t holder = FileLock::holder(folder / "lock");
        throw BisectionBusy("contest bisect: the bisection in " + printable(o.results.string()) +
                            " is being taken by another contest" +
                            (holder > 0 ? " (pid " + std::to_string(holder) + ")" : "") +
                            ": wait for it, or give another --results");
    }
    return std::move(*lock);
}

// An end that does not build (or no longer: its cache gone, the machine's
// compiler changed) is no commit's fault, and the bisection cannot go on
// without it.
[[noreturn]] void end_does_not_build(const std::string& label, const StepFailed& e) {
    throw StepFailed("contest bisect: the " + label + " end does not build: " + e.what(), e.step(),
                     e.log());
}

}  // namespace

struct Bisection::Stepper {
  public:
    Stepper(const BisectOptions& o, Progress& progress)
        : o_(o),
          progress_(progress),
          lock_(bisection_lock(o)),
          git_(clone_folder(o), o.tree, scratch()),
          way_(batch_way(o.in_parts)) {
        resume_or_start();
    }

    std::optional<BatchNeed> next() {
        return guarded([&]() -> std::optional<BatchNeed> {
            while (!s_.finished) {
                if (!batch_) open_batch();
                if (!batch_) continue;  // (finished)
                std::vector<ResultFile> files;
                if (auto need = way_->need(*batch_, stop_rule(), files)) return need;
                close_batch(files);
            }
            return std::nullopt;
        });
    }

    void ran(std::exception_ptr failure) {
        guarded([&] {
            if (!batch_) throw std::logic_error("contest bisect: no batch was asked for");
            if (failure) {
                try {
                    std::rethrow_exception(failure);
                } catch (const StepFailed& e) {
                    did_not_build(e);
                }
                return;
            }
            if (auto files = way_->ran(*batch_)) close_batch(*files);
        });
    }

    const BisectState& state() const { return s_; }

  private:
    // A bisection that fails once its state is its own (an end that no
    // builds, a part the machine refused) says so in the state, where
    // `contest post` reads it: under --boot nobody is there to see the error.
    template <typename F>
    auto guarded(F f) -> decltype(f()) {
        try {
            return f();
        } catch (const Interrupted&) {
            throw;
        } catch (const BisectionBusy&) {
            throw;
        } catch (const std::exception& e) {
            s_.failure = e.what();
            try {
                save();
            } catch (const std::exception&) {
                // (the failure to say is the one above)
            }
            throw;
        }
    }

    // The next batch begun: the ends' until they are measured, then git's
    // next commit's; none once the bisection answers (finished).
    void open_batch() {
        if (s_.ends_state != EndsState::differ) {
            if (ends_measured_) {
                finish();
                return;
            }
            progress_.note("contest bisect: the ends first (" + short_hash(s_.good) + " good, " +
                           short_hash(s_.bad) + " bad), on " + s_.measure + ", until they differ");
            batch_ = Batch{ends_kernels(), begin_batch("ends"), o_.rule.ends_max_rounds, {}};
            return;
        }
        if (!git_started_) {
            // The ends' rounds of every batch so far, as their files hold
            // them: a resumed bisection's, and across reboots every
            // contest's, which took the batches before it in other processes.
            reload_ends();
            // Resumed: git told every step's mark again from the state,
            // which is saved before git is told (git's log may lack the last mark).
            next_ = git_.start(s_.bad, s_.good);
            for (const auto& step : s_.steps) next_ = git_.mark(step.word, step.commit);
            keep_log();
            git_started_ = true;
        }
        if (next_.commit.empty()) {
            s_.first_bad = next_.first_bad;
            s_.could_be = next_.could_be;
            if (!s_.first_bad.empty()) {
                s_.first_bad_subject = git_.subject(s_.first_bad);
                s_.first_bad_author = git_.author(s_.first_bad);
            }
            finish();
            return;
        }
        const std::string& commit = next_.commit;
        progress_.note("contest bisect: " + (next_.said.empty()
                                                 ? "testing " + short_hash(commit) + " (" +
                                                       printable(git_.subject(commit)) + ")"
                                                 : next_.said));
        BisectStep step;
        step.commit = commit;
        step.subject = git_.subject(commit);
        step.folder = "step-" + std::to_string(s_.steps.size() + 1) + "-" + short_hash(commit);
        std::vector<KernelSpec> kernels = ends_kernels();
        kernels.push_back({"tested", commit_spec(s_, commit)});
        batch_ = Batch{kernels, begin_batch(step.folder), o_.rule.step_max_rounds, step};
    }

    // The batch's rule: the ends' test, or the step's decision, asked on
    // the batch's files so far.
    StopRule stop_rule() const {
        if (!batch_->step)
            return [this](unsigned, const std::vector<ResultFile>& f) {
                unsigned incomplete = 0;
                const EndsVerdict verdict =
                    judge_ends(batch_ends(f, o_.measure, incomplete), o_.rule, unit_of(o_.measure));
                return verdict.state == EndsState::unknown ? std::string() : verdict.why;
            };
        return [this](unsigned, const std::vector<ResultFile>& f) {
            unsigned incomplete = 0;
            const StepVerdict verdict = judge(f, incomplete);
            return verdict.state == StepClass::unknown
                       ? std::string()
                       : std::string(name_in(kStepClassNames, verdict.state));
        };
    }

    // The batch's files came back: the ends measured, or the step taken.
    void close_batch(const std::vector<ResultFile>& files) {
        way_->ended();
        if (!batch_->step) {
            measure_ends(files);
            batch_.reset();
            ends_measured_ = true;
            save();
            return;
        }
        BisectStep step = take_step(files, std::move(*batch_->step));
        batch_.reset();
        step_taken(step);
    }

    // A batch's kernel that does not build: the tested commit is skipped,
    // as `git bisect run` skips at exit 125; an end's failure is no fault
    // of the commit's, and ends the bisection.
    void did_not_build(const StepFailed& e) {
        const std::string label = failed_label(e, batch_->kernels);
        if (!batch_->step) end_does_not_build(label.empty() ? "one" : label, e);
        if (label == "good" || label == "bad") end_does_not_build(label, e);
        BisectStep step = std::move(*batch_->step);
        batch_.reset();
        way_->ended();
        step.word = "skip";
        step.why = std::string("does not build: ") + e.what();
        step.seconds = end_batch();
        say("step " + short_hash(step.commit) + ": skipped, " + step.why);
        step_taken(step);
    }

    // A step kept, before git is told of it.
    void step_taken(const BisectStep& step) {
        s_.steps.push_back(step);
        save();
        next_ = git_.mark(step.word, step.commit);
        keep_log();
    }

    fs::path scratch() const {
        std::error_code ec;
        fs::create_directories(o_.results / ".git-output", ec);
        return o_.results / ".git-output";
    }
    // The state's file: the bisection's journal, of which it is a section.
    fs::path state_path() const { return bisection_journal_path(o_.results); }
    fs::path log_path() const { return o_.results / "bisect.log"; }
    // The state, with the time so far: the earlier contests' (a resumed
    // bisection's) and this one's; across reboots, from the start.
    void save() {
        s_.seconds = way_->spans_contests() && s_.started > 0
                         ? epoch_now() - s_.started
                         : seconds_before_ + seconds_since(started_);
        write_bisect_state(o_.results, s_);
    }
    void keep_log() { write_file_atomically(log_path(), git_.log() + "\n"); }

    // A state of the same question is resumed; any other is refused, as
    // is a results folder holding something else's.
    void resume_or_start() {
        if (has_bisect_state(o_.results)) {
            BisectState old = read_bisect_state(o_.results);
            if (old.tree != o_.tree.string() || old.good != o_.good || old.bad != o_.bad ||
                old.options != o_.options || old.measure != o_.measure.text())
                throw UsageError("contest bisect: " + printable(o_.results.string()) +
                                 " holds another bisection's state (" + short_hash(old.good) +
                                 ".." + short_hash(old.bad) + " on " + old.measure +
                                 "): give another --results");
            refuse_other_measuring(old);
            s_ = std::move(old);
            seconds_before_ = s_.seconds;
            s_.failure.clear();  // taken on: a failure it recorded is mended or retried
            if (!s_.finished)
                progress_.note("contest bisect: resuming after " + std::to_string(s_.steps.size()) +
                               " steps (" + printable(state_path().string()) + ")");
            return;
        }
        s_.tree = o_.tree.string();
        s_.good = o_.good;
        s_.bad = o_.bad;
        s_.options = o_.options;
        s_.measure = o_.measure.text();
        s_.place = o_.place;
        s_.error_rate = o_.rule.error_rate;
        s_.step_max_rounds = o_.rule.step_max_rounds;
        s_.ends_max_rounds = o_.rule.ends_max_rounds;
        s_.run_words = o_.run_words;
        s_.started = epoch_now();
        save();
    }

    // The same ends measured otherwise would pool rounds of two measures,
    // or decide at a rule the state does not say: refused, naming what differs.
    void refuse_other_measuring(const BisectState& old) const {
        const auto refuse = [&](const std::string& what, const std::string& there,
                                const std::string& now) {
            throw UsageError("contest bisect: " + printable(o_.results.string()) +
                             " is a bisection with other " + what + " (" + there + " there, " +
                             now + " now): give them as it was started, or another --results");
        };
        if (old.run_words != o_.run_words)
            refuse("words after --", "`" + printable(join(old.run_words, " ")) + "`",
                   "`" + printable(join(o_.run_words, " ")) + "`");
        if (old.error_rate != o_.rule.error_rate)
            refuse("--error-rate", six_digits(old.error_rate), six_digits(o_.rule.error_rate));
        if (old.step_max_rounds != o_.rule.step_max_rounds)
            refuse("--step-max-rounds", std::to_string(old.step_max_rounds),
                   std::to_string(o_.rule.step_max_rounds));
        // (0: a state from before the bound was kept.)
        if (old.ends_max_rounds != 0 && old.ends_max_rounds != o_.rule.ends_max_rounds)
            refuse("--ends-max-rounds", std::to_string(old.ends_max_rounds),
                   std::to_string(o_.rule.ends_max_rounds));
    }

    std::vector<KernelSpec> ends_kernels() const {
        return {{"good", commit_spec(s_, s_.good)}, {"bad", commit_spec(s_, s_.bad)}};
    }

    // Every round of the ends so far: the ends' own and every step's.
    std::vector<EndsRound> all_ends(const std::vector<ResultFile>* current = nullptr) const {
        std::vector<EndsRound> all = ends_;
        unsigned incomplete = 0;
        if (current)
            for (const auto& r : batch_ends(*current, o_.measure, incomplete)) all.push_back(r);
        return all;
    }

    // A batch begun: its start kept in the state (for its time when it ends
    // in a later contest), and its folder, as the batch's way has it.
    fs::path begin_batch(const std::string& name) {
        if (!(way_->spans_contests() && s_.batch_started > 0)) s_.batch_started = epoch_now();
        save();
        return way_->begin(o_.results, name, progress_);
    }

    void note_emulated(const std::vector<ResultFile>& files) {
        s_.emulated = s_.emulated || emulated(files);
    }

    void measure_ends(const std::vector<ResultFile>& files) {
        unsigned incomplete = 0;
        const std::vector<EndsRound> rounds = batch_ends(files, o_.measure, incomplete);
        end_batch();
        note_emulated(files);
        EndsVerdict verdict = judge_ends(rounds, o_.rule, unit_of(o_.measure));
        // Fewer rounds than the bound came back (runs failed): what they say.
        if (verdict.state == EndsState::unknown) {
            verdict.state = EndsState::same;
            verdict.why = "cannot tell the ends apart: " + verdict.why +
                          (incomplete ? " (" + std::to_string(incomplete) +
                                            " rounds without a figure of each end)"
                                      : "");
        }
        s_.ends_state = verdict.state;
        s_.ends_rounds = verdict.rounds;
        s_.shift = verdict.shift;
        s_.shift_sd = std::isfinite(verdict.sd) ? verdict.sd : 0;
        s_.ends_p = std::isfinite(verdict.p) ? verdict.p : 1;
        s_.could_see = std::isfinite(verdict.could_see) ? verdict.could_see : 0;
        s_.ends_why = verdict.why;
        say(verdict.why);
    }

    void reload_ends() {
        ends_.clear();
        // A step whose commit did not build has no files: it adds nothing.
        const auto add = [&](const std::string& folder) {
            unsigned incomplete = 0;
            const auto files = read_batch(o_.results / folder, {"good", "bad"}).files;
            for (const auto& r : batch_ends(files, o_.measure, incomplete)) ends_.push_back(r);
        };
        add("ends");
        for (const auto& step : s_.steps) add(step.folder);
    }

    // The batch under way ended: its seconds, start to now.
    double end_batch() {
        const double s = std::max(0.0, epoch_now() - s_.batch_started);
        s_.batch_started = 0;
        return s;
    }

    BisectStep take_step(const std::vector<ResultFile>& files, BisectStep step) {
        const std::string& commit = step.commit;
        const StepVerdict verdict = judge(files, step.incomplete);
        note_emulated(files);
        note_build(files, step);
        note_boots(files, step);
        // This step's rounds of the ends count for every later step.
        ends_ = all_ends(&files);
        step.state = verdict.state;
        step.rounds = verdict.rounds;
        step.llr = verdict.llr;
        step.sureness = verdict.sureness;
        step.over_halfway = verdict.over_halfway;
        step.position = verdict.position;
        step.seconds = end_batch();
        // Between the ends: git is told neither good nor bad of it.
        step.word = verdict.state == StepClass::like_bad    ? "bad"
                    : verdict.state == StepClass::like_good ? "good"
                                                            : "skip";
        // Undecided below the bound: the batch ended as a round (across
        // reboots, a part) brought some label no figure, a kernel that never
        // boots most likely; what would another round do but the same.
        if (verdict.state == StepClass::unknown && !verdict.at_bound)
            step.why = lacking_in_last_round(files);
        if (verdict.state == StepClass::unknown && step.why.empty())
            step.why = verdict.rounds == 0
                           ? "no round with a figure of each label"
                           : "undecided after " + std::to_string(verdict.rounds) + " rounds";
        say("step " + short_hash(commit) + " (" + printable(step.subject) +
            "): " + std::string(name_in(kStepClassNames, step.state)) +
            (step.state == StepClass::unknown
                 ? ", skipped: " + step.why
                 : ", " + sureness_text(step.sureness) + " sure after " +
                       std::to_string(step.rounds) + " rounds" +
                       (step.state == StepClass::between ? ", skipped" : "")) +
            (verdict.paired
                 ? ""
                 : " (each figure against each end's: the ends' rounds do not move together)"));
        return step;
    }

    StepVerdict judge(const std::vector<ResultFile>& files, unsigned& incomplete) const {
        const ResultFile *g = file_of(files, "good"), *b = file_of(files, "bad"),
                         *x = file_of(files, "tested");
        incomplete = 0;
        if (!g || !b || !x) return {};
        return judge_step(step_rounds(*g, *b, *x, o_.measure, incomplete), all_ends(&files),
                          o_.rule);
    }

    BisectState finish() {
        std::vector<StepVerdict> decided;
        for (const auto& step : s_.steps) {
            StepVerdict v;
            v.state = step.state;
            v.sureness = step.sureness;
            decided.push_back(v);
        }
        s_.sureness = s_.ends_state == EndsState::differ ? answer_sureness(decided) : 0;
        s_.finished = true;
        save();
        git_.reset();
        return s_;
    }

    const BisectOptions o_;  // (a copy: a stepper outlives the options it was given)
    Progress& progress_;
    FileLock lock_;
    GitBisect git_;
    BisectState s_;
    std::vector<EndsRound> ends_;
    std::unique_ptr<BatchWay> way_;  // whole batches, or parts
    std::optional<Batch> batch_;     // the batch under way
    bool ends_measured_ = false;     // in this contest
    bool git_started_ = false;       // told the state's marks
    BisectNext next_;                // git's next commit
    const Clock::time_point started_ = Clock::now();
    double seconds_before_ = 0;  // a resumed bisection's, in the contests before
};

Bisection::Bisection(const BisectOptions& options, Progress& progress)
    : stepper_(std::make_unique<Stepper>(options, progress)) {}
Bisection::~Bisection() = default;
std::optional<BatchNeed> Bisection::next() {
    return stepper_->next();
}
void Bisection::ran(std::exception_ptr failure) {
    stepper_->ran(failure);
}
const BisectState& Bisection::state() const {
    return stepper_->state();
}

void record_bisection_failure(const fs::path& results, const std::string& why) {
    if (!has_bisect_state(results)) return;
    BisectState s = read_bisect_state(results);
    s.failure = why;
    write_bisect_state(results, s);
}

}  // namespace contest::bisect
