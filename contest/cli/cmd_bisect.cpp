// `contest bisect --good TREE@REF --bad TREE@REF [options] [-- RUN-OPTIONS... LOAD...]`
#include <algorithm>
#include <exception>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "contest/bisect/bisection.h"
#include "contest/cli/boot_words.h"
#include "contest/cli/cli_common.h"
#include "contest/cli/commands.h"
#include "contest/cli/own_run_options.h"
#include "contest/cli/run_options.h"
#include "contest/kbuild/git.h"
#include "contest/kbuild/kernel_config.h"
#include "contest/kbuild/kernel_ref.h"
#include "contest/run/result_writer.h"
#include "contest/run/run_driver.h"
#include "contest/run/run_journal.h"
#include "contest/sys/atomic_file.h"
#include "contest/sys/cgroup.h"
#include "contest/sys/errors.h"
#include "contest/sys/text.h"
#include "contest/sys/trusted_folder.h"
#include "contest/sys/utc_timestamp.h"
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

// The bisection's words after --, for each batch: under --boot as
// boot_run_words makes them (each later batch is started as root by the
// unit, with another HOME and folder: its --config file merged, its paths
// absolute, nothing of a user's read again), with the workdir as an
// absolute path when the user gave none.
std::vector<std::string> recorded_run_words(std::vector<std::string> words, bool boot,
                                            const fs::path& workdir) {
    if (!boot) return words;
    RunOptions given;
    if (!given.parse_words(words)) return words;
    words = boot_run_words(given, true);
    if (!option_given(given.values(), "workdir"))
        words.push_back("--workdir=" + fs::absolute(workdir).lexically_normal().string());
    return words;
}

// The words without those that give the option `name`, as the run's parser
// reads them (--name=V, --name V, an abbreviation).
std::vector<std::string> words_without(const std::vector<std::string>& words,
                                       const std::string& name) {
    RunOptions run;
    po::options_description described;
    for (const auto& o : run.table()) described.add(o.description);
    described.add_options()("help,h", "")("config", po::value<std::string>(), "");
    po::positional_options_description positional;
    positional.add("load", -1);
    const po::parsed_options parsed = po::command_line_parser(words)
                                          .options(described)
                                          .positional(positional)
                                          .style(po::command_line_style::unix_style)
                                          .run();
    std::vector<std::string> kept = words;
    auto from = kept.begin();
    for (const auto& option : parsed.options) {
        const auto& tokens = option.original_tokens;
        const auto at = std::search(from, kept.end(), tokens.begin(), tokens.end());
        if (at == kept.end() || tokens.empty()) continue;
        from = option.string_key == name ? kept.erase(at, at + static_cast<long>(tokens.size()))
                                         : at + static_cast<long>(tokens.size());
    }
    return kept;
}

// --boot: the build config read once, at the start, into the bisection's
// folder (root's, as the results of any --boot run), and every batch built
// from that copy: the running kernel's may change before a later part (an
// upgrade, a part that ends in a contest-built kernel), and the user's file
// too, and with either the builds and their cache keys. A rerun of a
// bisection under way keeps the copy its start made.
std::vector<std::string> pinned_build_config(const std::vector<std::string>& words,
                                             const RunConfig& first, const fs::path& folder) {
    const fs::path pinned = folder / "build.config";
    if (!bisect::has_bisect_state(folder)) {
        const kbuild::ConfigChoice chosen =
            kbuild::choose_config(first.build_config, kbuild::BuildTarget::boot);
        write_file_atomically(pinned, "# contest bisect --boot: every batch's build config, from " +
                                          printable(chosen.source) + " at its start\n" +
                                          chosen.text);
    }
    std::vector<std::string> pinned_words = words_without(words, "build-config");
    pinned_words.push_back("--build-config=" + pinned.string());
    return pinned_words;
}

// Each batch's words: the user's, its labels' kernels, its rounds and folder.
std::vector<std::string> batch_words(const std::vector<std::string>& run_words, bool boot,
                                     const std::vector<KernelSpec>& kernels, const fs::path& into,
                                     unsigned rounds) {
    std::vector<std::string> words = run_words;
    for (const auto& k : kernels)
        words.push_back((boot ? "--boot=" : "--kernel=") + k.label + "=" + k.image);
    words.push_back("--runs=" + std::to_string(rounds));
    words.push_back("--results=" + into.string());
    // A batch is the bisection's evidence, kept in its folder; the results
    // database gets it when the run words name one (--db), or by `contest
    // history import` of the folder later.
    const bool names_db = std::any_of(run_words.begin(), run_words.end(), [](const auto& w) {
        return w == "--db" || w.starts_with("--db=") || w == "--no-history";
    });
    if (!names_db) words.push_back("--no-history");
    return words;
}

// The bisection's journal (its folder's .run-journal): the config of
// its batches, as its start resolved them from the words after --, under
// --boot how a part boots, and the bisection's state (its own section,
// bisect/bisect_state.h). Root starts each part from it after a reboot, so
// it is read only from a folder nobody else can change.
using bisect::bisection_journal_path;

