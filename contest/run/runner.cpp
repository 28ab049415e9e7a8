#include "contest/run/runner.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <ctime>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include "contest/observe/kernel_facts.h"
#include "contest/observe/machine_cpu.h"
#include "contest/observe/perf_counters.h"
#include "contest/observe/sysinfo.h"
#include "contest/observe/timeline.h"
#include "contest/observe/window_observer.h"
#include "contest/run/load_observer.h"
#include "contest/run/load_runner.h"
#include "contest/sys/cgroup.h"
#include "contest/sys/errors.h"
#include "contest/sys/json_text.h"
#include "contest/sys/log_tail.h"
#include "contest/sys/process.h"
#include "contest/sys/signals.h"
#include "contest/sys/spawn.h"
#include "contest/sys/text.h"
#include "contest/sys/version.h"
#include "contest/sys/workdir.h"
#include "loads/registry.h"

namespace contest {
namespace {

using Clock = std::chrono::steady_clock;

std::string format_duration(double s) {
    long t = std::lround(std::max(0.0, s));
    char buf[32];
    if (t >= 3600)
        std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else
        std::snprintf(buf, sizeof buf, "%ld:%02ld", t / 60, t % 60);
    return buf;
}

// The log's last lines, indented under the error line that names the run.
std::string indented_tail(const std::filesystem::path& log, int lines) {
    std::istringstream in(tail_of_file(log, lines));
    std::string out, line;
    while (std::getline(in, line)) out += "    " + line + "\n";
    return out;
}

// Every label is checked as -k's is (label_problem); `what` and `from` say
// where it came from.
void check_label(const std::string& label, const std::string& what, const std::string& from = "") {
    if (auto why = label_problem(label)) throw UsageError(what + " " + *why + from);
}

// Remembers how long runs take, for the ETA.
struct Eta {
    double spent_s = 0;
    int done = 0;
    int total = 0;
    std::string widest_ci;  // --runs auto: "  widest CI ±3.1%"
    std::string text(double current_elapsed) const {
        if (done == 0) return widest_ci;
        double per = spent_s / done;
        return "  ETA " + format_duration(per * (total - done) - current_elapsed) + widest_ci;
    }
};

nlohmann::json config_json(const RunConfig& c, std::uint64_t seed, const Workload& w,
                           const std::vector<const LoadInfo*>& loads) {
    nlohmann::json names = nlohmann::json::array();
    for (const auto* l : loads) names.push_back(l->name);
    nlohmann::json j = {
        {"runs", c.auto_runs ? nlohmann::json("auto") : nlohmann::json(c.runs)},
        {"loads", names},
        {"workload", w.describe()},
        {"jobs", effective_jobs(c.workload.jobs)},
        {"workdir", c.workload.workdir.string()},
        {"warmup_s", c.warmup_s},
        {"drop_caches", c.drop_caches},
        {"order", run_order_name(c.order)},
        {"order_seed", seed},
        // The loads' own options as given; each load records the values it
        // used (defaults included) with its facts.
        {"load_options", c.load.values},
    };
    if (c.auto_runs) {
        j["target_ci_pct"] = c.auto_runs->target_ci_pct;
        j["max_runs"] = c.auto_runs->max_runs;
    }
    if (c.timeout_s) j["timeout_s"] = *c.timeout_s;
    if (!c.containment.empty()) j["containment"] = c.containment;
    return j;
}

// A save of the result file that failed (no space, read-only, permission):
// the suite stops there and keeps its runs in memory.
struct SaveFailed : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class ResultWriter {
  public:
    ResultWriter(ResultFile& result, std::filesystem::path path)
        : result_(result), path_(std::move(path)) {}
    void save() {
        try {
            write_file_atomically(path_, json_text(to_json(result_)) + "\n");
        } catch (const EnvironmentError& e) {
            throw SaveFailed(e.what());
        }
    }
    const std::filesystem::path& path() const { return path_; }

