// `contest loads` and `contest load NAME`.
#include <cstdio>
#include <iostream>

#include "contest/cli/cli_common.h"
#include "contest/cli/commands.h"
#include "contest/cli/load_cli.h"
#include "contest/run/rounds/load_runner.h"
#include "contest/sys/errors.h"
#include "contest/sys/json_text.h"
#include "contest/sys/machine.h"
#include "contest/sys/progress.h"
#include "contest/sys/signals.h"
#include "loads/registry.h"

namespace contest {

int cmd_loads(int argc, char** argv) {
    CommandLine cl;
    cl.name = "loads";
    cl.usage = "contest loads [options]";
    cl.summary =
        "Lists every load: name, sets it belongs to, unit of work, what it does, and\n"
        "why it cannot run here when it can't; your own (--load-cmd) after contest's.";
    cl.accepts_config = true;
    LoadOptionText text;
    LoadOptions lo;
    add_options(cl, load_option_rows(text, OptionScope::host));
    po::variables_map vm;
    if (!parse_command_line(cl, argc, argv, vm)) return kExitOk;
    finish_load_options(lo, text);

    std::printf("%-13s %-12s %-14s %s\n", "LOAD", "SETS", "UNIT", "WHAT IT DOES");
    for (const LoadInfo* l : load_registry()) {
        std::string sets = l->in_default() ? "default,all" : l->in_all() ? "all" : "by name";
        std::string unit = l->unit.empty() ? "-" : std::string(l->unit);
        std::printf("%-13s %-12s %-14s %s\n", l->name.data(), sets.c_str(), unit.c_str(),
                    l->help.data());
        for (const LoadOption* o : l->options) {
            std::string flag = "--" + std::string(o->name) + " " + std::string(o->value_name);
            std::string dflt = o->default_value.empty()
                                   ? std::string()
                                   : " (default " + std::string(o->default_value) + ")";
            std::printf("%-13s %-12s %-14s %s %s%s\n", "", "", "", flag.c_str(), o->help.data(),
                        dflt.c_str());
        }
        if (auto why = l->unavailable(lo))
            std::printf("%-13s %-12s %-14s unavailable here: %s\n", "", "", "", why->c_str());
    }
    return kExitOk;
}

namespace {

// `contest load`'s options as parsed.
struct LoadArguments {
    std::string name, workdir, format = "text";
    double duration = 5;
    LoadOptionText text;
    LoadOptions lo;
};

void describe_load_options(CommandLine& cl, LoadArguments& a) {
    cl.name = "load";
    cl.usage = "contest load NAME [--duration S]";
    cl.summary = "Runs one load alone for S seconds and prints its work rate and CPU use.";
    cl.accepts_config = true;
    using enum OptionScope;
    // One option a line reads as a table; keep clang-format out of it.
    // clang-format off
    add_options(cl, {
        {"name", host, po::value(&a.name)->value_name("NAME"), "the load (also positional)"},
        {"duration,d", host, bounded(&a.duration, kMinDurationS, kMaxDurationS)->default_value(5.0)->value_name("S"), "seconds to run it"},
        {"workdir", host, po::value(&a.workdir)->value_name("D"), "scratch space (default $XDG_CACHE_HOME/contest)"},
        {"format", host, checked(&a.format, check_text_or_json)->default_value("text")->value_name("F"), "text | json"},
    });
    // clang-format on
    add_options(cl, load_option_rows(a.text, host));
    cl.positional.add("name", 1);
}

void check_load_arguments(LoadArguments& a) {
    finish_load_options(a.lo, a.text);
    if (a.name.empty()) throw UsageError("contest load: which load? (see contest loads)");
    if (a.workdir.empty()) a.workdir = default_workdir().string();
    a.lo.workdir = a.workdir;
}

// What the load did over its window, as text or JSON on stdout.
void print_load_window(const LoadInfo& info, const LoadWindow& w, std::uint64_t restarts,
                       const nlohmann::json& facts, const std::optional<std::string>& failed,
                       const std::string& format) {
    unsigned cpus = online_cpus();
    double rate = w.seconds > 0 ? w.units / w.seconds : 0;
    if (format == "json") {
        nlohmann::json j = {{"load", info.name}, {"seconds", w.seconds}, {"units", w.units},
                            {"unit", info.unit}, {"rate_per_s", rate},   {"cpu_pct", w.cpu_pct},
                            {"cpus", cpus},      {"facts", facts}};
        if (!info.secondary_unit.empty()) {
            j["secondary"] = w.secondary;
            j["secondary_unit"] = info.secondary_unit;
        }
        if (restarts > 0) j["restarts"] = restarts;
        if (failed) j["failure"] = *failed;
        std::cout << json_text(j) << "\n";
        return;
    }
    if (info.counts_work())
        std::printf("%s: %.1f %s in %.2f s = %.1f %s/s\n", info.name.data(), w.units,
                    info.unit.data(), w.seconds, rate, info.unit.data());
    else
        std::printf("%s: %.2f s, its work not counted (no --load-cmd-units)\n", info.name.data(),
                    w.seconds);
    if (!info.secondary_unit.empty())
        std::printf("%s: %.1f %s\n", info.name.data(), w.secondary, info.secondary_unit.data());
    if (restarts > 0)
        std::printf("%s: its command ended by itself and was started again %llu times\n",
                    info.name.data(), static_cast<unsigned long long>(restarts));
    std::printf("%s: CPU %.1f%% (%.1f%% of %u CPUs)\n", info.name.data(), w.cpu_pct,
                w.cpu_pct / cpus, cpus);
    if (!facts.empty()) std::printf("%s: %s\n", info.name.data(), json_text(facts, -1).c_str());
}

}  // namespace

int cmd_load(int argc, char** argv) {
    LoadArguments a;
    CommandLine cl;
    describe_load_options(cl, a);
    po::variables_map vm;
    if (!parse_command_line(cl, argc, argv, vm)) return kExitOk;
    check_load_arguments(a);
    const std::string& name = a.name;
    const double duration = a.duration;
    LoadOptions& lo = a.lo;
    auto resolved = resolve_loads({name}, lo);
    const LoadInfo& info = *resolved.front();
    if (!info.does_work()) throw UsageError(name + " does no work; nothing to measure");

    say("preparing " + std::string(info.name));
    LoadSession load(info, lo);
    load.start();
    auto s0 = load.sample();
    interruptible_sleep(duration);
    auto s1 = load.sample();
    auto failed = load.failure();
    const std::uint64_t restarts = load.restarts();
    load.stop();
    LoadWindow w = load.window(s0, s1);
    print_load_window(info, w, restarts, load.facts(), failed, a.format);
    if (failed) {
        say(*failed);
        return kExitSomeRunsFailed;
    }
    if (info.counts_work() && w.units <= 0) {
        say(std::string(info.name) + " did no work");
        return kExitSomeRunsFailed;
    }
    return kExitOk;
}

}  // namespace contest
