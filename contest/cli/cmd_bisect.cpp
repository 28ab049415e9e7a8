// `contest bisect --good TREE@REF --bad TREE@REF [options] [-- RUN-OPTIONS... LOAD...]`
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "contest/bisect/bisection.h"
#include "contest/cli/bisection_print.h"
#include "contest/cli/cli_common.h"
#include "contest/cli/commands.h"
#include "contest/cli/kernel_journal.h"
#include "contest/cli/own_run_options.h"
#include "contest/cli/run_options.h"
#include "contest/drive/bisection_drive.h"
#include "contest/drive/bisection_journal.h"
#include "contest/kbuild/git.h"
#include "contest/kbuild/kernel_ref.h"
#include "contest/run/plan/run_journal.h"
#include "contest/sys/cgroup.h"
#include "contest/sys/errors.h"
#include "contest/sys/text.h"
#include "contest/sys/workdir.h"

namespace contest {
namespace {

namespace fs = std::filesystem;

// What a batch's words set themselves: refused among the user's, as the
// run's own parser reads them (an abbreviation, -n5, a --config file's
// line all count).
void refuse_batch_options(const std::vector<std::string>& words) {
    if (!run_option_given(words, {"boot"}).empty())
        throw UsageError(
            "contest bisect: for batches across reboots of this machine give contest bisect "
            "--boot, not --boot after --");
    const std::string own =
        run_option_given(words, {"kernel", "runs", "results", "order", "label", "vary", "resume",
                                 "boot-status", "boot-abort", "boot-continue"});
    if (!own.empty())
        throw UsageError("contest bisect: --" + own +
                         " is the bisection's to set (each batch is a run of its own "
                         "labels good, bad and tested): leave it out after --");
    // A step's test reads one run a label and round (bisect_measure.h);
    // runs a boot would be rounds of their own, which it does not pair.
    if (!run_option_given(words, {"runs-per-boot"}).empty())
        throw UsageError(
            "contest bisect: --runs-per-boot: a step's test takes one run a kernel and round: "
            "leave it out after --");
}

// --results names a folder, made when missing: a file there (or above it)
// is the user's slip, said in one line before anything is made.
void refuse_results_not_a_folder(const std::string& given, const fs::path& folder) {
    std::error_code ec;
    for (fs::path at = folder; !at.empty(); at = at.parent_path()) {
        if (fs::exists(at, ec) && !fs::is_directory(at, ec))
            throw UsageError("contest bisect: --results " + printable(given) + ": " +
                             printable(at.string()) +
                             " is a file: give a folder for the bisection's state and result "
                             "files (made when missing)");
        if (at == at.parent_path()) break;
    }
}

kbuild::KernelRef end_ref(const std::string& spec, const std::string& option,
                          const fs::path& scratch) {
    if (!kbuild::looks_like_kernel_ref(spec))
        throw UsageError("contest bisect: " + option + " '" + printable(spec) +
                         "': expected TREE@REF (a git tree and a commit of it)");
    kbuild::KernelRef ref = kbuild::read_kernel_ref(spec, option, scratch);
    if (!ref.patches.empty())
        throw UsageError("contest bisect: " + option +
                         ": a bisection walks the tree's own commits; no +PATCH");
    return ref;
}

// --continue D: the bisection across reboots in D, from its journal (as
// the unit's step does at the end of a part: drive/journal_continue.h).
int continue_bisection(const fs::path& folder) {
    const auto containment = RunContainment::set_up();
    Progress progress = Progress::for_stderr(false);
    const fs::path absolute = fs::absolute(folder).lexically_normal();
    return print_bisection(
        drive::continue_bisection(absolute, containment->description(), progress), absolute,
        progress);
}

}  // namespace

int cmd_bisect(int argc, char** argv) {
    CommandLine cl;
    cl.name = "bisect";
    cl.usage =
        "contest bisect --good TREE@REF --bad TREE@REF [options] [-- RUN-OPTIONS... LOAD...]";
    cl.summary =
        "Finds the commit between --good and --bad that changed --measure: the ends measured in "
        "interleaved rounds (of QEMU guests, or with --boot of this machine across reboots) until "
        "they differ beyond noise, then git bisect, each step's commit built and measured with "
        "both ends until a sequential test classes it like good or like bad at --error-rate, or "
        "between the ends (neither: skipped, the answer then the range the change spreads over), "
        "or it is skipped; the answer with every step's evidence and how sure it is, beside how "
        "often the ends' test errs. After --, the "
        "words of `contest run` for each batch (the workload, the loads, the guests' or --boot's "
        "options; not --kernel, --boot, --runs, --results). docs/bisect.md.";
    std::string good, bad, measure, results = "results/bisect", continue_from;
    bool boot = false;
    BisectRule rule;
    std::vector<std::string> run_words;
    // clang-format off
    using enum OptionScope;
    add_options(cl, {
        {"good", host, po::value(&good)->value_name("TREE@REF"), "the commit whose kernel is good (TREE@REF%CONFIG_X=V...: every commit built with those options)"},
        {"bad", host, po::value(&bad)->value_name("TREE@REF"), "the later commit whose kernel is bad (same TREE, same %OPTIONS)"},
        {"measure", host, po::value(&measure)->value_name("WHAT:LOAD"),
         "what the ends differ in: time, ratio, loads (LOAD's work done) or a measure a run records "
         "(latency_cyclic_p99_us, ...), under LOAD (default: time under the first load but no_load)"},
        {"error-rate", host, bounded(&rule.error_rate, 0.0001, 0.2)->default_value(rule.error_rate)->value_name("E"),
         "each step's chance of classing its commit wrong, each way"},
        {"step-max-rounds", host, bounded(&rule.step_max_rounds, 2u, 50u)->default_value(rule.step_max_rounds)->value_name("N"),
         "a step still undecided after N rounds is skipped"},
        {"ends-max-rounds", host, bounded(&rule.ends_max_rounds, 3u, 50u)->default_value(rule.ends_max_rounds)->value_name("N"),
         "the ends not told apart after N rounds: no bisection"},
        {"results", host, po::value(&results)->default_value(results)->value_name("D"),
         "the bisection's folder: its state, git's log and every batch's result files"},
        {"boot", host, po::bool_switch(&boot),
         "each batch a `contest run --boot` of this machine (kexec; root): the bisection goes on "
         "across the reboots by itself; each step's commit is built as root (its Makefiles and "
         "scripts run as root, no privilege dropped: give only a tree you would boot; "
         "docs/kernel-builds.md)"},
        {"continue", host, po::value(&continue_from)->value_name("D"),
         "(started at the end of each --boot batch) the bisection in D, on from where it stands"},
        {"run-word", host, po::value(&run_words)->value_name("WORD"), "a word of each batch's `contest run`"},
    });
    // clang-format on
    cl.positional.add("run-word", -1);
    po::variables_map vm;
    if (!parse_command_line(cl, argc, argv, vm)) return kExitOk;
    if (!continue_from.empty()) {
        for (const auto& [name, value] : vm)
            if (name != "continue" && !value.defaulted())
                throw UsageError(
                    "contest bisect --continue: the bisection's state says the rest; "
                    "give no --" +
                    name);
        return continue_bisection(continue_from);
    }
    refuse_batch_options(run_words);

    const fs::path folder = fs::absolute(results).lexically_normal();
    refuse_results_not_a_folder(results, folder);
    for (const auto& [spec, option] : {std::pair{good, "--good"}, std::pair{bad, "--bad"}})
        if (spec.empty())
            throw UsageError("contest bisect: give " + std::string(option) + " TREE@REF");

    // Checked now, as the first batch will be: a bad word is refused before
    // anything is made; nothing is written before every check but in the
    // workdir (git's output, in its kbuild/), the results folder last.
    // The start's one parse of the words after --: the ends' batch, as
    // every later batch is made of it (drive/bisection_journal.h); under
    // --boot its words resolved as a --boot run's start resolves them.
    const RunJournal started = kernel_run_journal(run_words, boot, {{"good", good}, {"bad", bad}});
    const RunConfig& first = started.config;
    const Workdir workdir = Workdir::open(first.workload.workdir);
    workdir.make_dir("kbuild");
    const fs::path scratch = workdir.real_dir("kbuild");
    const kbuild::KernelRef g = end_ref(good, "--good", scratch);
    const kbuild::KernelRef b = end_ref(bad, "--bad", scratch);
    if (g.tree != b.tree)
        throw UsageError("contest bisect: --good and --bad name two trees (" +
                         printable(g.tree.string()) + ", " + printable(b.tree.string()) + ")");
    if (g.options.lines() != b.options.lines())
        throw UsageError(
            "contest bisect: --good and --bad give different config options (" +
            printable(g.options.spec_tail()) + " against " + printable(b.options.spec_tail()) +
            "): every commit of a bisection is built with the same, give them to both");
    if (g.commit == b.commit)
        throw UsageError("contest bisect: --good and --bad are one commit (" + g.commit + ")");
    if (!kbuild::run_git(g.tree, {"merge-base", "--is-ancestor", g.commit, b.commit}, scratch).ok)
        throw UsageError("contest bisect: --good " + g.commit.substr(0, 12) +
                         " is not an ancestor of --bad " + b.commit.substr(0, 12) +
                         " (the two the other way round?)");
    const std::vector<std::string> loads = loads_of_run(first);
    measure = measure_or_default(measure, loads, "contest bisect");
    bisect::BisectOptions options;
    options.tree = g.tree;
    options.good = g.commit;
    options.bad = b.commit;
    options.options = g.options.lines();
    options.measure = bisect::parse_bisect_measure(measure, loads);
    options.rule = rule;
    options.place = boot ? "boot" : "kernel";
    options.run_words = run_words;
    options.results = folder;
    options.workdir = first.workload.workdir;
    fs::create_directories(folder);
    const RunJournal journal = drive::bisection_journal(folder, started);
    options.in_parts = journal.boot.has_value();
    const auto containment = RunContainment::set_up();
    Progress progress = Progress::for_stderr(false);
    return print_bisection(
        drive::drive_bisection(options, journal, containment->description(), progress), folder,
        progress);
}

}  // namespace contest