  private:
    ResultFile& result_;
    std::filesystem::path path_;
};

}  // namespace

std::string utc_timestamp() {
    std::time_t t = std::time(nullptr);
    std::tm tm{};
    ::gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

std::string drop_caches() {
    ::sync();
    int fd = ::open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
    if (fd < 0) return std::string("not dropped: ") + std::strerror(errno);
    ssize_t n = ::write(fd, "3", 1);
    int e = errno;
    ::close(fd);
    if (n != 1) return std::string("not dropped: ") + std::strerror(e);
    return "dropped";
}

namespace {

std::string summary_line(const std::string& head, const RunRecord& rec) {
    char line[200];
    std::snprintf(line, sizeof line, "%s  %.1f s  CPU %.0f%%", head.c_str(), rec.wall_s,
                  rec.cpu_pct);
    std::string out = line;
    if (!rec.load_unit.empty() && rec.ok()) {
        std::snprintf(line, sizeof line, "  load %.1f %s, %.0f%% CPU", rec.load_units,
                      rec.load_unit.c_str(), rec.load_cpu_pct);
        out += line;
    }
    if (!rec.ok()) out += "  " + std::string(run_status_name(rec.status));
    return out;
}

// --latency: the probes' plan, made once before any load starts (audio and
// video calibrate their work on the idle machine) and kept in the config. A
// resumed file's calibration is reused: its periods all ask for the same work.
std::optional<latency::LatencyPlan> latency_plan_of(const RunConfig& config,
                                                    const std::optional<ResultFile>& resumed) {
    if (config.latency_probes.empty()) return std::nullopt;
    std::optional<latency::WorkCalibration> known;
    if (resumed && resumed->config.contains("latency") &&
        resumed->config["latency"].contains("calibration"))
        known = latency::calibration_from_json(resumed->config["latency"]["calibration"]);
    latency::LatencyPlan plan = latency::make_latency_plan(config.latency_probes, known);
    plan.dist_ns = config.latency_dist_ns;
    return plan;
}

// One `contest run`: the state shared by its runs.
class SuiteRunner {
  public:
    SuiteRunner(const RunConfig& config, Workload& workload, Progress& progress, RunOutcome& out,
                std::vector<ResultWriter>& writers, int total_runs,
                std::optional<latency::LatencyPlan> latency_plan)
        : config_(config),
          workload_(workload),
          progress_(progress),
          out_(out),
          writers_(writers),
          latency_plan_(std::move(latency_plan)) {
        eta_.total = total_runs;
    }

    // A load made ready for its runs: its private folder and its prepare
    // step (a file to read, an archive to unpack) done, its facts recorded.
    std::unique_ptr<LoadSession> prepare(const LoadInfo& info, const LoadOptions& load_options) {
        if (info.does_work()) progress_.status(std::string(info.name) + ": preparing");
        auto session = std::make_unique<LoadSession>(info, load_options);
        nlohmann::json facts = session->facts();
        facts["unit"] = info.unit;
        for (auto& result : out_.results) result.loads[std::string(info.name)] = facts;
        return session;
    }

    // Run i of a prepared load, recorded and saved in its variant's file.
    void record_run(LoadSession& load, unsigned i, std::size_t variant = 0) {
        auto run_started = Clock::now();
        RunRecord rec = measure_run(load, i, variant);
        if (config_.order != RunOrder::blocks) rec.round = static_cast<int>(i);
        if (!rec.ok()) ++out_.failed_runs;
        if (rec.ok()) longest_ok_s_ = std::max(longest_ok_s_, rec.wall_s);
        out_.results[variant].runs.push_back(rec);
        writers_[variant].save();
        ++eta_.done;
        eta_.spent_s += std::chrono::duration<double>(Clock::now() - run_started).count();
    }

    void show_widest_ci(const std::string& text) { eta_.widest_ci = text; }

  private:
    RunRecord measure_run(LoadSession& load, unsigned i, std::size_t variant) {
        const LoadInfo& info = load.info();
        std::string head = std::string(info.name) + "  run " + std::to_string(i) + "/" +
                           std::to_string(config_.runs);
        if (out_.results.size() > 1) head += "  [" + out_.results[variant].label + "]";
        RunRecord rec;
        rec.load = info.name;
        rec.index = static_cast<int>(i);
        rec.load_unit = info.unit;
        rec.load_secondary_unit = info.secondary_unit;

        progress_.status(head + "  cleaning" + eta_.text(0));
        try {
            workload_.clean();
        } catch (const StepFailed& e) {
            // The user's clean (or make clean) failed: this run cannot be
            // timed, the next may be.
            rec.status = RunStatus::workload_failed;
            rec.reason = e.what();
            const std::string tail = e.log().empty() ? "" : indented_tail(e.log(), 10);
            report_failure(info, i,
                           rec.reason + (tail.empty() ? "" : "; its last lines:\n" + tail));
            progress_.note(summary_line(head, rec));
            return rec;
        }
        rec.caches = cache_state(info);

        if (info.does_work()) {
            progress_.status(head + "  starting the load" + eta_.text(0));
            load.start();
            if (auto why = load.warm_up(config_.warmup_s)) {
                load.stop();
                rec.status = RunStatus::load_failed;
                rec.reason = *why;
                report_failure(info, i, rec.reason);
                return rec;
            }
        }

        // --latency: the probes start with the load (after its warm-up) and
        // count over the workload's window; stopped and reaped with the load.
        std::optional<latency::LatencyProbes> probes;
        if (latency_plan_)
            probes.emplace(*latency_plan_, std::string(info.name) + "." + std::to_string(i));
        ExitInfo ex = time_workload(head, load, rec, probes ? &*probes : nullptr);
        probes.reset();
        std::optional<std::string> load_died = load.running() ? load.failure() : std::nullopt;
        load.stop();  // stop and reap the load before anything else
        if (!ex.exited_ok()) {
            rec.status = ex.timed_out ? RunStatus::timed_out : RunStatus::workload_failed;
            rec.reason = workload_.name() + " workload " + ex.describe();
            if (ex.timed_out) rec.reason += timeout_text();
            report_failure(info, i,
                           rec.reason + "; last lines of " + workload_.log_path().string() + ":\n" +
                               indented_tail(workload_.log_path(), 10));
        } else if (load_died) {
            rec.status = RunStatus::load_failed;
            rec.reason = *load_died;
            report_failure(info, i, rec.reason);
        }
        progress_.note(summary_line(head, rec));
        return rec;
    }

    std::string cache_state(const LoadInfo& info) {
        if (!info.drops_caches()) return "warm";
        if (!config_.drop_caches) return "not dropped: --no-drop-caches";
        std::string state = drop_caches();
        if (state != "dropped" && !drop_warning_given_) {
            drop_warning_given_ = true;
            progress_.clear();
            std::fprintf(stderr, "contest: warning: caches %s (run as root to drop them)\n",
                         state.c_str());
        }
        return state;
    }

    // Times the workload among the run's observers (contest/observe): the
    // load and the machine's CPU are sampled the moment before it starts and
    // the moment it is seen to exit, so Loads, the probes' figures and the
    // others' CPU cover exactly its window.
    ExitInfo time_workload(const std::string& head, LoadSession& load, RunRecord& rec,
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
        std::vector<WindowObserver*> observers;
        if (config_.timeline_hz > 0)
            observers.push_back(&timeline.emplace(
                TimelineOptions{config_.timeline_hz, config_.workload.workdir.string()}));
        if (probes) observers.push_back(probes);
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
            progress_.tick(head + "  " + format_duration(el) + eta_.text(el));
            warn_if_hung(head, el);
        };
        return observe_window(cmd.argv, std::move(so), std::move(hooks), observers, rec, &started);
    }

    // " after 5 s (--timeout 5)"
    std::string timeout_text() const {
        char text[64];
        std::snprintf(text, sizeof text, " after %g s (--timeout %g)", *config_.timeout_s,
                      *config_.timeout_s);
        return text;
    }

    // With no --timeout, a run going past 3x the longest finished run says so
    // once, on a terminal and off it: a hung workload must not look like a
    // slow one for an hour.
    void warn_if_hung(const std::string& head, double elapsed_s) {
        if (config_.timeout_s || hang_warned_ || longest_ok_s_ <= 0 ||
            elapsed_s <= 3 * longest_ok_s_)
            return;
        hang_warned_ = true;
        progress_.clear();
        std::fprintf(stderr,
                     "contest: warning: %s has taken %s, over 3x the longest finished run "
                     "(%.1f s): is the workload hung? (--timeout S stops such runs)\n",
                     head.c_str(), format_duration(elapsed_s).c_str(), longest_ok_s_);
    }

    void report_failure(const LoadInfo& info, unsigned i, const std::string& why) {
        progress_.clear();
        std::fprintf(stderr, "contest: %s run %u: %s\n", info.name.data(), i, why.c_str());
    }

    const RunConfig& config_;
    Workload& workload_;
    Progress& progress_;
    RunOutcome& out_;
    std::vector<ResultWriter>& writers_;
    Eta eta_;
    bool drop_warning_given_ = false;
    const std::optional<latency::LatencyPlan> latency_plan_;
    double longest_ok_s_ = 0;  // of the finished runs, for the hang warning
    bool hang_warned_ = false;
};

// --runs auto, after a round: records why and says so when no further
// round is needed.
bool enough_rounds(const AutoRuns& auto_runs, unsigned round, std::vector<ResultFile>& results,
                   SuiteRunner& runner, Progress& progress) {
    if (round < kMinAutoRounds) return false;
    double widest = 0;
    for (const auto& result : results) widest = std::max(widest, auto_runs.widest_ci_pct(result));
    char ci[64], text[200];
    if (std::isfinite(widest))
        std::snprintf(ci, sizeof ci, "±%.2f%%", widest);
    else
        std::snprintf(ci, sizeof ci, "not known yet");
    runner.show_widest_ci(std::string("  widest CI ") + ci);
    std::snprintf(text, sizeof text,
                  "contest: after round %u the widest Ratio CI is %s (target ±%g%%)", round, ci,
                  auto_runs.target_ci_pct);
    progress.note(text);
    if (widest < auto_runs.target_ci_pct)
        std::snprintf(text, sizeof text,
                      "every load's Ratio CI was under ±%g%% after %u rounds (widest %s)",
                      auto_runs.target_ci_pct, round, ci);
    else if (round >= auto_runs.max_runs)
        std::snprintf(text, sizeof text,
                      "--max-runs %u reached; the widest Ratio CI was %s (target ±%g%%)",
                      auto_runs.max_runs, ci, auto_runs.target_ci_pct);
    else
        return false;
    for (auto& result : results) result.stopped_because = text;
    return true;
}

// Checks, before anything is prepared, that result files can be written in
// dir: a temp file is made and removed there, and the real cause (read-only
// file system, permission, no space) is named when it cannot.
void check_results_folder(const std::filesystem::path& dir) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec)
        throw EnvironmentError("cannot create results folder " + dir.string() + ": " +
                               ec.message());
    const auto probe = dir / (".contest-write-check." + std::to_string(::getpid()));
    int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        throw EnvironmentError("cannot write result files in " + dir.string() + ": " +
                               std::strerror(errno));
    ::close(fd);
    ::unlink(probe.c_str());
}

