#pragma once
// Shared parsing for every subcommand: Boost.ProgramOptions on the command
// line, an INI file (--config) merged under it, --help, and UsageError with
// one line naming the option (or file and line) for anything wrong.
#include <charconv>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <boost/program_options.hpp>

#include "contest/sys/errors.h"
#include "contest/sys/number_text.h"
#include "contest/sys/text.h"

namespace contest {

namespace po = boost::program_options;

struct CommandLine {
    std::string name;     // "run", "report", ...
    std::string usage;    // "contest run [options] [LOAD...]"
    std::string summary;  // one line: what the command does
    po::options_description options{"Options", 100};
    po::positional_options_description positional;
    bool accepts_config = false;  // adds --config FILE
    // Options a config file may not set (add_options fills it from a table).
    std::set<std::string> not_from_config;
};

// Where an option of a command's table takes effect. `contest run --kernel`
// gives each guest's own `contest run` the options that reach the guests.
enum class OptionScope {
    host,       // the host's contest only: the plan, the results, the VMs
    delegated,  // the host's and each delegated place's contest run (a --kernel guest's)
    // Room for a scope further in: an option a booted kernel takes too.
};

// Whether an option of that scope is given to the contest of every place a
// turn is delegated to (each --kernel guest today).
constexpr bool reaches_delegated(OptionScope scope) {
    switch (scope) {  // no default: a new scope must say
        case OptionScope::host:
            return false;
        case OptionScope::delegated:
            return true;
    }
    return false;
}

// Whether a config file (--config) may set an option.
enum class FromConfig { yes, no };

// One option of a command's table, declared once: its name, its value (the
// type, range or check and default, as bounded() and checked() make it),
// its help, whether a config file may set it, and its scope. The parser,
// --help and what a guest is given are made from the table. The scope has
// no default: an option declared without one does not compile.
// What an option needs to mean anything: any one of these options given
// ("kernel"), or given with a value ("runs=auto"). The parser refuses the
// option without it, and --help and the manual say it before the option's
// own help ("--kernel: the guests' CPUs").
struct Needs {
    std::vector<std::string> any_of;
};

struct TableOption {
    TableOption(const char* flags, OptionScope scope, const po::value_semantic* value,
                const std::string& help, FromConfig config = FromConfig::yes);
    TableOption(const char* flags, OptionScope scope, Needs needs, const po::value_semantic* value,
                const std::string& help, FromConfig config = FromConfig::yes);
    // An option described elsewhere (the loads'), given its scope here.
    TableOption(boost::shared_ptr<po::option_description> description, OptionScope scope,
                FromConfig config = FromConfig::yes);

    boost::shared_ptr<po::option_description> description;
    OptionScope scope;
    FromConfig config;
    std::vector<std::string> needs;  // Needs::any_of
};

// Whether vm holds the option `name` as given (on the command line or in
// a config file, not by default), and with `value` when one is named.
bool option_given(const po::variables_map& vm, const std::string& name,
                  const std::string& value = "");

// "--kernel", "--runs auto", "--boot or --boot-abort": the needs as words.
std::string needs_text(const std::vector<std::string>& needs);

// UsageError "--vm-cpus needs --kernel" for the first option of the table
// given without anything it needs.
void refuse_options_without_needs(const std::vector<TableOption>& table,
                                  const po::variables_map& vm);

// Adds the options of the table to cl, in its order (--help lists them so).
void add_options(CommandLine& cl, const std::vector<TableOption>& table);

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
// command line wins). Returns false when --help was printed (exit 0).
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

// A number option's value, written to *store and refused with exit 2 naming
// the option and its range when it is not a number from min to max (so
// "-1" is refused, never wrapped into 4294967295); --help shows the range
// after the value's name. The one way a number option is declared, in every
// command:
//   ("warmup", bounded(&rc.warmup_s, 0.0, 3600.0)->default_value(3.0), "...")
template <typename T>
po::typed_value<T>* bounded(T* store, T min, T max);

// A value checked as it is parsed: check throws UsageError saying what is
// wrong. Checked there, not after, so that a bad value in a config file is
// named with its file and line like any other bad line.
//   ("order", checked(&a.order, check_run_order), "...")
template <typename T>
po::typed_value<T>* checked(T* store, std::type_identity_t<std::function<void(const T&)>> check);

// --duration of load and latency: a tenth of a second to a day.
inline constexpr double kMinDurationS = 0.1, kMaxDurationS = 86400;

// UsageError unless format is text or json (--format of load and latency).
void check_text_or_json(const std::string& format);

// The significance levels report and compare take.
inline constexpr double kMinAlpha = 1e-6, kMaxAlpha = 0.5;

// ---------------------------------------------------------------------------

// How --help shows a value with a range: "N (1 to 1000)", before the default.
std::string with_range(std::string name, const std::string& min, const std::string& max);

template <typename T>
class BoundedValue : public po::typed_value<T> {
    static_assert(std::is_arithmetic_v<T>);

  public:
    BoundedValue(T* store, T min, T max) : po::typed_value<T>(store), min_(min), max_(max) {}

    void xparse(boost::any& value_store, const std::vector<std::string>& tokens) const override {
        po::validators::check_first_occurrence(value_store);
        const std::string& token = po::validators::get_single_string(tokens);
        T v{};
        const char* first = token.data();
        const char* last = first + token.size();
        const auto [end, ec] = std::from_chars(first, last, v);
        // !(a <= b) also refuses NaN.
        if (token.empty() || ec != std::errc() || end != last || !(min_ <= v) || !(v <= max_)) {
            po::error_with_option_name e("'%canonical_option%' must be from " + number_text(min_) +
                                         " to " + number_text(max_) + ", not '%value%'");
            e.set_substitute("value", token);
            throw e;
        }
        value_store = v;
    }

    std::string name() const override {
        return with_range(po::typed_value<T>::name(), number_text(min_), number_text(max_));
    }

  private:
    T min_, max_;
};

template <typename T>
class CheckedValue : public po::typed_value<T> {
  public:
    CheckedValue(T* store, std::function<void(const T&)> check)
        : po::typed_value<T>(store), check_(std::move(check)) {}

    void xparse(boost::any& value_store, const std::vector<std::string>& tokens) const override {
        po::typed_value<T>::xparse(value_store, tokens);
        try {
            check_(boost::any_cast<const T&>(value_store));
        } catch (const UsageError& e) {
            // A plain po::error: its text is taken as it is, with no
            // placeholder of Boost's to fill in.
            throw po::error(e.what());
        }
    }

  private:
    std::function<void(const T&)> check_;
};

template <typename T>
po::typed_value<T>* bounded(T* store, T min, T max) {
    return new BoundedValue<T>(store, min, max);
}

template <typename T>
po::typed_value<T>* checked(T* store, std::type_identity_t<std::function<void(const T&)>> check) {
    return new CheckedValue<T>(store, std::move(check));
}

}  // namespace contest
