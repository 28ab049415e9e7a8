// `contest latency`: one latency probe alone (or next to one load) for
// --duration seconds, reported in the spirit of stress-ng's cyclic stressor.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <iostream>
#include <optional>

#include "contest/analysis/latency_model.h"
#include "contest/cli/cli_common.h"
#include "contest/cli/commands.h"
#include "contest/cli/load_cli.h"
#include "contest/cli/probe_setting_options.h"
#include "contest/latency/latency_probes.h"
#include "contest/latency/latency_why.h"
#include "contest/latency/probe_choice.h"
#include "contest/latency/probe_table.h"
#include "contest/report/latency_tables.h"
#include "contest/run/load_runner.h"
#include "contest/sys/errors.h"
#include "contest/sys/json_text.h"
#include "contest/sys/number_text.h"
#include "contest/sys/progress.h"
#include "contest/sys/signals.h"
#include "contest/sys/text.h"
#include "loads/registry.h"

namespace contest {

namespace {

using namespace latency;

constexpr std::size_t kDistributionRows = 100;  // stress-ng prints at most 100 too
// The load's time to get going, as `contest run --warmup` gives it by
// default: a load that counts its work late (dbench, once a second) has
// shown some by then, and one that has not did no work.
constexpr double kLoadWarmupS = 3;

void print_figure(const char* probe, const char* what, const std::optional<std::int64_t>& ns) {
    if (ns)
        std::printf("%s: %-10s %12lld ns\n", probe, what, static_cast<long long>(*ns));
    else
        std::printf("%s: %-10s %12s\n", probe, what, "-");
}

void print_figure(const char* probe, const char* what, const std::optional<double>& ns) {
    if (ns)
        std::printf("%s: %-10s %14.1f ns\n", probe, what, *ns);
    else
        std::printf("%s: %-10s %12s\n", probe, what, "-");
}

void print_text(const ProbeResult& r, std::int64_t dist_ns) {
    std::string name(r.options.name());
    const char* n = name.c_str();
    const LatencyStats& s = r.stats;
    std::printf("%s: sched %s", n, std::string(name_of(r.setup.policy)).c_str());
    if (r.setup.policy != SchedPolicy::other) std::printf(" %d", r.setup.priority);
    std::printf(", method %s, period %lld ns, window %.2f s\n",
                std::string(name_of(r.options.method)).c_str(),
                static_cast<long long>(r.options.period_ns), r.window_s);
    if (r.setup.policy_note[0]) std::printf("%s: fallback: %s\n", n, r.setup.policy_note);
    std::printf("%s: %-10s %12llu\n", n, "samples", static_cast<unsigned long long>(s.samples()));
    print_figure(n, "mean", s.mean_ns());
    print_figure(n, "mode", s.mode_ns());
    print_figure(n, "min", s.min_ns());
    print_figure(n, "max", s.max_ns());
    print_figure(n, "sd", s.sd_ns());
    for (double p : kReportedPercentiles) {
        std::string label = "p";
        label += fixed(p, 2);
        print_figure(n, label.c_str(), s.percentile_ns(p));
    }
    auto missed = r.missed_pct();
    std::printf("%s: %-10s %12llu of %llu periods (%.2f%%), %llu skipped\n", n, "missed",
                static_cast<unsigned long long>(s.missed()),
                static_cast<unsigned long long>(s.periods()), missed.value_or(0),
                static_cast<unsigned long long>(s.skipped()));
    if (auto wanted = r.share_wanted_pct()) {
        std::printf(
            "%s: %-10s %.1f%% of a CPU wanted, %.1f%% got (%llu chunks of %.0f ns a period)\n", n,
            "cpu share", *wanted, r.share_got_pct().value_or(0),
            static_cast<unsigned long long>(r.chunks_per_period), r.calibration->ns_per_chunk);
        const double nominal = 1e9 / static_cast<double>(r.options.period_ns);
        const auto low = s.one_pct_low_fps();
        const auto mean = s.frame_mean_ns();
        std::printf("%s: %-10s %llu done, %.1f fps mean, 1%% low %.1f fps (nominal %.1f)\n", n,
                    "frames", static_cast<unsigned long long>(s.frames()), mean ? 1e9 / *mean : 0.0,
                    low.value_or(0), nominal);
    }
    if (r.cpu_pct)
        std::printf("%s: %-10s %.2f%% (user %.3f s, sys %.3f s)\n", n, "probe cpu", *r.cpu_pct,
                    *r.cpu_user_s, *r.cpu_sys_s);
    std::printf("%s: %-10s %s, timer slack %lld ns\n", n, "memory",
                r.setup.memory_locked ? "locked" : r.setup.lock_note,
                static_cast<long long>(r.setup.timer_slack_ns));
    if (!r.complete) std::printf("%s: incomplete: the probe was stopped before it settled\n", n);
    std::printf("%s: latency distribution (%lld ns buckets):\n", n,
                static_cast<long long>(dist_ns));
    std::printf("%s: %14s %10s\n", n, "latency_ns", "count");
    for (const auto& row : s.distribution(dist_ns, kDistributionRows))
        std::printf("%s: %13lld%s %10llu\n", n, static_cast<long long>(row.lower_ns),
                    row.and_above ? "+" : " ", static_cast<unsigned long long>(row.count));
}

// UsageError for an option of another probe's than the one chosen (the
// probe table's own options): "--exec-cmd is the exec probe's".
void refuse_other_probes_options(const ProbeInfo& chosen, const po::variables_map& vm) {
    const auto other = option_of_unchosen_probe(
        {&chosen}, [&](const ProbeOwnOption& o) { return option_given(vm, std::string(o.name)); });
    if (!other) return;
    const std::string probe(other->probe->name);
    const std::string mine =
        "--" + std::string(other->option->name) + " is the " + probe + " probe's";
    throw UsageError(other->option->others.empty()
                         ? mine + ": add --probe " + probe
                         : mine + "; " + std::string(other->option->others));
}

// What the command line asked `contest latency` for.
struct LatencyRequest {
    ProbeOptions probe;
    double duration = 10;
    std::int64_t dist_ns = 1000;
    std::string format;
    std::string load_name;  // empty: the probe alone
    bool why = false;       // --why: what held the probe's CPU when it woke late
    std::string workdir;
    LoadOptions load_options;
};

// The request, or nothing when --help was answered.
std::optional<LatencyRequest> parse_latency_command(int argc, char** argv) {
    CommandLine cl;
    cl.name = "latency";
    cl.usage = "contest latency [options]";
    cl.summary =
        "Runs one latency probe for S seconds (next to --load NAME when given) and prints\n"
        "its wake-up latency: samples, mean, mode, min, max, sd, percentiles (nearest rank,\n"
        "to 1 us), deadlines missed, then the distribution.";
    cl.accepts_config = true;
    LatencyRequest request;
    request.format = "text";
    const std::string default_probe(probe_table().front()->name);
    std::string probe = default_probe, method = "clock_ns", policy = "other";
    std::string raw;
    ProbeSettings settings;
    LoadOptionText text;
    std::int64_t why_us = 0;
    using enum OptionScope;
    // clang-format off
    add_options(cl, {
        {"duration,d", host, bounded(&request.duration, kMinDurationS, kMaxDurationS)->default_value(10.0)->value_name("S"), "seconds to measure"},
        {"probe", host, checked(&probe, [](const std::string& p) { parse_probe(p); })->default_value(default_probe)->value_name("P"), probe_names(" | ")},
        {"format", host, checked(&request.format, check_text_or_json)->default_value("text")->value_name("F"), "text | json"},
        {"latency-raw", host, po::value(&raw)->value_name("FILE"), "every sample of the window, one a line"},
        {"load", host, po::value(&request.load_name)->value_name("NAME"), "run next to this load (see contest loads)"},
        {"workdir", host, po::value(&request.workdir)->value_name("D"), "the load's scratch space (default $XDG_CACHE_HOME/contest)"},
        {"why", host, po::bool_switch(&request.why), "say what held the probe's CPU each time it woke late: tasks, interrupts, softirqs, the timer (a tracing instance of contest's own; root, tracefs)"},
        {"why-us", host, Needs{{"why"}}, bounded(&why_us, std::int64_t{1}, std::int64_t{10'000'000})->value_name("N"), "explain the wake-ups at least N us late (default: one period, the missed-period limit)"},
    });
    // clang-format on
    add_options(cl, probe_setting_rows({&settings, &method, &policy, &request.dist_ns}, "", host));
    add_options(cl, load_option_rows(text, host));
    po::variables_map vm;
    if (!parse_command_line(cl, argc, argv, vm)) return std::nullopt;
    refuse_options_without_needs(cl.table, vm);
    finish_load_options(request.load_options, text);
    if (request.dist_ns <= 0 || request.dist_ns % kFineWidthNs != 0)
        throw UsageError("--dist " + std::to_string(request.dist_ns) +
                         ": must be a positive multiple of 1000 (the histogram's 1 us)");
    const ProbeInfo& chosen = parse_probe(probe);
    refuse_other_probes_options(chosen, vm);
    settings.method = parse_sleep_method(method);
    settings.policy = parse_sched_policy(policy);
    request.probe = make_probe_options(chosen, settings);
    if (!raw.empty()) request.probe.raw_path = raw;
    if (request.why)
        request.probe.why_threshold_ns = why_us ? why_us * 1000 : request.probe.period_ns;
    return request;
}

// --load NAME, started and warmed up: its life is LoadSession's, as under
// `contest run` and `contest load`. False when it failed to warm up (said
// on stderr).
bool start_load(std::optional<LoadSession>& load, LatencyRequest& request) {
    LoadOptions& lo = request.load_options;
    lo.workdir =
        request.workdir.empty() ? default_workdir() : std::filesystem::path(request.workdir);
    const LoadInfo& info = *resolve_loads({request.load_name}, lo).front();
    if (!info.does_work())
        throw UsageError(std::string(info.name) +
                         " does no work; leave out --load to measure the probe alone");
    say("preparing " + std::string(info.name));
    load.emplace(info, lo);
    load->start();
    if (auto why = load->warm_up(kLoadWarmupS)) {
        say(*why);
        return false;
    }
    return true;
}

// What the window saw: the probe's result and, with a load, its share of
// the CPU and whether it failed.
struct LatencyWindow {
    ProbeResult probe;
    nlohmann::json why;  // --why: the probe's late time by cause
    std::optional<LoadWindow> load;
    std::optional<std::string> load_failed;
};

// The probe for `duration` seconds, the load (if any) stopped after.
LatencyWindow measure(const LatencyPlan& plan, std::optional<LoadSession>& load, double duration,
                      bool why) {
    std::optional<LatencyWhy> recorder;
    if (why) {
        recorder.emplace(LatencyWhy::from_environment());
        if (!recorder->not_recorded().empty())
            say("--why: not recorded: " + recorder->not_recorded() + "; the probe runs without it");
        else if (const auto missing = recorder->missing_events(); !missing.empty())
            say("--why: this kernel has no " + join(missing, ", ") +
                ": the time under them shows as the task they interrupted");
        recorder->begin();
    }
    LatencyProbes probes(plan);
    std::optional<LoadSample> s0;
    if (load) s0 = load->sample();
    probes.begin();
    // Whose the tasks are, looked up while they run.
    std::optional<TaskCensus> census;
    if (recorder) {
        census.emplace(known_groups(probes, load ? load->pgid() : 0));
        census->start();
    }
    interruptible_sleep(duration);
    if (census) census->stop();
    probes.end();
    if (recorder) recorder->end();
    std::optional<std::string> load_failed;
    std::optional<LoadWindow> lw;
    if (load) {
        lw = load->window(*s0, load->sample());
        load_failed = load->failure();
        load->stop();
    }
    const auto results = probes.results();
    nlohmann::json split;
    if (recorder)
        split = recorder->attribute(results, *census)
                    .value(std::string(results.front().options.name()), nlohmann::json());
    return {results.front(), split, lw, load_failed};
}

// "cyclic: why: 312 wake-ups >= 1000 us late, 298 in the trace; of their late
// time: 71% load tasks, 18% other, 6% softirq NET_RX, 3% unexplained", then
// the tasks that took most and the worst spike.
void print_why(const std::string& n, const nlohmann::json& why) {
    if (!why.value("recorded", false)) {
        std::printf("%s: why        not recorded: %s\n", n.c_str(),
                    why.value("why", std::string("?")).c_str());
        return;
    }
    const auto& c = why["by_cause"];
    const double late = c.value("late_ns", 0.0);
    const std::string shares = late_shares_text(late_causes_ns(c), late);
    std::printf("%s: why        %llu wake-ups >= %lld us late, %llu in the trace%s\n", n.c_str(),
                why.value("late_wakeups", 0ull), why.value("threshold_ns", 0ll) / 1000,
                why.value("in_trace", 0ull),
                late > 0 ? ("; of their late time: " + shares).c_str() : "");
    for (const auto& t : why["tasks"])
        std::printf("%s: why task   %-16s pid %-7d %-13s %10.0f us\n", n.c_str(),
                    t.value("comm", std::string()).c_str(), t.value("pid", 0),
                    t.value("class", std::string()).c_str(), t.value("ns", 0.0) / 1000);
}

void print_window(const LatencyWindow& w, const std::optional<LoadSession>& load,
                  const LatencyRequest& request) {
    const ProbeResult& r = w.probe;
    if (request.format == "json") {
        nlohmann::json j = r.to_json();
        if (!w.why.is_null()) j["why"] = w.why;
        if (load) {
            j["load"] = {{"name", load->info().name}, {"cpu_pct", w.load->cpu_pct}};
            if (w.load_failed) j["load"]["failure"] = *w.load_failed;
        }
        std::cout << json_text(j) << "\n";
    } else {
        if (load)
            std::printf("%s: next to %s (its CPU %.1f%%)\n", std::string(r.options.name()).c_str(),
                        load->info().name.data(), w.load->cpu_pct);
        print_text(r, request.dist_ns);
        if (!w.why.is_null()) print_why(std::string(r.options.name()), w.why);
    }
}

// A failed load or a probe that failed or did not settle is said on stderr.
int exit_status(const LatencyWindow& w) {
    if (w.load_failed) {
        say(*w.load_failed);
        return kExitSomeRunsFailed;
    }
    const ProbeResult& r = w.probe;
    if (r.failure || !r.complete) {
        say(std::string(r.options.name()) +
            " probe: " + (r.failure ? *r.failure : "stopped before it settled"));
        return kExitSomeRunsFailed;
    }
    return kExitOk;
}

}  // namespace

int cmd_latency(int argc, char** argv) {
    std::optional<LatencyRequest> request = parse_latency_command(argc, argv);
    if (!request) return kExitOk;
    for (const auto& stale : latency::LatencyWhy::remove_stale()) say("removed " + stale);
    // Calibrated before the load starts: the work loop's speed on an idle machine.
    const LatencyPlan plan = make_latency_plan({request->probe});
    std::optional<LoadSession> load;
    if (!request->load_name.empty() && !start_load(load, *request)) return kExitSomeRunsFailed;
    const LatencyWindow window = measure(plan, load, request->duration, request->why);
    print_window(window, load, *request);
    return exit_status(window);
}

}  // namespace contest
