#include "contest/bisect/bisect_state.h"

#include <cmath>
#include <optional>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "contest/sys/errors.h"
#include "contest/sys/journal_file.h"
#include "contest/sys/json_record.h"
#include "contest/sys/text.h"

namespace contest {

// The words of the state's closed sets (the analysis layer's tables).
template <>
struct JsonWords<StepClass> {
    static constexpr const auto& names = kStepClassNames;
    static constexpr const char* what = "step class";
};
template <>
struct JsonWords<EndsState> {
    static constexpr const auto& names = kEndsStateNames;
    static constexpr const char* what = "state of the ends";
};

}  // namespace contest

namespace contest::bisect {
namespace {

using json = nlohmann::json;

// A state of a thousand steps is far above any bisection's (2^1000
// commits); the journal that holds it is bounded (kMaxRunJournalBytes).
constexpr std::size_t kMaxSteps = 1000;

// The journal's section the state is (sys/journal_file.h).
constexpr const char* kSection = kBisectionSection;

constexpr double kBig = 1e300;
constexpr unsigned kMaxCount = 1000000;

// A figure: null in the file while it is not a finite number (NaN: not
// known), read back as NaN; a number read must lie in [lo, hi]. Always
// written; `later`: a field added after the first states were written,
// absent from theirs (the record's default kept then).
template <typename V, typename D>
void figure(V& v, const char* name, D& x, double lo, double hi, bool later = false) {
    std::optional<double> known;
    if (std::isfinite(x)) known = x;
    if (later)
        v.kept_when_absent(name, known);
    else
        v(name, known);
    if constexpr (V::reading) {
        if (known && !(*known >= lo && *known <= hi))
            v.refuse(name,
                     "out of its range (" + std::to_string(lo) + " to " + std::to_string(hi) + ")");
        x = known ? *known : std::nan("");
    }
}

// A count of rounds: a whole number from 0 to kMaxCount.
template <typename V, typename N>
void count(V& v, const char* name, N& n, bool later = false) {
    if (later)
        v.kept_when_absent(name, n);
    else
        v(name, n);
    if constexpr (V::reading)
        if (n > kMaxCount) v.refuse(name, "not a count from 0 to 1000000");
}

// A list of at most kMaxSteps items (`what` they are, for the refusal).
template <typename V, typename L>
void bounded_list(V& v, const char* name, L& list, const char* what, bool later = false) {
    if (later)
        v.kept_when_absent(name, list);
    else
        v(name, list);
    if constexpr (V::reading)
        if (list.size() > kMaxSteps)
            v.refuse(name, std::string("not a list of at most 1000 ") + what);
}

}  // namespace

// The records of the state, each field named once (sys/json_record.h):
// the writer and the untrusted reader both walk them. Every field is
// written; one added after the first states were written is read when
// present (kept_when_absent), so a state of an earlier contest reads and
// goes on. Text from git (a subject, an author) is written as valid UTF-8.

template <typename V, RecordOf<BisectStep> R>
void fields(V& v, R& s) {
    v("commit", s.commit);
    v("subject", s.subject);
    v("class", s.state);
    v("word", s.word);
    count(v, "rounds", s.rounds);
    count(v, "incomplete", s.incomplete);
    figure(v, "llr", s.llr, -kBig, kBig);
    figure(v, "sureness", s.sureness, 0, 1);
    figure(v, "position", s.position, -kBig, kBig);
    figure(v, "over_halfway", s.over_halfway, 0, 1, true);
    figure(v, "seconds", s.seconds, 0, kBig);
    figure(v, "build_s", s.build_s, 0, kBig, true);
    v.kept_when_absent("cache_hit", s.cache_hit);
    figure(v, "boots_s", s.boots_s, 0, kBig, true);
    figure(v, "guests_s", s.guests_s, 0, kBig, true);
    v("folder", s.folder);
    v("why", s.why);
}

template <typename V, RecordOf<BisectState> R>
void fields(V& v, R& s) {
    v("version", s.version);
    if constexpr (V::reading)
        if (s.version != 1) v.refuse("version", "not 1 (a state of another contest)");
    v("tree", s.tree);
    v("good", s.good);
    v("bad", s.bad);
    bounded_list(v, "options", s.options, "option lines", true);
    v("measure", s.measure);
    v("place", s.place);
    v("emulated", s.emulated);
    figure(v, "error_rate", s.error_rate, 1e-9, 0.5);
    count(v, "step_max_rounds", s.step_max_rounds);
    count(v, "ends_max_rounds", s.ends_max_rounds, true);
    bounded_list(v, "run_words", s.run_words, "words", true);
    figure(v, "batch_started", s.batch_started, 0, kBig, true);
    figure(v, "started", s.started, 0, kBig, true);
    v("ends_state", s.ends_state);
    count(v, "ends_rounds", s.ends_rounds);
    figure(v, "shift", s.shift, -kBig, kBig);
    figure(v, "shift_sd", s.shift_sd, 0, kBig);
    figure(v, "ends_p", s.ends_p, 0, 1);
    figure(v, "could_see", s.could_see, 0, kBig);
    v("ends_why", s.ends_why);
    bounded_list(v, "steps", s.steps, "steps");
    v("first_bad", s.first_bad);
    v("first_bad_subject", s.first_bad_subject);
    v("first_bad_author", s.first_bad_author);
    bounded_list(v, "could_be", s.could_be, "commits");
    figure(v, "sureness", s.sureness, 0, 1);
    v("finished", s.finished);
    figure(v, "seconds", s.seconds, 0, kBig);
    v.kept_when_absent("failure", s.failure);
}

BisectState bisect_state_of_json(const json& j, const std::string& where) {
    if (!j.is_object()) throw UsageError(where + ": not a bisection's state (no JSON object)");
    BisectState s;
    RecordReader::read(j, where, s);
    return s;
}

BisectState bisect_state_from_text(const std::string& text, const std::string& where) {
    return bisect_state_of_json(journal_section_json_from_text(text, where), where);
}

json bisect_state_json(const BisectState& s) {
    return RecordWriter::json_of(s, "the bisection's state", BadText::replaced);
}

std::string bisect_state_text(const BisectState& s) {
    return bisect_state_json(s).dump(2) + "\n";
}

namespace {

json bisection_section_json(const BisectState& s) {
    return {{kSection, bisect_state_json(s)}};
}

BisectState bisection_section_from_json(const json& fields, const std::string& where) {
    const auto section = fields.find(kSection);
    if (section == fields.end())
        throw UsageError(where + ": holds no bisection's state (" + kSection + ")");
    return bisect_state_of_json(*section, where + ": " + kSection);
}

}  // namespace

const JournalSection<BisectState> kBisectionStateSection{
    {kSection}, bisection_section_json, bisection_section_from_json};

std::filesystem::path bisection_journal_path(const std::filesystem::path& folder) {
    return folder_journal_path(folder);
}

bool has_bisect_state(const std::filesystem::path& folder) {
    // Looked at, not refused: the journal of another run (a --boot run's
    // folder), or of another schema, is no bisection's; read_bisect_state
    // refuses what is wrong in one that is.
    const std::filesystem::path path = bisection_journal_path(folder);
    try {
        if (JournalFile::read(path, "the bisection's state").has(kBisectionStateSection))
            return true;
    } catch (const std::runtime_error&) {
        // none there, or not one this contest reads: no state
    }
    std::error_code ec;
    if (std::filesystem::exists(std::filesystem::symlink_status(folder / "bisect.json", ec)))
        throw UsageError(printable(folder.string()) +
                         " holds a bisection an earlier contest started (its bisect.json; the "
                         "state is now its journal's): start it again in a new folder");
    return false;
}

BisectState read_bisect_state(const std::filesystem::path& folder) {
    return JournalFile::read(bisection_journal_path(folder), "the bisection's state")
        .get(kBisectionStateSection);
}

void write_bisect_state(const std::filesystem::path& folder, const BisectState& state) {
    JournalFile::update(
        bisection_journal_path(folder), "the bisection's state",
        [&](JournalFile& journal) { journal.put(kBisectionStateSection, state); },
        JournalFile::IfAbsent::made);
}

}  // namespace contest::bisect
