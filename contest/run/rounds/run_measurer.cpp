#include "contest/run/rounds/run_measurer.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>

#include "contest/latency/latency_why.h"
#include "contest/observe/machine_cpu.h"
#include "contest/observe/machine_speed.h"
#include "contest/observe/perf_counters.h"
#include "contest/observe/timeline.h"
#include "contest/observe/window_observer.h"
#include "contest/run/rounds/load_observer.h"
#include "contest/run/rounds/settle.h"
#include "contest/run/rounds/start_barrier.h"
#include "contest/sys/errors.h"
#include "contest/sys/log_tail.h"
#include "contest/sys/number_text.h"
#include "contest/sys/progress.h"
#include "contest/sys/spawn.h"
#include "contest/sys/workdir.h"

namespace contest {
namespace {

using Clock = std::chrono::steady_clock;

// The log's last lines, indented under the error line that names the run.
std::string indented_tail(const std::filesystem::path& log, int lines) {
    std::istringstream in(tail_of_file(log, lines));
    std::string out, line;
    while (std::getline(in, line)) out += "    " + line + "\n";
    return out;
}

// A run's record before it is measured: what it is a run of.
RunRecord new_record(const LoadInfo& info, unsigned i) {
    RunRecord rec;
    rec.load = info.name;
    rec.index = static_cast<int>(i);
    rec.load_unit = info.unit;
    rec.load_secondary_unit = info.secondary_unit;
    rec.load_not_counted = info.does_work() && !info.counts_work();
    return rec;
}

}  // namespace

RunMeasurer::RunMeasurer(const RunConfig& config, Workload& workload, Progress& progress,
                         RunRecorder& recorder, std::optional<latency::LatencyPlan> latency_plan)
    : config_(config),
      workload_(workload),
      progress_(progress),
      recorder_(recorder),
      eta_(recorder.eta()),
      caches_(config.drop_caches),
      latency_plan_(std::move(latency_plan)) {}

std::unique_ptr<LoadSession> RunMeasurer::prepare(const LoadInfo& info,
                                                  const LoadOptions& load_options) {
    if (info.does_work()) progress_.status(std::string(info.name) + ": preparing");
    auto session = std::make_unique<LoadSession>(info, load_options);
    nlohmann::json facts = session->facts();
    facts["unit"] = info.unit;
    for (auto& label : recorder_.labels()) label.result.loads[std::string(info.name)] = facts;
    return session;
}

void RunMeasurer::record_run(LoadSession& load, unsigned i, LabelRun& label) {
    auto run_started = Clock::now();
    RunRecord rec = measure_run(load, i, label);
    if (config_.order != RunOrder::blocks) rec.round = static_cast<int>(i);
    if (rec.ok()) longest_ok_s_ = std::max(longest_ok_s_, rec.wall_s);
    recorder_.record(label, {rec},
                     std::chrono::duration<double>(Clock::now() - run_started).count());
}

RunRecord RunMeasurer::measure_run(LoadSession& load, unsigned i, const LabelRun& label) {
    const LoadInfo& info = load.info();
    std::string head =
        std::string(info.name) + "  run " + std::to_string(i) + "/" + std::to_string(config_.runs);
    if (recorder_.labels().size() > 1) head += "  [" + label.label + "]";
    RunRecord rec = new_record(info, i);
    // Its place among this contest's runs, which a start barrier's names
    // count, whether or not it gets to its start.
    const unsigned position = ++runs_begun_;

    progress_.status(head + "  cleaning" + eta_.text(0));
    if (!clean_workload(info, i, rec)) {
        progress_.note(run_summary_line(head, rec));
        return rec;
    }
    rec.caches = caches_.before_run(info);
    if (config_.settle_s > 0) progress_.status(head + "  settling" + eta_.text(0));
    const Settled settled = settle_machine(config_.settle_s);
    rec.settle_wait_s = settled.waited_s;
    rec.settle = settled.state;
    if (!config_.start_barrier.empty()) {
        // A duet's guest: the load and the workload start with the other
        // guests' (start_barrier.h), after everything that takes a
        // different time in each.
        progress_.status(head + "  waiting for the other guests" + eta_.text(0));
        wait_at_start_barrier(config_.start_barrier, position);
    }
    if (info.does_work()) {
        progress_.status(head + "  starting the load" + eta_.text(0));
        if (!start_load(load, i, rec)) return rec;
    }
    run_workload(head, load, i, rec);
    progress_.note(run_summary_line(head, rec));
    return rec;
}

// False when the user's clean (or make clean) failed: this run cannot be
// timed, the next may be; rec says why.
bool RunMeasurer::clean_workload(const LoadInfo& info, unsigned i, RunRecord& rec) {
    try {
        workload_.clean();
        return true;
    } catch (const StepFailed& e) {
        rec.status = RunStatus::workload_failed;
        rec.reason = e.what();
        const std::string tail = e.log().empty() ? "" : indented_tail(e.log(), 10);
        report_failure(info, i, rec.reason + (tail.empty() ? "" : "; its last lines:\n" + tail));
        return false;
    }
}

// False, with the load stopped and rec saying why, when it did not get
// going within its warm-up.
bool RunMeasurer::start_load(LoadSession& load, unsigned i, RunRecord& rec) {
    load.start();
    auto why = load.warm_up(config_.warmup_s);
    if (!why) return true;
    load.stop();
    rec.status = RunStatus::load_failed;
    rec.reason = *why;
    report_failure(load.info(), i, rec.reason);
    return false;
}

// The timed workload, then the load stopped; rec records a workload that
// failed or a load that died during it.
void RunMeasurer::run_workload(const std::string& head, LoadSession& load, unsigned i,
                               RunRecord& rec) {
    // --latency: the probes start with the load (after its warm-up) and
    // count over the workload's window; stopped and reaped with the load.
    std::optional<latency::LatencyProbes> probes;
    if (latency_plan_)
        probes.emplace(*latency_plan_, std::string(load.info().name) + "." + std::to_string(i));
    ExitInfo ex = time_workload(head, load, rec, probes ? &*probes : nullptr);
    // A lost raw file or a probe that died is said while the suite runs, not
    // found later in the file.
    if (probes)
        for (const auto& why : probes->recorded_failures()) warn(why);
    probes.reset();
    std::optional<std::string> load_died = load.running() ? load.failure_over_run() : std::nullopt;
    rec.load_restarts = static_cast<int>(load.restarts());
    load.stop();  // stop and reap the load before anything else
    if (rec.load_restarts > 0)
        warn(std::string(load.info().name) + " run " + std::to_string(i) +
             ": its command ended by itself and was started again " +
             std::to_string(rec.load_restarts) + (rec.load_restarts == 1 ? " time" : " times"));
    if (!ex.exited_ok()) {
        rec.status = ex.timed_out ? RunStatus::timed_out : RunStatus::workload_failed;
        rec.reason = workload_.name() + " workload " + ex.describe();
        if (ex.timed_out) rec.reason += timeout_text();
        report_failure(load.info(), i,
                       rec.reason + "; last lines of " + workload_.log_path().string() + ":\n" +
                           indented_tail(workload_.log_path(), 10));
    } else if (load_died) {
        rec.status = RunStatus::load_failed;
        rec.reason = *load_died;
        report_failure(load.info(), i, rec.reason);
    }
}

// Times the workload among the run's observers (contest/observe): the
// load and the machine's CPU are sampled the moment before it starts and
// the moment it is seen to exit, so Loads, the probes' figures and the
// others' CPU cover exactly its window.
ExitInfo RunMeasurer::time_workload(const std::string& head, LoadSession& load, RunRecord& rec,
                                    latency::LatencyProbes* probes) {
    Command cmd = workload_.timed_command();
    SpawnOptions so;
    so.cwd = cmd.cwd;
    so.env_overrides = cmd.env_overrides;
    so.log_to(workload_.log_path());
    create_file_no_follow(workload_.log_path());  // emptied; a planted link is refused

    std::optional<TimelineObserver> timeline;
    std::optional<PerfObserver> perf;
    std::optional<LoadObserver> load_observer;
    // First, so ended last: its end joins a thread that may be inside a
    // unit, which must not delay the others' end samples.
    MachineSpeedObserver machine_speed;
    std::vector<WindowObserver*> observers{&machine_speed};
    if (config_.timeline_hz > 0)
        observers.push_back(&timeline.emplace(
            TimelineOptions{config_.timeline_hz, config_.workload.workdir.string()}));
    if (probes) observers.push_back(probes);
    std::optional<latency::LatencyWhyObserver> why;
    if (probes && latency_plan_ && !latency_plan_->probes.empty() &&
        latency_plan_->probes.front().why_threshold_ns > 0) {
        observers.push_back(&why.emplace(*probes, load.running() ? load.pgid() : 0));
        if (!why->not_recorded().empty() && !why_warned_) {
            warn("--latency-why: not recorded: " + why->not_recorded() +
                 "; the probes run without it");
            why_warned_ = true;
        }
    }
    if (config_.perf) observers.push_back(&perf.emplace());
    if (load.running()) observers.push_back(&load_observer.emplace(load));
    // Last: it needs the exit and the load's and probes' own CPU recorded.
    MachineCpuObserver machine_cpu(
        std::vector<const WindowObserver*>(observers.begin(), observers.end()));
    observers.push_back(&machine_cpu);

    WaitHooks hooks;
    if (config_.timeout_s) hooks.timeout = std::chrono::duration<double>(*config_.timeout_s);
    hang_warned_ = false;
    Clock::time_point started = Clock::now();
    hooks.tick = [&] {
        double el = std::chrono::duration<double>(Clock::now() - started).count();
        progress_.tick(head + "  " + clock_duration(el) + eta_.text(el));
        warn_if_hung(head, el);
    };
    return observe_window(cmd.argv, std::move(so), std::move(hooks), observers, rec, &started);
}

// " after 5 s (--timeout 5)"
std::string RunMeasurer::timeout_text() const {
    char text[64];
    std::snprintf(text, sizeof text, " after %g s (--timeout %g)", *config_.timeout_s,
                  *config_.timeout_s);
    return text;
}

// With no --timeout, a run going past 3x the longest finished run says so
// once, on a terminal and off it: a hung workload must not look like a
// slow one for an hour.
void RunMeasurer::warn_if_hung(const std::string& head, double elapsed_s) {
    if (config_.timeout_s || hang_warned_ || longest_ok_s_ <= 0 || elapsed_s <= 3 * longest_ok_s_)
        return;
    hang_warned_ = true;
    warn(head + " has taken " + clock_duration(elapsed_s) + ", over 3x the longest finished run (" +
         fixed(longest_ok_s_, 1) + " s): is the workload hung? (--timeout S stops such runs)");
}

void RunMeasurer::report_failure(const LoadInfo& info, unsigned i, const std::string& why) {
    say(std::string(info.name) + " run " + std::to_string(i) + ": " + why);
}

}  // namespace contest
