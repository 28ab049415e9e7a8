#pragma once
// `contest run`'s options: one table (cmd_run.cpp, run_option_table, with
// every place's own rows from the place table, contest/run/plan/places.h) in
// which each option is declared once with its name, value, help, whether a
// config file may set it and its scope. The parser, --help and what each
// --kernel guest's own `contest run` is given are all made from it, so an
// option the host took reaches the guests with the same meaning.
#include <memory>
#include <string>
#include <vector>

#include "contest/cli/cli_common.h"
#include "contest/run/places/boot/boot_run.h"
#include "contest/run/plan/run_config.h"
#include "contest/run/plan/run_journal.h"
#include "contest/sys/progress.h"

namespace contest {

struct RunArguments;

// `contest run`'s table, bound to where its values go, and what was parsed.
class RunOptions {
  public:
    RunOptions();
    ~RunOptions();
    RunOptions(const RunOptions&) = delete;
    RunOptions& operator=(const RunOptions&) = delete;

    // Parses a `contest run` argv (argv[0] is "run"; then --config, under
    // the command line). False when --help was printed. Throws UsageError.
    bool parse(int argc, char** argv);
    // The same of the words after "run".
    bool parse_words(const std::vector<std::string>& words);

    const std::vector<TableOption>& table() const { return table_; }
    // The values as the host holds them: the command line's and the config
    // file's merged (a composing option has the values of both).
    const po::variables_map& values() const { return vm_; }
    // What each --kernel guest's `contest run` is given after the options
    // the host sets per guest (RunConfig::delegated_arguments).
    std::vector<std::string> delegated_arguments() const { return delegated_words(table_, vm_); }

    RunArguments& arguments() { return *arguments_; }

  private:
    std::unique_ptr<RunArguments> arguments_;
    CommandLine cl_;
    std::vector<TableOption> table_;
    po::variables_map vm_;
};

// A `contest run` of these words (those after "run"), parsed and checked as
// its command line would be, with its command line and, for --kernel, the
// guests' config (RunConfig::delegated): what a --boot start makes of its
// resolved words, and contest bisect of its batches' at its start.
// UsageError as `contest run` says it.
RunConfig run_config_of(const std::vector<std::string>& words);

// The journal of a `contest run --boot` of these words, parsed once and
// resolved as a --boot start resolves its own (boot_run_words: the paths
// later steps use root's alone), its boot options beside its config:
// contest bisect --boot's, made at its start, from which each batch's part
// is started after a reboot without a word parsed (drive/bisection_drive.h).
RunJournal boot_batch_journal_of(const std::vector<std::string>& words);

}  // namespace contest