// What a contest killed hard (SIGKILL, power) left: load folders and files
// of dead pids in the workdir, its cgroup, half-written result files
// (<file>.json.tmp.<pid>) in the folders this run writes its results into.
// Removed, and said on stderr.
void remove_what_killed_runs_left(const RunConfig& config,
                                  const std::vector<std::filesystem::path>& result_folders,
                                  Progress& progress) {
    std::vector<std::string> removed = remove_dead_load_folders(
        Workdir::opened_or_open(config.workload.opened_workdir, config.workload.workdir));
    for (auto& leaf : remove_stale_cgroups()) removed.push_back(std::move(leaf));
    static const std::string tmp_mark = ".json.tmp.";
    std::error_code ec;
    for (const auto& folder : result_folders)
        for (const auto& e : std::filesystem::directory_iterator(folder, ec)) {
            const std::string name = e.path().filename().string();
            const auto at = name.rfind(tmp_mark);
            if (at == std::string::npos || e.is_symlink(ec)) continue;
            char* end = nullptr;
            const long pid = std::strtol(name.c_str() + at + tmp_mark.size(), &end, 10);
            if (pid <= 0 || *end != '\0' || process_start_time(static_cast<pid_t>(pid)) != 0)
                continue;
            if (std::filesystem::remove(e.path(), ec))
                removed.push_back(e.path().string() + " (half-written by contest pid " +
                                  std::to_string(pid) + ", which is gone)");
        }
    if (removed.empty()) return;
    progress.clear();
    for (const auto& what : removed)
        std::fprintf(stderr, "contest: removed what a killed contest left: %s\n", what.c_str());
}

