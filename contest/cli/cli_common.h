#pragma once
// Shared parsing for every subcommand: Boost.ProgramOptions on the command
// line, an INI file (--config) merged under it, --help, and UsageError with
// one line naming the option (or file and line) for anything wrong.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/program_options.hpp>

#include "contest/sys/errors.h"
#include "contest/sys/option_table.h"
#include "contest/sys/text.h"

namespace contest {

// A command's words: its name, what --help says of it, and its table of
// options (option_table.h), one row an option. The parse, --help, the
// manual page and the bash completion are all made of the table; the rows
// of --help and --config are added to it by parse_command_line.
struct CommandLine {
    std::string name;     // "run", "report", ...
    std::string usage;    // "contest run [options] [LOAD...]"
    std::string summary;  // one line: what the command does
    std::vector<TableOption> table;
    // Which rows the words that are no option fill, in order.
    po::positional_options_description positional;
    bool accepts_config = false;  // adds --config FILE
};

// Whether vm holds the option `name` as given (on the command line or in
// a config file, not by default), and with `value` when one is named.
bool option_given(const po::variables_map& vm, const std::string& name,
                  const std::string& value = "");

// UsageError "--vm-cpus needs --kernel" for the first option of the table
// given without anything it needs. Called by the command after its parse,
// not by the parse: a batch's words of `contest run` (contest bisect's,
// contest track's) are parsed without the option the batch adds (--kernel).
void refuse_options_without_needs(const std::vector<TableOption>& table,
                                  const po::variables_map& vm);

// Adds the rows of the table to cl's, in its order (--help lists them so).
void add_options(CommandLine& cl, const std::vector<TableOption>& table);

// Every row of cl's parse, as --help lists them: its table, then --help
// and, when it accepts one, --config.
std::vector<TableOption> command_rows(const CommandLine& cl);

// The words that give another parser of the same options the value v of
// option o, as this parser holds it: "--name=value" as one word, so that a
// value starting with '-' is never read as an option; a switch "--name"
// when on, nothing when off; one word per value for an option given several
// times (composing). An empty value, which "--name=" cannot carry, is
// "--name" and "" (an empty word is no option); for an option with an
// implicit value it is left out, as a separate word would not be its value.
// std::logic_error for a value of a type it cannot write.
std::vector<std::string> option_words(const po::option_description& o, const po::variable_value& v);

// The options of the table that reach a delegated place and that vm holds,
// given or from the config file but not by default, as option_words: what
// `contest run --kernel` appends to each guest's `contest run`.
std::vector<std::string> delegated_words(const std::vector<TableOption>& table,
                                         const po::variables_map& vm);

// A command's options as its parser has them: what the manual page and the
// bash completion are made of, so that neither is kept by hand.
struct OptionFacts {
    std::string long_name;  // "label"
    char short_name = 0;    // 'k', or 0
    std::string parameter;  // "L", "N (1 to 1000) (=3)", "" for a switch
    std::string help;
};
struct CommandFacts {
    std::string name, usage, summary;
    std::vector<OptionFacts> options;
};
// While into is set, parse_command_line parses nothing: it appends the
// command's facts to *into and returns false, as after --help. nullptr ends it.
void collect_command_facts(std::vector<CommandFacts>* into);

// Parses argv into vm (command line first, then the config file, so the
// command line wins) by cl's table: each row's value checked as it is read,
// a row a config file may not set refused there (what a row needs is the
// command's to refuse: refuse_options_without_needs). Returns false when
// --help was printed (exit 0).
// Throws UsageError on any bad option, value or config line.
bool parse_command_line(CommandLine& cl, int argc, char** argv, po::variables_map& vm);

// The one-line text of an option error. Use it, never e.what(): Boost's
// what() loops for ever on a value holding a placeholder like "%value%".
std::string option_error_text(const po::error& e);

// The largest config file read: a real one is a few hundred bytes.
inline constexpr std::uintmax_t kMaxConfigBytes = 1 << 20;

// Stores the options of an INI text (Boost.ProgramOptions' syntax: `name =
// value` lines, `# comments`, `[section]` prefixes) into vm, after what is
// in vm already (which wins). `where` names the text in messages: every
// error is one UsageError "WHERE:LINE: what is wrong", with the bytes that
// are not printable escaped.
void store_config_text(std::string_view text, const std::string& where,
                       const po::options_description& options, po::variables_map& vm);

// Reads the config file at path into vm (store_config_text): it must be a
// regular file of at most kMaxConfigBytes, else a UsageError naming it.
void store_config_file(const std::string& path, const po::options_description& options,
                       po::variables_map& vm);

// --duration of load and latency: a tenth of a second to a day.
inline constexpr double kMinDurationS = 0.1, kMaxDurationS = 86400;

// UsageError unless format is text or json (--format of load and latency).
void check_text_or_json(const std::string& format);

// The significance levels report and compare take.
inline constexpr double kMinAlpha = 1e-6, kMaxAlpha = 0.5;

}  // namespace contest
