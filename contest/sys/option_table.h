#pragma once
// A command's table of options, one row an option declared once: its name,
// its value (the type, range or check and default, as bounded() and
// checked() make it), its help, what it needs, whether a config file may
// set it and its scope. Below the CLI so that rows can sit beside what they
// configure (a place's own options in its file, contest/run/plan/places.h); the
// CLI parses with the rows and makes --help, the manual, the completion and
// what a delegated place is given of them (contest/cli/cli_common.h).
#include <charconv>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include <boost/program_options.hpp>

#include "contest/sys/errors.h"
#include "contest/sys/number_text.h"

namespace contest {

namespace po = boost::program_options;

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
// its help, whether a config file may set it, and its scope. Every
// command's options are such a table (contest/cli/cli_common.h's
// CommandLine): the parser, --help, the manual page, the bash completion
// and what a guest is given are made from it. The scope has no default: an
// option declared without one does not compile (a command that delegates
// nothing says host).
// What an option needs to mean anything: any one of these options given
// ("kernel"), or given with a value ("runs=auto"). The command refuses the
// option without it after its parse (refuse_options_without_needs,
// contest/cli/cli_common.h), and --help and the manual say it before the
// option's own help ("--kernel: the guests' CPUs").
struct Needs {
    std::vector<std::string> any_of;
};

struct TableOption {
    TableOption(const char* flags, OptionScope scope, const po::value_semantic* value,
                const std::string& help, FromConfig config = FromConfig::yes);
    TableOption(const char* flags, OptionScope scope, Needs needs, const po::value_semantic* value,
                const std::string& help, FromConfig config = FromConfig::yes);

    boost::shared_ptr<po::option_description> description;
    OptionScope scope;
    FromConfig config;
    std::vector<std::string> needs;  // Needs::any_of
};

// "--kernel", "--runs auto", "--boot or --boot-abort": the needs as words.
std::string needs_text(const std::vector<std::string>& needs);

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

// Runs check; when its UsageError names an option ("--method 'x': ..."),
// throws it naming that option with prefix ("--latency-method 'x': ..."):
// for checks written for a command's own options (contest latency's) that
// another command offers prefixed (contest run's --latency-*). A message
// that names the prefix's own options already (--latency, --latency-*), or
// no option, and any other error go on as they are; an empty prefix
// changes nothing.
void as_prefixed_option(const std::string& prefix, const std::function<void()>& check);

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