// Fields of the config that differ between two runs of the same config
// (whether a tree was reused, where the processes were held): not compared.
bool volatile_field(const std::string& key) {
    return key == "containment" || key == "project_rewritten" || key == "prepare_reused";
}

// Fields that follow from the others (the latency probes' calibration exists
// when a probe works): named only when nothing else differs, since the user
// changed the probes, not the calibration.
bool derived_field(const std::string& key) {
    return key == "calibration";
}

// The first field where the recorded config and this one differ ("" when
// none), as "runs: recorded 3, now 5".
std::string config_difference(const nlohmann::json& recorded, const nlohmann::json& now,
                              const std::string& prefix = "") {
    std::set<std::string> key_set;
    for (const auto& [k, v] : recorded.items()) key_set.insert(k);
    for (const auto& [k, v] : now.items()) key_set.insert(k);
    std::vector<std::string> keys(key_set.begin(), key_set.end());
    std::stable_partition(keys.begin(), keys.end(),
                          [](const std::string& k) { return !derived_field(k); });
    for (const auto& k : keys) {
        if (volatile_field(k)) continue;
        const nlohmann::json a = recorded.contains(k) ? recorded[k] : nlohmann::json();
        const nlohmann::json b = now.contains(k) ? now[k] : nlohmann::json();
        if (a == b) continue;
        if (a.is_object() && b.is_object()) return config_difference(a, b, prefix + k + ".");
        return prefix + k + ": recorded " + json_text(a, -1) + ", now " + json_text(b, -1);
    }
    return "";
}

