// `contest track TREE [--branch BRANCH] [--from REF] [--every tag|N] [--head] [options] [--
// RUN-WORDS...]`
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "contest/bisect/bisect_measure.h"
#include "contest/cli/cli_common.h"
#include "contest/cli/commands.h"
#include "contest/cli/kernel_journal.h"
#include "contest/cli/own_run_options.h"
#include "contest/cli/run_options.h"
#include "contest/drive/contest_bench.h"
#include "contest/history/history_db.h"
#include "contest/kbuild/git.h"
#include "contest/sys/errors.h"
#include "contest/sys/file_lock.h"
#include "contest/sys/text.h"
#include "contest/sys/words.h"
#include "contest/sys/workdir.h"
#include "contest/track/track_lock.h"
#include "contest/track/tracking.h"
#include "contest/track/tree_fetch.h"

namespace contest {
namespace {

namespace fs = std::filesystem;

// What each of the track's runs sets itself: refused among the user's, as
// the run's own parser reads them.
void refuse_track_run_options(const std::vector<std::string>& words) {
    const std::string own = run_option_given(
        words, {"kernel", "boot", "runs", "results", "db", "no-history", "order", "label", "vary",
                "resume", "boot-status", "boot-abort", "boot-continue"});
    if (!own.empty())
        throw UsageError("contest track: --" + own +
                         " is the track's to set (each point is a run of its own kernels, "
                         "stored in the track's --db): leave it out after --");
}

void check_every(const std::string& every) {
    if (every == "tag") return;
    const bool number = !every.empty() && every.size() <= 6 &&
                        every.find_first_not_of("0123456789") == std::string::npos &&
                        std::stoul(every) > 0;
    if (!number)
        throw UsageError("contest track: --every '" + printable(every) +
                         "': expected tag or a number of first-parent commits (1 or more)");
}

int print_status(const fs::path& folder) {
    const fs::path path = folder / track::kTrackStateFile;
    std::error_code ec;
    if (!fs::exists(path, ec))
        throw UsageError("contest track --status: no track in " + printable(folder.string()) +
                         " (its --results)");
    const track::TrackState state = track::read_track_state(path);
    std::cout << track::track_status_text(state, FileLock::held_by(folder / "track.lock"))
              << std::flush;
    return kExitOk;
}

// --send-to's addresses: each a word of its own (a mail program takes them
// after --), no space or control character in it.
void check_addresses(const std::vector<std::string>& addresses) {
    for (const auto& a : addresses)
        if (a.empty() || a.front() == '-' || a.find('@') == std::string::npos ||
            std::any_of(a.begin(), a.end(), [](unsigned char c) { return c <= ' ' || c == 127; }))
            throw UsageError("contest track: --send-to '" + printable(a) +
                             "': not a mail address (user@host, no space)");
}

}  // namespace

int cmd_track(int argc, char** argv) {
    CommandLine cl;
    cl.name = "track";
    cl.usage =
        "contest track TREE --from REF [--branch BRANCH] [--every tag|N] [--head] [options] "
        "[-- RUN-OPTIONS... LOAD...]\n  contest track --status [--results D]";
    cl.summary =
        "Follows a branch of a kernel tree (read only): each new point (each tag, or every N-th "
        "first-parent commit, from --from) built and measured in a `contest run --kernel` of the "
        "run words, stored in the results database; a point that does not build or boot is "
        "recorded and skipped. After each point the series' change points: a new one is "
        "confirmed (its two points measured again together), bisected (contest bisect) and "
        "written as a mail in the LKP shape into --mail-dir, once. Run it again (a timer) to "
        "take the new points; cut anywhere, it goes on from where it stood. Example, daily "
        "from a systemd timer: contest track ~/linux --branch master --from v6.12 --every tag "
        "--results /var/lib/contest/track -- --vm-accel kvm -w kernel process_load. "
        "docs/track.md.";
    std::string tree, branch = "HEAD", from, every = "tag", measure, results = "results/track",
                      mail_dir, db;
    bool head = false, status = false, boot = false, fetch = false;
    unsigned runs = 3, confirm_rounds = 5;
    double run_timeout = 0, bisect_timeout = 0;
    unsigned bisect_step_max_rounds = 0;
    std::vector<std::string> run_words, send_to;
    std::string sendmail = "/usr/sbin/sendmail";
    // clang-format off
    using enum OptionScope;
    add_options(cl, {
        {"tree", host, po::value(&tree)->value_name("TREE"), "the kernel tree (a git work tree), only read (--fetch: but its remote-tracking ref and tags)"},
        {"branch", host, po::value(&branch)->default_value(branch)->value_name("BRANCH"), "the ref followed"},
        {"from", host, po::value(&from)->value_name("REF"), "the track's first point (given once: the state keeps it)"},
        {"every", host, checked(&every, check_every)->default_value(every)->value_name("tag|N"),
         "the points: each tagged commit, or every N-th commit of the branch's first-parent line"},
        {"head", host, po::bool_switch(&head), "the branch's head a point too"},
        {"fetch", host, po::bool_switch(&fetch),
         "the remote's branch first fetched into its remote-tracking ref, with its tags "
         "(--branch REMOTE/BRANCH, origin/master), git's config of the tree running no program; "
         "the tree must be the user's own (the unit's fetch)"},
        {"measure", host, po::value(&measure)->value_name("WHAT:LOAD"),
         "the series watched and the figure bisected: time, loads or a measure a run records, "
         "under LOAD (default: time under the first load but no_load)"},
        {"boot", host, po::bool_switch(&boot),
         "each point, confirmation and bisection across reboots of this machine (contest run "
         "--boot, contest bisect --boot; root): started, and taken on at the track's next start "
         "(the unit's timer starts it at boot)"},
        {"runs", host, bounded(&runs, 1u, 100u)->default_value(runs)->value_name("N"), "each point's rounds"},
        {"confirm-rounds", host, bounded(&confirm_rounds, 3u, 50u)->default_value(confirm_rounds)->value_name("N"),
         "the rounds of a change's confirmation (its two points together)"},
        {"run-timeout", host, bounded(&run_timeout, 0.0, 7 * 86400.0)->default_value(run_timeout)->value_name("S"),
         "a point's run (its build and guests), or a confirmation's, stopped after S seconds and "
         "the point failed (0: no bound)"},
        {"bisect-timeout", host, bounded(&bisect_timeout, 0.0, 30 * 86400.0)->default_value(bisect_timeout)->value_name("S"),
         "a change's bisection stopped after S seconds, its state kept and the change left "
         "without an answer (0: no bound)"},
        {"bisect-step-max-rounds", host, bounded(&bisect_step_max_rounds, 2u, 50u)->value_name("N"),
         "each change's bisection: a step still undecided after N rounds is skipped (contest "
         "bisect --step-max-rounds; default its 8)"},
        {"results", host, po::value(&results)->default_value(results)->value_name("D"),
         "the track's folder: its state, each point's run, each change's confirmation and bisection"},
        {"mail-dir", host, po::value(&mail_dir)->value_name("D"), "where the mails go (default: D/mail)"},
        {"send-to", host, checked(&send_to, check_addresses)->value_name("ADDRESS"),
         "each mail also sent to ADDRESS (twice or more: to each) through --sendmail, once"},
        {"sendmail", host, po::value(&sendmail)->default_value(sendmail)->value_name("PROGRAM"),
         "the mail program --send-to hands each mail to (its words, then -oi -- ADDRESS...)"},
        {"db", host, po::value(&db)->value_name("FILE|URI"),
         "the results database each point is stored in: a SQLite file or postgresql://USER@HOST[:PORT]/NAME, "
         "its password in ~/.pgpass, PGPASSFILE, PGPASSWORD or a service file, not in the URI "
         "(default: history.sqlite in --results' parent)"},
        {"status", host, po::bool_switch(&status), "where the track in --results stands, and exit"},
        {"run-word", host, po::value(&run_words)->value_name("WORD"), "a word of each `contest run`"},
    });
    // clang-format on
    cl.positional.add("tree", 1).add("run-word", -1);
    po::variables_map vm;
    if (!parse_command_line(cl, argc, argv, vm)) return kExitOk;
    const fs::path folder = fs::absolute(results).lexically_normal();
    if (status) return print_status(folder);
    if (tree.empty()) throw UsageError("contest track: give the TREE to follow (a git work tree)");
    refuse_track_run_options(run_words);
    if (fetch) track::remote_branch_of(branch);

    // The run words parsed once, here, into the config every point's and
    // confirmation's run starts from (a point of the tree's HEAD; each run
    // sets its own kernels): a bad word is refused before anything is made.
    RunJournal run = kernel_run_journal(run_words, boot, {{track::kPointLabel, tree + "@HEAD"}});
    // As a run's journal keeps them: each run is a child in its own folder.
    make_paths_absolute(run.config);
    const RunConfig& first = run.config;
    const std::vector<std::string> loads = loads_of_run(first);
    measure = measure_or_default(measure, loads, "contest track");
    const Workdir workdir = Workdir::open(first.workload.workdir);
    workdir.make_dir("kbuild");

    track::TrackOptions options;
    options.scratch = workdir.real_dir("kbuild");
    options.locks = track::machine_lock_folder();
    options.machine = track::this_machine();
    const kbuild::GitResult top =
        kbuild::run_git(fs::absolute(tree), {"rev-parse", "--show-toplevel"}, options.scratch);
    if (!top.ok || split_lines(top.out).empty())
        throw UsageError("contest track: " + printable(tree) +
                         " is no git work tree (git: " + printable(top.first_error_line()) + ")");
    options.tree = fs::path(split_lines(top.out).front());
    if (fetch) track::fetch_followed_branch(options.tree, branch, options.scratch);
    options.branch = branch;
    options.from = from;
    options.choice.every = every;
    options.choice.head = head;
    options.measure = bisect::parse_bisect_measure(measure, loads);
    track::history_measure_of(options.measure);
    options.run_words = run_words;
    options.point_rounds = runs;
    options.confirm_rounds = confirm_rounds;
    options.folder = folder;
    options.mail_dir = mail_dir.empty() ? folder / "mail" : fs::absolute(mail_dir);
    options.send_to = send_to;
    options.sendmail = split_words(sendmail);
    if (options.sendmail.empty()) throw UsageError("contest track: --sendmail: give a program");
    options.db = history::db_target(db, folder.parent_path());

    options.boot = boot;
    drive::ContestBenchSettings settings;
    static_cast<track::TrackRuns&>(settings) = options;
    settings.run = std::move(run);
    settings.run_timeout_s = run_timeout;
    settings.bisect_timeout_s = bisect_timeout;
    if (bisect_step_max_rounds) settings.bisect_step_max_rounds = bisect_step_max_rounds;
    drive::ContestBench bench(std::move(settings));
    Progress progress = Progress::for_stderr(false);
    const track::TrackState state = track::run_track(options, bench, progress);
    progress.clear();
    std::cout << track::track_status_text(state, 0) << std::flush;
    return kExitOk;
}

}  // namespace contest
