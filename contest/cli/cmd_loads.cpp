// `contest loads` and `contest load NAME`.
#include <iostream>

#include "contest/cli/cli_common.h"
#include "contest/cli/commands.h"
#include "contest/cli/load_cli.h"
#include "contest/report/outputs.h"
#include "contest/run/rounds/load_runner.h"
#include "contest/sys/errors.h"
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

    LoadList list;
    for (const LoadInfo* l : load_registry()) {
        LoadListRow& row = list.loads.emplace_back();
        row.name = l->name;
        row.sets = l->in_default() ? "default,all" : l->in_all() ? "all" : "by name";
        row.unit = l->unit.empty() ? "-" : std::string(l->unit);
        row.help = l->help;
        for (const LoadOption* o : l->options)
            row.options.push_back("--" + std::string(o->name) + " " + std::string(o->value_name) +
                                  " " + std::string(o->help) +
                                  (o->default_value.empty()
                                       ? std::string()
                                       : " (default " + std::string(o->default_value) + ")"));
        row.unavailable = l->unavailable(lo);
    }
    std::cout << find_output("text", OutputUse::loads_list).loads_list(list);
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

// What the load did over its window, in `format` (text or json) on stdout.
void print_load_window(const LoadInfo& info, const LoadWindow& w, std::uint64_t restarts,
                       const nlohmann::json& facts, const std::optional<std::string>& failed,
                       const std::string& format) {
    LoadWork work;
    work.name = info.name;
    work.unit = info.unit;
    work.secondary_unit = info.secondary_unit;
    work.counts_work = info.counts_work();
    work.seconds = w.seconds;
    work.units = w.units;
    work.secondary = w.secondary;
    work.cpu_pct = w.cpu_pct;
    work.cpus = online_cpus();
    work.restarts = restarts;
    work.facts = facts;
    work.failure = failed;
    std::cout << find_output(format, OutputUse::load_work).load_work(work);
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