RunJournal read_bisection_journal(const fs::path& folder) {
    const fs::path path = bisection_journal_path(folder);
    if (auto why = file_open_to_others(path))
        throw EnvironmentError("contest bisect: " + printable(path.string()) + ": " + *why +
                               ": refusing it, root runs what it names at every batch");
    std::error_code ec;
    if (!fs::exists(path, ec))
        throw UsageError("contest bisect: " + printable(folder.string()) +
                         " has no journal of its batches (a bisection an earlier contest "
                         "started): start it again in a new folder");
    return read_run_journal(path);
}

// A batch's config: the journal's, with the batch's labels' kernels, its
// rounds and folder. No word is parsed.
RunConfig batch_config(const RunJournal& journal, const std::vector<KernelSpec>& kernels,
                       const fs::path& into, unsigned rounds) {
    RunConfig rc = journal.config;
    rc.kernels = kernels;
    rc.runs = rounds;
    rc.results_dir = fs::absolute(into).lexically_normal();
    return rc;
}

// Runs (or takes on) the bisection and prints where it is: its answer, or
// under --boot the part a batch just started. The one loop of a bisection:
// each batch it asks for run at its place, until it answers.
int run_and_print(const bisect::BisectOptions& options, const RunJournal& journal) {
    Progress progress = Progress::for_stderr(false);
    std::unique_ptr<RunContainment> containment = RunContainment::set_up();
    std::optional<BootRunOptions> boot;
    if (options.across_reboots) {
        if (!journal.boot)
            throw UsageError("contest bisect --boot: its journal holds no boot options");
        boot = *journal.boot;
        boot->then = {"bisect", "--continue", options.results.string()};
    }
    bisect::Bisection bisection(options, progress);
    while (const std::optional<bisect::BatchNeed> need = bisection.next()) {
        std::exception_ptr failure;
        try {
            RunConfig rc = batch_config(journal, need->kernels, need->folder, need->rounds);
            // A batch cut short: its run's journal opened and advanced, as
            // --resume does (its config the journal's, checked against the
            // files it continues).
            std::optional<OpenedJournal> taken_on;
            if (need->take_on) {
                taken_on = open_run_journal(*need->take_on);
                const auto& kernels = taken_on->journal.config.kernels;
                if (!std::equal(kernels.begin(), kernels.end(), need->kernels.begin(),
                                need->kernels.end(), [](const KernelSpec& a, const KernelSpec& b) {
                                    return a.label == b.label && a.image == b.image;
                                }))
                    throw UsageError("contest bisect: " + printable(need->take_on->string()) +
                                     ": a run of other kernels than this batch's: remove " +
                                     printable(need->folder.string()) + " and run again");
                rc = taken_on->journal.config;
                rc.resume = taken_on->journal.results;
            }
            rc.containment = containment->description();
            if (need->part) {
                start_boot_run(rc, *boot, progress);
            } else {
                rc.stop_rule = need->stop;
                rc.workload.opened_workdir = rc.load.opened_workdir =
                    Workdir::open(rc.workload.workdir);
                const RunOutcome out = advance_run(rc, std::move(taken_on), progress);
                if (!out.save_failure.empty()) throw SaveFailed(out.save_failure);
            }
        } catch (...) {
            failure = std::current_exception();
        }
        bisection.ran(failure);
        if (need->part && !failure) {
            progress.clear();
            std::cout << "contest bisect: " << need->rounds
                      << (need->rounds == 1 ? " round" : " rounds") << " started in "
                      << need->folder.string()
                      << ": this machine reboots through their turns, and the bisection goes on "
                         "by itself after them (contest run --boot-status --results "
                      << need->folder.string() << "; contest post " << options.results.string()
                      << " for where it stands)\n"
                      << std::flush;
            return kExitOk;
        }
    }
    const bisect::BisectState& state = bisection.state();
    progress.clear();
    std::cout << bisect::bisection_text(state) << std::flush;
    return state.first_bad.empty() ? kExitSomeRunsFailed : kExitOk;
}

int continue_from_state(const bisect::BisectState& s, const fs::path& folder);

// The journal a bisection's batches run from: made of its words at its
// start, the ends' batch parsed once (every later batch is that config with
// its own kernels, rounds and folder); a bisection resumed keeps the one its
// start made (its words are checked against the state's by the bisection).
// `first` is the ends' batch as the start checked it, of the words given;
// under --boot the recorded words are others (resolved, the build config
// pinned), and parsed again.
RunJournal bisection_journal(const bisect::BisectOptions& options, const fs::path& folder,
                             const std::vector<KernelSpec>& ends, const RunConfig& first) {
    // A state with no config beside it (written by hand, or the start
    // stopped between the two) is kept under the new config.
    std::optional<bisect::BisectState> state;
    if (bisect::has_bisect_state(folder)) {
        if (JournalFile::read(bisection_journal_path(folder), "the bisection's journal")
                .has(kRunSection))
            return read_bisection_journal(folder);
        state = bisect::read_bisect_state(folder);
    }
    RunJournal journal;
    if (options.across_reboots) {
        journal = boot_batch_journal_of(batch_words(options.run_words, true, ends, folder / "ends",
                                                    options.rule.ends_max_rounds));
    } else {
        journal.started_at = utc_timestamp();
        journal.config = first;
    }
    journal.config.seed.reset();  // each batch draws its own
    // Every batch runs in this process or a part root starts from "/".
    journal.config.workload.workdir = journal.config.load.workdir =
        fs::absolute(journal.config.workload.workdir).lexically_normal();
    write_run_journal(bisection_journal_path(folder), journal);
    if (state) bisect::write_bisect_state(folder, *state);
    return journal;
}