// --resume FILE: the interrupted result file, checked against this config.
ResultFile resumed_result(const RunConfig& config) {
    ResultFile r = read_result_file(config.resume);
    if (r.complete)
        throw UsageError("--resume " + config.resume.string() +
                         ": this result file is complete; there is nothing to resume");
    if (r.label != config.label)
        throw UsageError("--resume " + config.resume.string() + ": label differs: recorded '" +
                         r.label + "', now '" + config.label + "' (-k)");
    return r;
}

void check_resumed_config(const RunConfig& config, const nlohmann::json& recorded,
                          const nlohmann::json& now) {
    const std::string diff = config_difference(recorded, now);
    if (!diff.empty())
        throw UsageError("--resume " + config.resume.string() +
                         ": the config differs from the recorded one in " + diff);
}

// A planned run the resumed file already holds (finished, whatever its status).
bool already_done(const ResultFile& result, std::string_view load, unsigned index) {
    for (const auto& r : result.runs)
        if (r.load == load && r.index == static_cast<int>(index)) return true;
    return false;
}

// The seed of the shuffle: the resumed file's, so that the plan is the same.
std::uint64_t order_seed(const RunConfig& config, const std::optional<ResultFile>& resumed) {
    if (resumed && resumed->config.contains("order_seed"))
        return resumed->config["order_seed"].get<std::uint64_t>();
    return config.seed ? *config.seed : std::random_device{}();
}

// Ctrl-C, SIGTERM, SIGHUP: what finished is saved (complete: false); with
// no finished run there is no file to save.
void save_on_interrupt(ResultWriter& writer, const ResultFile& result,
                       const std::filesystem::path& path) {
    if (result.runs.empty()) {
        std::fprintf(stderr, "contest: interrupted before the first run finished; loads stopped\n");
        return;
    }
    try {
        writer.save();
        std::fprintf(stderr, "contest: interrupted; loads stopped; %zu finished runs kept in %s\n",
                     result.runs.size(), path.c_str());
    } catch (const SaveFailed& e) {
        std::fprintf(stderr, "contest: interrupted; %s\n", e.what());
    }
}

