#include "contest/bisect/bisect_measure.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "contest/analysis/measures.h"
#include "contest/sys/errors.h"
#include "contest/sys/text.h"

namespace contest::bisect {
namespace {

const RunRecord* run_in(const ResultFile& file, int round, const std::string& load) {
    for (const auto& r : file.runs)
        if (r.round == round && r.load == load && r.ok()) return &r;
    return nullptr;
}

std::set<int> rounds_of(const ResultFile& file) {
    std::set<int> rounds;
    for (const auto& r : file.runs) rounds.insert(r.round);
    return rounds;
}

}  // namespace

BisectMeasure parse_bisect_measure(const std::string& text, const std::vector<std::string>& loads) {
    const auto colon = text.find(':');
    const std::string where = "--measure '" + printable(text) + "'";
    if (colon == std::string::npos)
        throw UsageError(where +
                         ": expected WHAT:LOAD (time, ratio, loads or a measure's name, "
                         "then one of the run's loads)");
    BisectMeasure m{text.substr(0, colon), text.substr(colon + 1)};
    if (m.what != "time" && m.what != "ratio" && m.what != "loads" && !find_measure(m.what))
        throw UsageError(where + ": '" + printable(m.what) +
                         "' is no measure (time, ratio, loads, or a measure's name as compare's "
                         "\"what else changed\" names it)");
    if (std::find(loads.begin(), loads.end(), m.load) == loads.end())
        throw UsageError(where + ": the run does not take the load '" + printable(m.load) +
                         "' (its loads: " + join(loads, ", ") + ")");
    if (m.what == "ratio" && std::find(loads.begin(), loads.end(), "no_load") == loads.end())
        throw UsageError(where + ": ratio needs no_load among the run's loads");
    if (m.what == "loads" && m.load == "no_load")
        throw UsageError(where + ": no_load does no work to count");
    return m;
}

std::string unit_of(const BisectMeasure& m) {
    if (m.what == "time") return " s";
    if (m.what == "ratio") return " (of no_load's time)";
    if (m.what == "loads") return " of " + m.load + "'s work";
    const Measure* measure = find_measure(m.what);
    return measure && !measure->unit.empty() ? " " + std::string(measure->unit) : "";
}

std::optional<double> figure_of(const ResultFile& file, int round, const BisectMeasure& m) {
    const RunRecord* run = run_in(file, round, m.load);
    if (!run) return std::nullopt;
    double v = 0;
    if (m.what == "time") {
        v = run->wall_s;
    } else if (m.what == "loads") {
        v = run->load_units;
    } else if (m.what == "ratio") {
        const RunRecord* base = run_in(file, round, "no_load");
        if (!base || !(base->wall_s > 0)) return std::nullopt;
        v = run->wall_s / base->wall_s;
    } else {
        const auto measures = run_measures(*run);
        const auto it = measures.find(m.what);
        if (it == measures.end()) return std::nullopt;
        v = it->second;
    }
    if (!std::isfinite(v)) return std::nullopt;
    return v;
}

std::vector<EndsRound> ends_rounds(const ResultFile& good, const ResultFile& bad,
                                   const BisectMeasure& m, unsigned& incomplete) {
    std::vector<EndsRound> out;
    incomplete = 0;
    for (int round : rounds_of(good)) {
        const auto g = figure_of(good, round, m), b = figure_of(bad, round, m);
        if (g && b)
            out.push_back({*g, *b});
        else
            ++incomplete;
    }
    return out;
}

std::vector<StepRound> step_rounds(const ResultFile& good, const ResultFile& bad,
                                   const ResultFile& tested, const BisectMeasure& m,
                                   unsigned& incomplete) {
    std::vector<StepRound> out;
    incomplete = 0;
    for (int round : rounds_of(tested)) {
        const auto g = figure_of(good, round, m), b = figure_of(bad, round, m),
                   x = figure_of(tested, round, m);
        if (g && b && x)
            out.push_back({*g, *b, *x});
        else
            ++incomplete;
    }
    return out;
}

}  // namespace contest::bisect
