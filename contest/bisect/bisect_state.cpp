#include "contest/bisect/bisect_state.h"

#include <fcntl.h>

#include <cmath>
#include <functional>

#include <nlohmann/json.hpp>

#include "contest/sys/atomic_file.h"
#include "contest/sys/errors.h"
#include "contest/sys/regular_file.h"
#include "contest/sys/text.h"

namespace contest::bisect {
namespace {

using json = nlohmann::json;

// A state of a thousand steps is far above any bisection's (2^1000 commits).
constexpr std::uintmax_t kMaxStateBytes = 4 << 20;
constexpr std::size_t kMaxSteps = 1000;

[[noreturn]] void refuse(const std::string& where, const std::string& field,
                         const std::string& why) {
    throw UsageError(where + ": " + field + ": " + why);
}

// One field of a record: its name, how it is written and how it is read
// (checked). The tables below are the only place a field is named.
template <typename R>
struct Field {
    const char* name;
    std::function<json(const R&)> put;
    std::function<void(R&, const json&, const std::string& where)> get;
    // Added after the first states were written: its default when absent.
    bool optional = false;
};

template <typename R>
Field<R> added_later(Field<R> f) {
    f.optional = true;
    return f;
}

template <typename R>
Field<R> text(const char* name, std::string R::*m) {
    return {name, [m](const R& r) { return json(valid_utf8(r.*m)); },
            [name, m](R& r, const json& j, const std::string& where) {
                if (!j.is_string()) refuse(where, name, "not a string");
                r.*m = j.get<std::string>();
            }};
}

template <typename R>
Field<R> number(const char* name, double R::*m, double lo, double hi) {
    return {name, [m](const R& r) { return std::isfinite(r.*m) ? json(r.*m) : json(nullptr); },
            [name, m, lo, hi](R& r, const json& j, const std::string& where) {
                if (j.is_null()) {
                    r.*m = std::nan("");
                    return;
                }
                if (!j.is_number()) refuse(where, name, "not a number");
                const double v = j.get<double>();
                if (!(v >= lo && v <= hi))
                    refuse(where, name,
                           "out of its range (" + std::to_string(lo) + " to " + std::to_string(hi) +
                               ")");
                r.*m = v;
            }};
}

template <typename R>
Field<R> count(const char* name, unsigned R::*m) {
    return {name, [m](const R& r) { return json(r.*m); },
            [name, m](R& r, const json& j, const std::string& where) {
                if (!j.is_number_unsigned() || j.get<std::uint64_t>() > 1000000)
                    refuse(where, name, "not a count from 0 to 1000000");
                r.*m = j.get<unsigned>();
            }};
}

template <typename R>
Field<R> flag(const char* name, bool R::*m) {
    return {name, [m](const R& r) { return json(r.*m); },
            [name, m](R& r, const json& j, const std::string& where) {
                if (!j.is_boolean()) refuse(where, name, "not true or false");
                r.*m = j.get<bool>();
            }};
}

// A list of strings, at most kMaxSteps of them (`what` they are, for the refusal).
template <typename R>
Field<R> texts(const char* name, std::vector<std::string> R::*m, const char* what) {
    return {name,
            [m](const R& r) {
                json a = json::array();
                for (const auto& t : r.*m) a.push_back(valid_utf8(t));
                return a;
            },
            [name, m, what](R& r, const json& j, const std::string& where) {
                if (!j.is_array() || j.size() > kMaxSteps)
                    refuse(where, name, std::string("not a list of at most 1000 ") + what);
                for (const auto& t : j) {
                    if (!t.is_string()) refuse(where, name, "an item that is not a string");
                    (r.*m).push_back(t.get<std::string>());
                }
            }};
}

constexpr double kBig = 1e300;

const std::vector<Field<BisectStep>>& step_fields() {
    static const std::vector<Field<BisectStep>> fields{
        text("commit", &BisectStep::commit),
        text("subject", &BisectStep::subject),
        {"class",
         [](const BisectStep& s) { return json(std::string(name_in(kStepClassNames, s.state))); },
         [](BisectStep& s, const json& j, const std::string& where) {
             const auto v =
                 j.is_string() ? value_in(kStepClassNames, j.get<std::string>()) : std::nullopt;
             if (!v) refuse(where, "class", "not " + names_in(kStepClassNames, ", ", " or "));
             s.state = *v;
         }},
        text("word", &BisectStep::word),
        count("rounds", &BisectStep::rounds),
        count("incomplete", &BisectStep::incomplete),
        number("llr", &BisectStep::llr, -kBig, kBig),
        number("sureness", &BisectStep::sureness, 0, 1),
        number("position", &BisectStep::position, -kBig, kBig),
        added_later(number("over_halfway", &BisectStep::over_halfway, 0, 1)),
        number("seconds", &BisectStep::seconds, 0, kBig),
        added_later(number("build_s", &BisectStep::build_s, 0, kBig)),
        added_later(flag("cache_hit", &BisectStep::cache_hit)),
        added_later(number("boots_s", &BisectStep::boots_s, 0, kBig)),
        added_later(number("guests_s", &BisectStep::guests_s, 0, kBig)),
        text("folder", &BisectStep::folder),
        text("why", &BisectStep::why),
    };
    return fields;
}

const std::vector<Field<BisectState>>& state_fields() {
    static const std::vector<Field<BisectState>> fields{
        {"version", [](const BisectState& s) { return json(s.version); },
         [](BisectState& s, const json& j, const std::string& where) {
             if (!j.is_number_integer() || j.get<int>() != 1)
                 refuse(where, "version", "not 1 (a state of another contest)");
             s.version = 1;
         }},
        text("tree", &BisectState::tree),
        text("good", &BisectState::good),
        text("bad", &BisectState::bad),
        added_later(texts("options", &BisectState::options, "option lines")),
        text("measure", &BisectState::measure),
        text("place", &BisectState::place),
        flag("emulated", &BisectState::emulated),
        number("error_rate", &BisectState::error_rate, 1e-9, 0.5),
        count("step_max_rounds", &BisectState::step_max_rounds),
        added_later(count("ends_max_rounds", &BisectState::ends_max_rounds)),
        added_later(texts("run_words", &BisectState::run_words, "words")),
        added_later(number("batch_started", &BisectState::batch_started, 0, kBig)),
        added_later(number("started", &BisectState::started, 0, kBig)),
        {"ends_state",
         [](const BisectState& s) {
             return json(std::string(name_in(kEndsStateNames, s.ends_state)));
         },
         [](BisectState& s, const json& j, const std::string& where) {
             const auto v =
                 j.is_string() ? value_in(kEndsStateNames, j.get<std::string>()) : std::nullopt;
             if (!v) refuse(where, "ends_state", "not " + names_in(kEndsStateNames, ", ", " or "));
             s.ends_state = *v;
         }},
        count("ends_rounds", &BisectState::ends_rounds),
        number("shift", &BisectState::shift, -kBig, kBig),
        number("shift_sd", &BisectState::shift_sd, 0, kBig),
        number("ends_p", &BisectState::ends_p, 0, 1),
        number("could_see", &BisectState::could_see, 0, kBig),
        text("ends_why", &BisectState::ends_why),
        {"steps",
         [](const BisectState& s) {
             json steps = json::array();
             for (const auto& step : s.steps) {
                 json j = json::object();
                 for (const auto& f : step_fields()) j[f.name] = f.put(step);
                 steps.push_back(j);
             }
             return steps;
         },
         [](BisectState& s, const json& j, const std::string& where) {
             if (!j.is_array() || j.size() > kMaxSteps)
                 refuse(where, "steps", "not a list of at most 1000 steps");
             for (std::size_t i = 0; i < j.size(); ++i) {
                 const std::string at = where + ": steps[" + std::to_string(i) + "]";
                 if (!j[i].is_object()) refuse(at, "", "not an object");
                 BisectStep step;
                 for (const auto& f : step_fields()) {
                     if (!j[i].contains(f.name) && f.optional) continue;
                     if (!j[i].contains(f.name)) refuse(at, f.name, "missing");
                     f.get(step, j[i][f.name], at);
                 }
                 s.steps.push_back(std::move(step));
             }
         }},
        text("first_bad", &BisectState::first_bad),
        text("first_bad_subject", &BisectState::first_bad_subject),
        text("first_bad_author", &BisectState::first_bad_author),
        texts("could_be", &BisectState::could_be, "commits"),
        number("sureness", &BisectState::sureness, 0, 1),
        flag("finished", &BisectState::finished),
        number("seconds", &BisectState::seconds, 0, kBig),
        added_later(text("failure", &BisectState::failure)),
    };
    return fields;
}

}  // namespace

BisectState bisect_state_from_text(const std::string& text_in, const std::string& where) {
    const json j = json::parse(text_in, nullptr, false);
    if (j.is_discarded() || !j.is_object())
        throw UsageError(where + ": not a bisection's state (no JSON object)");
    BisectState s;
    for (const auto& f : state_fields()) {
        if (!j.contains(f.name) && f.optional) continue;
        if (!j.contains(f.name)) refuse(where, f.name, "missing");
        f.get(s, j[f.name], where);
    }
    return s;
}

std::string bisect_state_text(const BisectState& s) {
    json j = json::object();
    for (const auto& f : state_fields()) j[f.name] = f.put(s);
    return j.dump(2) + "\n";
}

BisectState read_bisect_state(const std::filesystem::path& path) {
    const std::string where = printable(path.string());
    const RegularFileRead got = read_regular_file_at(AT_FDCWD, path.c_str(), kMaxStateBytes, false);
    if (got.refusal != RegularFileRead::Refusal::none)
        throw UsageError("the bisection's state " + where + ": " + got.why());
    return bisect_state_from_text(got.text, where);
}

void write_bisect_state(const std::filesystem::path& path, const BisectState& state) {
    write_file_atomically(path, bisect_state_text(state));
}

}  // namespace contest::bisect