// --vary: each knob resolved on this machine, its original value read.
std::vector<Knob> resolve_knobs(const RunConfig& config) {
    std::vector<Knob> knobs;
    for (const auto& spec : config.vary)
        knobs.push_back(resolve_knob(spec, config.workload.workdir));
    return knobs;
}

// The record every file of one --vary run shares (so report can pair their
// rounds), with this file's own values.
nlohmann::json vary_record(const std::string& group, const std::vector<Knob>& knobs,
                           const std::vector<std::size_t>& combination) {
    nlohmann::json j = {
        {"group", group}, {"knobs", nlohmann::json::array()}, {"values", nlohmann::json::object()}};
    for (std::size_t k = 0; k < knobs.size(); ++k) {
        j["knobs"].push_back({{"name", knobs[k].name},
                              {"path", knobs[k].path.string()},
                              {"values", knobs[k].values},
                              {"original", knobs[k].original}});
        j["values"][knobs[k].name] = knobs[k].values[combination[k]];
    }
    return j;
}

// A new file under results/LABEL/, named after the start time.
std::filesystem::path new_result_path(const std::filesystem::path& dir, const std::string& label,
                                      const std::string& started_at) {
    std::string stamp = started_at;
    std::erase(stamp, ':');
    std::filesystem::path path = dir / label / (stamp + ".json");
    for (int i = 2; std::filesystem::exists(path); ++i)
        path = dir / label / (stamp + "-" + std::to_string(i) + ".json");
    return path;
}

}  // namespace

