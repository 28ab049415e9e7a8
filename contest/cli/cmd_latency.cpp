// `contest latency`: one latency probe alone (or next to one load) for
// --duration seconds, reported in the spirit of stress-ng's cyclic stressor.
#include <algorithm>
#include <iostream>
#include <optional>

#include "contest/cli/cli_common.h"
#include "contest/cli/commands.h"
#include "contest/cli/load_cli.h"
#include "contest/cli/probe_setting_options.h"
#include "contest/latency/latency_probes.h"
#include "contest/latency/latency_why.h"
#include "contest/latency/probe_choice.h"
#include "contest/latency/probe_table.h"
#include "contest/report/latency_window.h"
#include "contest/report/outputs.h"
#include "contest/run/rounds/load_runner.h"
#include "contest/sys/errors.h"
#include "contest/sys/progress.h"
#include "contest/sys/signals.h"
#include "contest/sys/text.h"
#include "loads/registry.h"

namespace contest {

namespace {

using namespace latency;

// The load's time to get going, as `contest run --warmup` gives it by
// default: a load that counts its work late (dbench, once a second) has
// shown some by then, and one that has not did no work.
constexpr double kLoadWarmupS = 3;

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

// The window through the outputs table (contest/report/outputs.h): as
// --format renders it.
void print_window(const LatencyWindow& w, const std::optional<LoadSession>& load,
                  const LatencyRequest& request) {
    LatencyWindowModel model;
    model.probe = w.probe;
    model.dist_ns = request.dist_ns;
    model.why = w.why;
    if (load) model.load = {std::string(load->info().name), w.load->cpu_pct, w.load_failed};
    std::cout << find_output(request.format, OutputUse::latency).latency(model) << std::flush;
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