// --continue D: the bisection across reboots in D, as its state has it
// (root runs this at the end of each batch, so the state is read only from
// a folder nobody else can change).
int continue_bisection(const fs::path& folder_in) {
    const fs::path folder = fs::absolute(folder_in).lexically_normal();
    const fs::path path = bisection_journal_path(folder);
    if (auto why = file_open_to_others(path))
        throw EnvironmentError("contest bisect --continue: " + printable(path.string()) + ": " +
                               *why + ": refusing it, root runs what it names at every batch");
    const bisect::BisectState s = bisect::read_bisect_state(folder);
    if (s.place != "boot")
        throw UsageError(
            "contest bisect --continue: " + printable(folder.string()) +
            " is a bisection in guests: run the same contest bisect again to resume it");
    try {
        return continue_from_state(s, folder);
    } catch (const Interrupted&) {
        throw;
    } catch (const bisect::BisectionBusy&) {
        throw;
    } catch (const std::exception& e) {
        // What failed before the bisection took its state (a run's words
        // that no longer read) is its state's too: nobody watches the unit.
        try {
            bisect::record_bisection_failure(folder, e.what());
        } catch (const std::exception&) {
            // (the failure to say is the one above)
        }
        throw;
    }
}

int continue_from_state(const bisect::BisectState& s, const fs::path& folder) {
    bisect::BisectOptions options;
    options.tree = s.tree;
    options.good = s.good;
    options.bad = s.bad;
    options.results = folder;
    options.place = s.place;
    options.across_reboots = true;
    options.run_words = s.run_words;
    options.rule.error_rate = s.error_rate;
    options.rule.step_max_rounds = s.step_max_rounds;
    if (s.ends_max_rounds) options.rule.ends_max_rounds = s.ends_max_rounds;
    options.options = s.options;
    const RunJournal journal = read_bisection_journal(folder);
    options.workdir = journal.config.workload.workdir;
    options.measure = bisect::parse_bisect_measure(s.measure, loads_of_run(journal.config));
    return run_and_print(options, journal);
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
    cl.options.add_options()
        ("good", po::value(&good)->value_name("TREE@REF"), "the commit whose kernel is good (TREE@REF%CONFIG_X=V...: every commit built with those options)")
        ("bad", po::value(&bad)->value_name("TREE@REF"), "the later commit whose kernel is bad (same TREE, same %OPTIONS)")
        ("measure", po::value(&measure)->value_name("WHAT:LOAD"),
         "what the ends differ in: time, ratio, loads (LOAD's work done) or a measure a run records "
         "(latency_cyclic_p99_us, ...), under LOAD (default: time under the first load but no_load)")
        ("error-rate", bounded(&rule.error_rate, 0.0001, 0.2)->default_value(rule.error_rate)->value_name("E"),
         "each step's chance of classing its commit wrong, each way")
        ("step-max-rounds", bounded(&rule.step_max_rounds, 2u, 50u)->default_value(rule.step_max_rounds)->value_name("N"),
         "a step still undecided after N rounds is skipped")
        ("ends-max-rounds", bounded(&rule.ends_max_rounds, 3u, 50u)->default_value(rule.ends_max_rounds)->value_name("N"),
         "the ends not told apart after N rounds: no bisection")
        ("results", po::value(&results)->default_value(results)->value_name("D"),
         "the bisection's folder: its state, git's log and every batch's result files")
        ("boot", po::bool_switch(&boot),
         "each batch a `contest run --boot` of this machine (kexec; root): the bisection goes on "
         "across the reboots by itself; each step's commit is built as root (its Makefiles and "
         "scripts run as root, no privilege dropped: give only a tree you would boot; "
         "docs/kernel-builds.md)")
        ("continue", po::value(&continue_from)->value_name("D"),
         "(started at the end of each --boot batch) the bisection in D, on from where it stands")
        ("run-word", po::value(&run_words)->value_name("WORD"), "a word of each batch's `contest run`");
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
    const RunConfig first = run_config_of(batch_words(
        run_words, boot, {{"good", good}, {"bad", bad}}, folder / "ends", rule.ends_max_rounds));
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
    options.across_reboots = boot;
    options.place = boot ? "boot" : "kernel";
    fs::create_directories(folder);
    options.run_words = recorded_run_words(run_words, boot, first.workload.workdir);
    if (boot) options.run_words = pinned_build_config(options.run_words, first, folder);
    options.results = folder;
    options.workdir = first.workload.workdir;
    return run_and_print(options,
                         bisection_journal(options, folder, {{"good", good}, {"bad", bad}}, first));
}

}  // namespace contest