RunOutcome run_suite(const RunConfig& config, Progress& progress) {
    check_label(config.label, "--label");
    if (config.runs < 1) throw UsageError("--runs must be at least 1");
    if (config.auto_runs && config.order == RunOrder::blocks)
        throw UsageError("--runs auto needs runs in rounds (--order shuffled or rounds)");
    if (!config.vary.empty() && config.order == RunOrder::blocks)
        throw UsageError("--vary needs runs in rounds (--order shuffled or rounds)");
    restore_knobs_left_changed(config.workload.workdir);
    // Everything that can be refused is refused before anything is measured.
    auto loads = resolve_loads(config.loads, config.load);
    if (loads.empty()) throw UsageError("no loads to run");
    auto workload = make_workload(config.workload);
    if (!config.resume.empty() && !config.vary.empty())
        throw UsageError(
            "--resume cannot continue a --vary run yet: resume each value's file "
            "without --vary");
    std::optional<ResultFile> resumed;
    if (!config.resume.empty()) resumed = resumed_result(config);
    const std::vector<Knob> knobs = resolve_knobs(config);
    const auto combinations = vary_combinations(knobs);
    std::vector<std::string> labels;
    for (const auto& combination : combinations) {
        labels.push_back(knobs.empty()
                             ? config.label
                             : vary_label(config.vary_label, config.label, knobs, combination));
        check_label(labels.back(), "--vary: the label",
                    " (--vary-label '" + printable(config.vary_label) + "')");
        if (std::count(labels.begin(), labels.end(), labels.back()) > 1)
            throw UsageError("--vary-label '" + config.vary_label +
                             "' gives two combinations the label '" + labels.back() + "'");
    }
    // Every value written and read back; restored on every way out of here.
    std::optional<KnobGuard> knob_guard;
    if (!knobs.empty()) knob_guard.emplace(knobs, config.workload.workdir);
    const auto resumed_folder =
        config.resume.has_parent_path() ? config.resume.parent_path() : std::filesystem::path(".");
    std::vector<std::filesystem::path> result_folders;
    if (resumed)
        result_folders.push_back(resumed_folder);
    else
        for (const auto& label : labels) result_folders.push_back(config.results_dir / label);
    for (const auto& folder : result_folders) check_results_folder(folder);
    remove_what_killed_runs_left(config, result_folders, progress);

    progress.note("contest: preparing the " + workload->name() + " workload");
    workload->prepare(progress);
    LoadOptions load_options = config.load;
    load_options.workload_source = workload->source_tree();

    RunOutcome out;
    const std::string started_at = utc_timestamp();
    const std::uint64_t seed = order_seed(config, resumed);
    std::optional<latency::LatencyPlan> latency_plan = latency_plan_of(config, resumed);
    // As the file will hold it, so that a resumed file's config compares equal.
    nlohmann::json config_record = valid_utf8_json(config_json(config, seed, *workload, loads));
    if (latency_plan) config_record["latency"] = latency::plan_json(*latency_plan);
    out.results.resize(combinations.size());
    std::vector<ResultWriter> writers;
    if (resumed) {
        check_resumed_config(config, resumed->config, config_record);
        out.results[0] = std::move(*resumed);
        out.paths.push_back(config.resume);
        for (const auto& r : out.results[0].runs)
            if (!r.ok()) ++out.failed_runs;
        writers.emplace_back(out.results[0], out.paths.back());
    } else {
        nlohmann::json system = system_fingerprint();
        system["kernel"] = kernel_facts(config.workload.workdir.string());
        for (std::size_t v = 0; v < combinations.size(); ++v) {
            ResultFile& result = out.results[v];
            result.label = labels[v];
            result.contest_version = kVersion;
            result.started_at = started_at;
            result.system = system;
            result.config = config_record;
            if (!knobs.empty())
                result.config["vary"] =
                    vary_record(started_at + "-" + std::to_string(seed), knobs, combinations[v]);
            result.loads = nlohmann::json::object();
            out.paths.push_back(new_result_path(config.results_dir, result.label, started_at));
            writers.emplace_back(result, out.paths.back());
        }
    }
    // Each file is made with its first run: none ever holds 0 runs.
    for (const auto& path : out.paths) progress.note("contest: results go to " + path.string());

    std::vector<std::string_view> names;
    for (const LoadInfo* info : loads) names.push_back(info->name);
    const auto plan = plan_runs(names, config.runs, config.order, seed, combinations.size());
    std::size_t to_do = 0;
    for (const auto& step : plan)
        to_do += !already_done(out.results[step.variant], names[step.load], step.index);
    SuiteRunner runner(config, *workload, progress, out, writers, static_cast<int>(to_do),
                       std::move(latency_plan));
    try {
        std::vector<std::unique_ptr<LoadSession>> prepared(loads.size());
        if (config.order != RunOrder::blocks) {
            // Every load is prepared before the first run, so one that can't
            // be fails before anything is measured.
            for (std::size_t k = 0; k < loads.size(); ++k)
                prepared[k] = runner.prepare(*loads[k], load_options);
        }
        for (std::size_t k = 0; k < plan.size(); ++k) {
            const auto& step = plan[k];
            if (already_done(out.results[step.variant], names[step.load], step.index))
                continue;  // --resume
            auto& p = prepared[step.load];
            if (!p) {
                // blocks: one load prepared at a time, its files gone before the next's.
                for (auto& other : prepared) other.reset();
                p = runner.prepare(*loads[step.load], load_options);
            }
            if (knob_guard) knob_guard->set(combinations[step.variant]);
            runner.record_run(*p, step.index, step.variant);
            const bool round_done = k + 1 == plan.size() || plan[k + 1].index != step.index;
            if (config.auto_runs && round_done &&
                enough_rounds(*config.auto_runs, step.index, out.results, runner, progress))
                break;
        }
    } catch (const Interrupted&) {
        progress.clear();
        for (std::size_t v = 0; v < writers.size(); ++v)
            save_on_interrupt(writers[v], out.results[v], out.paths[v]);
        throw;  // through knob_guard, which restores the knobs
    } catch (const SaveFailed& e) {
        progress.clear();
        out.save_failure = e.what();
        return out;  // through knob_guard, which restores the knobs
    }
    progress.clear();
    if (knob_guard) knob_guard->restore();
    const std::string finished_at = utc_timestamp();
    for (std::size_t v = 0; v < writers.size(); ++v) {
        out.results[v].finished_at = finished_at;
        out.results[v].complete = true;
        try {
            writers[v].save();
        } catch (const SaveFailed& e) {
            out.save_failure = e.what();
        }
    }
    progress.clear();
    return out;
}

}  // namespace contest
