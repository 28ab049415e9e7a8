#pragma once
// Shared parsing for every subcommand: Boost.ProgramOptions on the command
// line, an INI file (--config) merged under it, --help, and UsageError with
// one line naming the option (or file and line) for anything wrong.
#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include <boost/program_options.hpp>

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
};

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
// "-1" is refused, never wrapped into 4294967295). Every number option of
// every command is declared with it:
//   ("runs,n", bounded(&rc.runs, 1u, 1000u)->default_value(3), "...")
template <typename T>
po::typed_value<T>* bounded(T* store, T min, T max);

// The significance levels report and compare take.
inline constexpr double kMinAlpha = 1e-6, kMaxAlpha = 0.5;

// ---------------------------------------------------------------------------

// A bound as the user would write it: 1000, 0.05, 18446744073709551615.
// (number_text(double) is in contest/sys/text.h.)
template <typename T>
std::string number_text(T v) requires std::is_integral_v<T> {
    return std::to_string(v);
}

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

  private:
    T min_, max_;
};

template <typename T>
po::typed_value<T>* bounded(T* store, T min, T max) {
    return new BoundedValue<T>(store, min, max);
}

}  // namespace contest
